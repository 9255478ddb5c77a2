/**
 * The relay requests still running on this instance, so a shutdown can wait for them: each one settles its
 * reservation before it ends, and an instance that exits only after that leaves nothing for a takeover.
 */
export class InFlightRequests {
  /** Requests tracked and not yet settled: a count, not a set of them (a set's entry per open stream costs memory). */
  private running = 0;
  /** What `idle` waits on: resolved when the count next falls to zero. */
  private drained: { promise: Promise<void>; resolve: () => void } | undefined = undefined;
  /** What this instance's running requests hold or are about to hold, per user and per key. */
  private readonly held = new Map<string, number>();
  /** Ends one request begun with `begin`: one function for every request (a closure per request would live as long as its stream). */
  readonly end = () => {
    if (--this.running > 0 || !this.drained) return;
    const { resolve } = this.drained;
    this.drained = undefined;
    resolve();
  };

  get size(): number {
    return this.running;
  }

  /** Counts a request as running until `end` is called for it, once. */
  begin(): void {
    this.running++;
  }

  /** Resolves when every request running now (and any started meanwhile) has finished. */
  async idle(): Promise<void> {
    if (this.running === 0) return;
    if (!this.drained) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.drained = { promise, resolve };
    }
    await this.drained.promise;
  }

  /** Sum of the amounts `hold` registered for a user or key (`user:<id>`, `key:<id>`) and not yet released. */
  holding(subject: string): number {
    return this.held.get(subject) ?? 0;
  }

  /** Registers an amount a request holds for its user and key until the returned release is called. */
  hold(subjects: string[], amount: number): () => void {
    for (const subject of subjects) this.held.set(subject, this.holding(subject) + amount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const subject of subjects) {
        const left = this.holding(subject) - amount;
        if (left > 0) this.held.set(subject, left);
        else this.held.delete(subject);
      }
    };
  }
}
