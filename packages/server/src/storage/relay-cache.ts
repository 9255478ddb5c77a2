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
  private tokens = new Map<string, Entry<TokenRow | undefined>>();
  private users = new Map<number, Entry<UserRow | undefined>>();
  private candidates = new Map<string, Entry<ChannelRow[]>>();

  constructor(
    private readonly ttlMs = 1000,
    private readonly bus?: EventBus,
  ) {}

  private fresh<T>(entry: Entry<T> | undefined): entry is Entry<T> {
    return entry !== undefined && Date.now() - entry.at < this.ttlMs;
  }

  async token(key: string, load: () => Promise<TokenRow | undefined>): Promise<TokenRow | undefined> {
    const entry = this.tokens.get(key);
    if (this.fresh(entry)) return entry.value;
    const value = await load();
    if (this.ttlMs > 0) this.remember(this.tokens, key, value);
    return value;
  }

  async user(id: number, load: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    const entry = this.users.get(id);
    if (this.fresh(entry)) return entry.value;
    const value = await load();
    if (this.ttlMs > 0) this.remember(this.users, id, value);
    return value;
  }

  async channels(group: string, model: string, load: () => Promise<ChannelRow[]>): Promise<ChannelRow[]> {
    const key = `${group}\u0000${model}`;
    const entry = this.candidates.get(key);
    if (this.fresh(entry)) return entry.value;
    const value = await load();
    if (this.ttlMs > 0) this.remember(this.candidates, key, value);
    return value;
  }

  /** Any key changed (its status, quota, models, IP list, or it was deleted). */
  invalidateTokens(): void {
    this.tokens.clear();
    this.bus?.publish({ kind: 'tokens' });
  }

  invalidateUser(id?: number): void {
    this.forgetUser(id);
    this.bus?.publish({ kind: 'users', id });
  }

  /** Any channel or ability changed. */
  invalidateChannels(): void {
    this.candidates.clear();
    this.bus?.publish({ kind: 'channels' });
  }

  /** Another instance changed something: drop the copies it affects (without telling anyone again). */
  apply(event: ClusterEvent): void {
    if (event.kind === 'tokens' || event.kind === 'all') this.tokens.clear();
    if (event.kind === 'users' || event.kind === 'all') this.forgetUser(event.kind === 'users' ? event.id : undefined);
    if (event.kind === 'channels' || event.kind === 'all') this.candidates.clear();
  }

  private forgetUser(id?: number): void {
    if (id === undefined) this.users.clear();
    else this.users.delete(id);
  }

  private remember<K, V>(map: Map<K, Entry<V>>, key: K, value: V): void {
    // Bounded: a flood of unknown keys must not grow memory without limit.
    if (map.size >= 10_000) map.clear();
    map.set(key, { value, at: Date.now() });
  }
}
