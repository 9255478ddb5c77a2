import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { ChannelService } from './api/channel/channel-service.js';
import { LogService } from './api/log/log-service.js';
import { RedemptionService } from './api/redemption/redemption-service.js';
import { TokenService } from './api/token/token-service.js';
import { ChannelTestRunner } from './relay/channel-health/test-all.js';
import { ChannelsRepository } from './storage/repositories/channels.js';
import { UserService } from './api/user/user-service.js';
import { QuotaLedger } from './billing/ledger.js';
import { QuotaReminder } from './billing/quota-reminder.js';
import { UpstreamPools } from './relay/pipeline/forward.js';
import { RelayStore } from './storage/repositories/relay-store.js';
import { MemoryRateLimiter, RedisRateLimiter } from './auth/rate-limiter.js';
import { MemorySharedStore, RedisSharedStore } from './cluster/shared-store.js';
import { SessionCodec } from './auth/session.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { randomHex } from './lib/random.js';
import { Notifier } from './notify/notifier.js';
import { OptionStore } from './options/option-store.js';
import { openStorage } from './storage/database.js';
import { RelayCache } from './storage/relay-cache.js';
import { LogsRepository } from './storage/repositories/logs.js';
import { OptionsRepository } from './storage/repositories/options.js';
import { RedemptionsRepository } from './storage/repositories/redemptions.js';
import { TokensRepository } from './storage/repositories/tokens.js';
import { UsersRepository } from './storage/repositories/users.js';

const SESSION_SECRET_KEY = 'internal.SessionSecret';

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Opens storage, loads options, creates the root user on first start and wires the services together. */
export async function createContext(config: Config): Promise<AppContext> {
  const storage = await openStorage({ dsn: config.SQL_DSN, sqlitePath: config.SQLITE_PATH });
  const optionsRepository = new OptionsRepository(storage.db);
  const options = new OptionStore(optionsRepository);
  await options.load();

  // SESSION_SECRET, or one generated once and kept in the database so restarts keep sessions valid.
  let secret = config.SESSION_SECRET;
  if (!secret) {
    const stored = await optionsRepository.get(SESSION_SECRET_KEY);
    secret = stored ?? randomHex(32);
    if (!stored) await optionsRepository.set(SESSION_SECRET_KEY, secret);
  }

  const cache = new RelayCache(config.RELAY_CACHE_MS);
  const users = new UsersRepository(storage.db, cache);
  const logs = new LogsRepository(storage.db);
  const userService = new UserService(storage.db, users, logs, options);
  await userService.ensureRootUser();

  // Crash recovery: reservations left open by an earlier process are refunded. With several instances
  // (Redis configured) only those older than the longest possible request, which no live instance still holds.
  const reportError = (error: unknown, what: string) => console.error(`${what} failed:`, error instanceof Error ? error.message : error);
  const notifier = new Notifier(storage.db, options, reportError);
  const ledger = new QuotaLedger(storage.db, storage.dialect, new QuotaReminder(storage.db, options, notifier, reportError));
  const startTime = Math.floor(Date.now() / 1000);
  await ledger.recoverOpen(config.REDIS_CONN_STRING ? startTime - config.RELAY_TIMEOUT_SECONDS * 2 : startTime + 1);

  const relay = { store: new RelayStore(storage.db, cache), ledger, pools: new UpstreamPools(config.RELAY_TIMEOUT_SECONDS * 1000) };

  const redis = config.REDIS_CONN_STRING ? new Redis(config.REDIS_CONN_STRING, { maxRetriesPerRequest: 2 }) : undefined;
  const shared = redis ? new RedisSharedStore(redis) : new MemorySharedStore();
  const ctx: AppContext = {
    config,
    storage,
    options,
    sessions: new SessionCodec(secret),
    rateLimiter: redis ? new RedisRateLimiter(redis) : new MemoryRateLimiter(),
    redis,
    shared,
    repositories: { users, logs },
    services: {
      users: userService,
      tokens: new TokenService(new TokensRepository(storage.db, cache)),
      channels: new ChannelService(new ChannelsRepository(storage.db, storage.dialect, cache)),
      logs: new LogService(logs),
      redemptions: new RedemptionService(new RedemptionsRepository(storage.db, cache), options),
    },
    channelTests: new ChannelTestRunner({ store: relay.store, options, pools: relay.pools, notifier }, shared, config.RELAY_TIMEOUT_SECONDS + 60),
    notifier,
    relay,
    version: readVersion(),
    startTime,
  };
  return ctx;
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.relay.pools.close();
  ctx.redis?.disconnect();
  await ctx.storage.close();
}
