/**
 * The relay requests still running on this instance, so a shutdown can wait for them: each one settles its
 * reservation before it ends, and an instance that exits only after that leaves nothing for a takeover.
 */
export class InFlightRequests {
  private readonly running = new Set<Promise<unknown>>();

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
}
