import type { Redis } from 'ioredis';

/**
 * What changed, so that every instance drops what it holds in memory about it: options (prices, switches,
 * texts) are reloaded, cached keys, users and channel lists are dropped. `all` means "assume anything
 * changed" (sent to itself by an instance that may have missed messages while its Redis link was down).
 */
export type ClusterEvent =
  | { kind: 'options' }
  | { kind: 'tokens' }
  | { kind: 'users'; id?: number }
  | { kind: 'channels' }
  | { kind: 'all' }
  /** An instance would refuse a request of this user: every instance gives back its slices of the user's balance. */
  | { kind: 'slices'; userId: number };

export type ClusterEventHandler = (event: ClusterEvent) => void;

/**
 * Tells the other instances of a cluster what this one changed. The writer applies a change to its own memory
 * itself; `publish` reaches every other instance (through Redis pub/sub, so within milliseconds, no polling).
 * With one instance and no Redis it reaches nobody, and nothing else is needed.
 */
export interface EventBus {
  readonly instanceId: string;
  publish(event: ClusterEvent): void;
  /** Handlers receive the events other instances published. */
  subscribe(handler: ClusterEventHandler): void;
  close(): Promise<void>;
}

export class LocalEventBus implements EventBus {
  constructor(readonly instanceId: string) {}
  publish(): void {}
  subscribe(): void {}
  async close(): Promise<void> {}
}

/** Pub/sub channels are not keys (the connection's key prefix does not reach them): the prefix is added here. */
const channelOf = (redis: Redis) => `${String(redis.options.keyPrefix ?? '')}cluster-events`;

/**
 * Redis pub/sub. A subscribing connection can do nothing else, so it is a second connection. Messages sent
 * while a subscriber was disconnected are lost: when it reconnects, its handlers get `all` and drop everything.
 */
export class RedisEventBus implements EventBus {
  private readonly handlers: ClusterEventHandler[] = [];
  private readonly subscriber: Redis;
  private readonly channel: string;
  private everConnected = false;

  constructor(
    private readonly redis: Redis,
    readonly instanceId: string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.channel = channelOf(redis);
    this.subscriber = redis.duplicate();
    this.subscriber.on('error', (error) => this.onError(error));
    this.subscriber.on('ready', () => {
      if (this.everConnected) this.deliver({ kind: 'all' });
      this.everConnected = true;
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        const { from, event } = JSON.parse(message) as { from: string; event: ClusterEvent };
        if (from !== this.instanceId) this.deliver(event);
      } catch (error) {
        this.onError(error);
      }
    });
  }

  /** Resolves once the subscription is active, so no change made after start-up can be missed. */
  async start(): Promise<void> {
    await this.subscriber.subscribe(this.channel);
  }

  publish(event: ClusterEvent): void {
    this.redis.publish(this.channel, JSON.stringify({ from: this.instanceId, event })).catch((error: unknown) => this.onError(error));
  }

  subscribe(handler: ClusterEventHandler): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }

  private deliver(event: ClusterEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
