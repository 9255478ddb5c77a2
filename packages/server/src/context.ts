import type { Redis } from 'ioredis';
import type { ChannelService } from './api/channel/channel-service.js';
import type { LogService } from './api/log/log-service.js';
import type { RedemptionService } from './api/redemption/redemption-service.js';
import type { TokenService } from './api/token/token-service.js';
import type { ChannelTestRunner } from './relay/channel-health/test-all.js';
import type { UserService } from './api/user/user-service.js';
import type { QuotaLedger } from './billing/ledger.js';
import type { UpstreamPools } from './relay/pipeline/forward.js';
import type { RelayStore } from './storage/repositories/relay-store.js';
import type { RateLimiter } from './auth/rate-limiter.js';
import type { SessionCodec } from './auth/session.js';
import type { Config } from './config.js';
import type { Notifier } from './notify/notifier.js';
import type { OptionStore } from './options/option-store.js';
import type { LogsRepository } from './storage/repositories/logs.js';
import type { UsersRepository } from './storage/repositories/users.js';
import type { Storage } from './storage/database.js';
import type { SharedStore } from './cluster/shared-store.js';

/** Everything a route needs, built once in main.ts (or by a test) and passed in: no globals. */
export interface AppContext {
  config: Config;
  storage: Storage;
  options: OptionStore;
  sessions: SessionCodec;
  rateLimiter: RateLimiter;
  redis?: Redis;
  /** Short-lived state every instance sees alike (Redis when configured, else memory): codes, OAuth state, revocations. */
  shared: SharedStore;
  repositories: { users: UsersRepository; logs: LogsRepository };
  services: { users: UserService; tokens: TokenService; channels: ChannelService; logs: LogService; redemptions: RedemptionService };
  channelTests: ChannelTestRunner;
  notifier: Notifier;
  relay: { store: RelayStore; ledger: QuotaLedger; pools: UpstreamPools };
  version: string;
  startTime: number;
}
