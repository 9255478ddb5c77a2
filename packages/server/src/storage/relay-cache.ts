import type { ClusterEvent, EventBus } from '../cluster/event-bus.js';
import type { ChannelRow, TokenRow, UserRow } from './schema.js';

interface Entry<T> {
  value: T;
  at: number;
}

/**
 * Short-lived copies of the rows every relay request reads (its key, the key's owner, the channels serving a
 * group and model), so the hot path does not query the database for them. Every write through our
 * repositories invalidates what it touched at once, here and (through the event bus) on every other instance
 * of the cluster; `ttlMs` only bounds how long a change made behind our back (a direct SQL edit, a lost
 * message) can go unseen. Money never depends on these copies: the ledger's conditional updates decide
 * whether a request may spend.
 */
export class RelayCache {
  private tokens = new Slot<string, TokenRow | undefined>();
  private users = new Slot<number, UserRow | undefined>();
  private candidates = new Slot<string, ChannelRow[]>();
  private readonly listeners: Array<(event: ClusterEvent) => void> = [];

  constructor(
    private readonly ttlMs = 1000,
    private readonly bus?: EventBus,
  ) {}

  token(key: string, load: () => Promise<TokenRow | undefined>): Promise<TokenRow | undefined> {
    return this.tokens.read(key, load, this.ttlMs);
  }

  user(id: number, load: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    return this.users.read(id, load, this.ttlMs);
  }

  channels(group: string, model: string, load: () => Promise<ChannelRow[]>): Promise<ChannelRow[]> {
    return this.candidates.read(`${group}\u0000${model}`, load, this.ttlMs);
  }

  /**
   * Told of every change of keys, users or channels, made here or on another instance (the ledger gives back the
   * balance slices of a user or key that changed: ledger-slices.ts).
   */
  listen(listener: (event: ClusterEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Any key changed (its status, quota, models, IP list, or it was deleted). */
  invalidateTokens(): void {
    this.tokens.forget();
    this.announce({ kind: 'tokens' });
  }

  invalidateUser(id?: number): void {
    this.forgetUser(id);
    this.announce({ kind: 'users', id });
  }

  /** Any channel or ability changed. */
  invalidateChannels(): void {
    this.candidates.forget();
    this.announce({ kind: 'channels' });
  }

  /** Another instance changed something: drop the copies it affects (without telling anyone again). */
  apply(event: ClusterEvent): void {
    if (event.kind === 'tokens' || event.kind === 'all') this.tokens.forget();
    if (event.kind === 'users' || event.kind === 'all') this.forgetUser(event.kind === 'users' ? event.id : undefined);
    if (event.kind === 'channels' || event.kind === 'all') this.candidates.forget();
    for (const listener of this.listeners) listener(event);
  }

  private announce(event: ClusterEvent): void {
    this.bus?.publish(event);
    for (const listener of this.listeners) listener(event);
  }

  private forgetUser(id?: number): void {
    this.users.forget(id);
  }
}

/**
 * One kind of row. Requests that miss the same entry at once share one load (when a copy expires under load, every
 * request in flight would otherwise query the database for the same row). A load that began before an invalidation
 * is neither joined nor kept afterwards: what it read may be what the invalidation replaced.
 */
class Slot<K, V> {
  private entries = new Map<K, Entry<V>>();
  private loads = new Map<K, Promise<V>>();
  /** Bumped by every invalidation: a load started under an older generation is not remembered. */
  private generation = 0;

  read(key: K, load: () => Promise<V>, ttlMs: number): Promise<V> {
    const entry = this.entries.get(key);
    if (entry !== undefined && Date.now() - entry.at < ttlMs) return Promise.resolve(entry.value);
    // Without a cache (ttl 0) every request reads the database itself.
    if (ttlMs <= 0) return load();
    const pending = this.loads.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const loading = load().then(
      (value) => {
        if (this.loads.get(key) === loading) this.loads.delete(key);
        if (generation === this.generation) this.remember(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.loads.get(key) === loading) this.loads.delete(key);
        throw error;
      },
    );
    this.loads.set(key, loading);
    return loading;
  }

  /** Drops one entry, or every one (and any load in flight, whose result may predate the change). */
  forget(key?: K): void {
    this.generation++;
    if (key === undefined) {
      this.entries.clear();
      this.loads.clear();
    } else {
      this.entries.delete(key);
      this.loads.delete(key);
    }
  }

  private remember(key: K, value: V): void {
    // Bounded: a flood of unknown keys must not grow memory without limit.
    if (this.entries.size >= 10_000) this.entries.clear();
    this.entries.set(key, { value, at: Date.now() });
  }
}
