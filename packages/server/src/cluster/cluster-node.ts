import type { LeaseStore } from './leases.js';

/** An instance that stops renewing is taken for dead after this long. */
export const INSTANCE_TTL_MS = 10_000;
const HEARTBEAT_MS = 2_000;

/**
 * This instance's place in the cluster: it proves it is alive by renewing its instance lease every two
 * seconds, tells whether another instance is alive, and runs scheduled work that must happen once per cluster
 * (not once per instance) under a lease that passes to a survivor when its holder dies.
 */
export class ClusterNode {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly held = new Set<string>();
  private readonly taking = new Set<Promise<boolean>>();
  private stopped = false;
  /** Whether no other instance was alive at the last heartbeat. */
  private soleInstance = true;

  constructor(
    private readonly leases: LeaseStore,
    readonly instanceId: string,
    private readonly onError: (error: unknown, what: string) => void = () => undefined,
  ) {}

  /** Takes the instance lease (awaited, so the instance is known alive before it serves) and keeps renewing it. */
  async start(): Promise<void> {
    await this.beat();
    this.repeat(HEARTBEAT_MS, () => this.beat());
  }

  /**
   * Whether this instance was the only one alive at its last heartbeat (true until it has looked, and when it cannot
   * look: it only chooses how the ledger batches, never what is charged).
   */
  get alone(): boolean {
    return this.soleInstance;
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return instanceId === this.instanceId || (await this.leases.isHeld(`instance:${instanceId}`));
  }

  /**
   * Runs `job` every `intervalMs` on one instance of the cluster: whichever holds the job's lease. The lease
   * outlives a few intervals, so its holder keeps it while alive and another instance takes over when it dies.
   */
  every(name: string, intervalMs: number, job: () => Promise<unknown>): void {
    const lease = `job:${name}`;
    const ttl = Math.max(intervalMs * 3, INSTANCE_TTL_MS);
    let running = false;
    this.repeat(intervalMs, async () => {
      if (running) return;
      running = true;
      try {
        if (!(await this.take(lease, ttl)) || this.stopped) return;
        await job();
      } catch (error) {
        this.onError(error, name);
      } finally {
        running = false;
      }
    });
  }

  /** Stops the timers and gives the leases up, so survivors take over at once instead of after the TTL. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled([...this.taking]);
    for (const lease of new Set([...this.held, `instance:${this.instanceId}`])) await this.leases.release(lease, this.instanceId).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    await this.take(`instance:${this.instanceId}`, INSTANCE_TTL_MS).catch((error: unknown) => this.onError(error, 'instance lease'));
    await this.leases.liveInstances().then(
      (n) => (this.soleInstance = n <= 1),
      (error: unknown) => this.onError(error, 'instance count'),
    );
  }

  /**
   * Takes or renews a lease, counted as under way until it answers: stop() waits for these before it releases,
   * or a renewal that reached the store after the release would hold the lease for a whole TTL after stopping.
   */
  private take(lease: string, ttlMs: number): Promise<boolean> {
    const taking = this.leases.acquire(lease, this.instanceId, ttlMs).then((taken) => {
      if (taken) this.held.add(lease);
      return taken;
    });
    this.taking.add(taking);
    void taking.catch(() => undefined).finally(() => this.taking.delete(taking));
    return taking;
  }

  private repeat(ms: number, task: () => Promise<unknown>): void {
    const timer = setInterval(() => {
      if (!this.stopped) void task();
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
