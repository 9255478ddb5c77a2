import type { ChannelHealthDeps } from './test-channel.js';
import { testChannel } from './test-channel.js';

/**
 * "Test all" / "test disabled": tests the channels one after another in the background. Only one run at a
 * time per process; a second request while one runs is told so instead of starting another.
 */
export class ChannelTestRunner {
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ChannelHealthDeps) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts a run; returns false when one is already running. */
  start(scope: 'all' | 'disabled'): boolean {
    if (this.running) return false;
    this.running = this.run(scope).finally(() => {
      this.running = undefined;
    });
    return true;
  }

  /** Resolves when the current run (if any) ends. */
  async idle(): Promise<void> {
    await this.running;
  }

  private async run(scope: 'all' | 'disabled'): Promise<void> {
    const channels = await this.deps.store.channelsForTest(scope);
    for (const channel of channels) {
      await testChannel(this.deps, channel).catch(() => undefined);
    }
  }
}
