/**
 * The relay requests still running on this instance, so a shutdown can wait for them: each one settles its
 * reservation before it ends, and an instance that exits only after that leaves nothing for a takeover.
 */
export class InFlightRequests {
  private readonly running = new Set<Promise<unknown>>();
  /** What this instance's running requests hold or are about to hold, per user and per key. */
  private readonly held = new Map<string, number>();

  get size(): number {
    return this.running.size;
  }

  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const done = () => this.running.delete(work);
    work.then(done, done);
    return work;
  }

  /** Resolves when every request running now (and any started meanwhile) has finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
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
