import type { ChannelTestProgress } from '@model-relay/contract';
import { MemorySharedStore, type SharedStore } from '../../cluster/shared-store.js';
import type { ChannelHealthDeps } from './test-channel.js';
import { testChannel } from './test-channel.js';

const LOCK_KEY = 'channel-test:lock';
const PROGRESS_KEY = 'channel-test:progress';
const PROGRESS_TTL_SECONDS = 24 * 3600;

const IDLE: ChannelTestProgress = { running: false, scope: '', total: 0, done: 0, failed: 0, started_at: 0, finished_at: 0 };

/**
 * "Test all" / "test disabled": tests the channels one after another in the background. One run at a time in
 * the whole cluster (a lock in the shared store, renewed after every channel so a crashed instance's lock
 * runs out); a second request while one runs is told so instead of starting another. The progress lives in
 * the shared store too, so whichever instance the console polls can answer.
 */
export class ChannelTestRunner {
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: ChannelHealthDeps,
    private readonly shared: SharedStore = new MemorySharedStore(),
    /** How long one channel's test may take at most, plus slack: the lock outlives a live run, never a dead one. */
    private readonly lockTtlSeconds = 600,
  ) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Starts a run; false when one is already running (here or on another instance). */
  async start(scope: 'all' | 'disabled'): Promise<boolean> {
    if (this.running) return false;
    if (!(await this.shared.setIfAbsent(LOCK_KEY, String(process.pid), this.lockTtlSeconds))) return false;
    // Published before answering: whoever polls right after the start sees this run, never the previous one.
    const progress: ChannelTestProgress = { ...IDLE, running: true, scope, started_at: Math.floor(Date.now() / 1000) };
    await this.publish(progress);
    this.running = this.run(progress).finally(() => {
      this.running = undefined;
    });
    return true;
  }

  /** Resolves when the current run (if any) ends. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** The current or last run (any instance's). */
  async progress(): Promise<ChannelTestProgress> {
    const text = await this.shared.get(PROGRESS_KEY);
    if (!text) return IDLE;
    try {
      return { ...IDLE, ...(JSON.parse(text) as Partial<ChannelTestProgress>) };
    } catch {
      return IDLE;
    }
  }

  private async publish(progress: ChannelTestProgress): Promise<void> {
    await this.shared.set(PROGRESS_KEY, JSON.stringify(progress), PROGRESS_TTL_SECONDS);
  }

  private async run(progress: ChannelTestProgress): Promise<void> {
    try {
      const channels = await this.deps.store.channelsForTest(progress.scope === 'disabled' ? 'disabled' : 'all');
      progress.total = channels.length;
      await this.publish(progress);
      for (const channel of channels) {
        const result = await testChannel(this.deps, channel).catch(() => undefined);
        progress.done += 1;
        if (!result?.success) progress.failed += 1;
        await this.shared.set(LOCK_KEY, String(process.pid), this.lockTtlSeconds);
        await this.publish(progress);
      }
    } finally {
      progress.running = false;
      progress.finished_at = Math.floor(Date.now() / 1000);
      await this.publish(progress).catch(() => undefined);
      await this.shared.delete(LOCK_KEY).catch(() => undefined);
    }
  }
}
