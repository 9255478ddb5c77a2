import { readFileSync } from 'node:fs';
import { ChannelService } from './api/channel/channel-service.js';
import { DashboardService } from './api/dashboard/dashboard-service.js';
import { LogService } from './api/log/log-service.js';
import { PricingService } from './api/pricing/pricing-service.js';
import { RedemptionService } from './api/redemption/redemption-service.js';
import { TokenService } from './api/token/token-service.js';
import { ChannelTestRunner } from './relay/channel-health/test-all.js';
import { ChannelsRepository } from './storage/repositories/channels.js';
import { UserService } from './api/user/user-service.js';
import { BodyWorkers } from './relay/ingress/large-json.js';
import { SessionAffinity } from './relay/pipeline/route-request.js';
import { TokenCounter } from './billing/count-tokens.js';
import { GatewayMetrics, type ChannelHealthSource } from './metrics/gateway-metrics.js';
import { UsageLimits } from './billing/usage-limits.js';
import { InFlightRequests } from './relay/pipeline/in-flight.js';
import { CredentialResolver } from './relay/credentials/credential-resolver.js';
import { CREDENTIAL_SOURCES } from './relay/credentials/sources.js';
import { OAuthService } from './api/oauth/oauth-service.js';
import { PasswordResetService } from './api/password-reset/password-reset-service.js';
import { VerificationService } from './api/verification/verification-service.js';
import { EmailCodes } from './auth/email-codes.js';
import { createIntegrations } from './integrations/create-integrations.js';
import { UserBindingsRepository } from './storage/repositories/user-bindings.js';
import { BillingMeter } from './billing/meter.js';
import { QuotaLedger } from './billing/ledger.js';
import { QuotaReminder } from './billing/quota-reminder.js';
import { UpstreamPools } from './relay/transport/upstream-pools.js';
import { RelayStore } from './storage/repositories/relay-store.js';
import { MemoryRateLimiter, RedisRateLimiter } from './auth/rate-limiter.js';
import { ClusterNode } from './cluster/cluster-node.js';
import { LocalEventBus, RedisEventBus, type EventBus } from './cluster/event-bus.js';
import { RedisLeaseStore, SqlLeaseStore } from './cluster/leases.js';
import { MemorySharedStore, RedisSharedStore } from './cluster/shared-store.js';
import { Takeover } from './billing/takeover.js';
import { SessionCodec } from './auth/session.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { optional } from './lib/optional-modules.js';
import { randomHex } from './lib/random.js';
import { Notifier } from './notify/notifier.js';
import { OptionStore } from './options/option-store.js';
import { openStorage, type Storage } from './storage/database.js';
import { RelayCache } from './storage/relay-cache.js';
import { LogsRepository } from './storage/repositories/logs.js';
import { OptionsRepository } from './storage/repositories/options.js';
import { RedemptionsRepository } from './storage/repositories/redemptions.js';
import { TokensRepository } from './storage/repositories/tokens.js';
import { UsageRollupsRepository } from './storage/repositories/usage-rollup-queries.js';
import { UsersRepository } from './storage/repositories/users.js';

const SESSION_SECRET_KEY = 'internal.SessionSecret';
/** Names this deployment's keys in a Redis it may share with others. */
const CLUSTER_ID_KEY = 'internal.ClusterId';
/** How often a survivor looks for reservations of dead instances (an instance is dead 10 s after its last renewal). */
const TAKEOVER_INTERVAL_MS = 3_000;

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Channel health for the metrics, read from the database at most every five seconds. */
function channelHealthFrom(db: Storage['db']): ChannelHealthSource {
  let cached: { at: number; rows: Awaited<ReturnType<ChannelHealthSource['channels']>> } | undefined;
  return {
    async channels() {
      if (!cached || Date.now() - cached.at > 5_000) {
        const rows = await db.selectFrom('channels').select(['id', 'name', 'type', 'status', 'response_time']).execute();
        cached = { at: Date.now(), rows: rows.map((r) => ({ ...r, response_time: Number(r.response_time) })) };
      }
      return cached.rows;
    },
  };
}

/** Opens storage, loads options, creates the root user on first start and wires the services together. */
export async function createContext(config: Config): Promise<AppContext> {
  const storage = await openStorage({ dsn: config.SQL_DSN, sqlitePath: config.SQLITE_PATH });
  const reportError = (error: unknown, what: string) => console.error(`${what} failed:`, error instanceof Error ? error.message : error);

  const optionsRepository = new OptionsRepository(storage.db);
  // SESSION_SECRET, or one generated once and kept in the database so restarts keep sessions valid.
  const secret = config.SESSION_SECRET || (await optionsRepository.getOrCreate(SESSION_SECRET_KEY, randomHex(32)));

  // The cluster: this instance's id, Redis when configured, the bus that tells the other instances what changed.
  // Every Redis key carries the database's own cluster id, so deployments sharing one Redis never meet.
  const instanceId = randomHex(8);
  const namespace = `mr:${await optionsRepository.getOrCreate(CLUSTER_ID_KEY, randomHex(8))}:`;
  const redis = config.REDIS_CONN_STRING ? new (optional.ioredis().Redis)(config.REDIS_CONN_STRING, { maxRetriesPerRequest: 2, keyPrefix: namespace }) : undefined;
  redis?.on('error', (error) => reportError(error, 'redis'));
  const bus: EventBus = redis ? new RedisEventBus(redis, instanceId, (error) => reportError(error, 'cluster events')) : new LocalEventBus(instanceId);
  // Subscribed before anything is loaded, so no change made meanwhile on another instance can be missed.
  if (bus instanceof RedisEventBus) await bus.start();

  const options = new OptionStore(optionsRepository);
  options.announceChangesOn(bus);
  await options.load();

  const cache = new RelayCache(config.RELAY_CACHE_MS, bus);
  bus.subscribe((event) => {
    cache.apply(event);
    if (event.kind === 'options' || event.kind === 'all') options.load().catch((error: unknown) => reportError(error, 'reloading options'));
  });
  const users = new UsersRepository(storage.db, cache);
  const logs = new LogsRepository(storage.db, storage.dialect, storage.reader);
  const shared = redis ? new RedisSharedStore(redis) : new MemorySharedStore();
  const emailCodes = new EmailCodes(shared);
  const userService = new UserService(storage.db, users, logs, options, emailCodes);
  await userService.ensureRootUser();

  const notifier = new Notifier(storage.db, logs, options, reportError);
  const ledger = new QuotaLedger(storage, { lowQuota: new QuotaReminder(storage.db, options, notifier, shared, reportError), instanceId, announce: (event) => bus.publish(event) });
  // A user or key that changed (here or elsewhere) gets its balance slices back; so does one another instance recalls.
  cache.listen((event) => ledger.slices.changed(event));
  const startTime = Math.floor(Date.now() / 1000);

  // Liveness and once-per-cluster work, then crash takeover: what dead instances (an earlier run of this one
  // included) left open is settled now, and every few seconds from now on by whichever instance holds the job.
  const node = new ClusterNode(redis ? new RedisLeaseStore(redis) : new SqlLeaseStore(storage.db), instanceId, reportError);
  await node.start();
  ledger.runAloneWhile(() => node.alone);
  const takeover = new Takeover(storage.db, ledger, options, (id) => node.isAlive(id));
  await takeover.run();
  node.every('takeover', TAKEOVER_INTERVAL_MS, () => takeover.run());

  const inFlight = new InFlightRequests();
  // Without METRICS_TOKEN nobody can read /metrics (404): nothing is recorded, and the relay pays nothing for them.
  const recording = config.METRICS_TOKEN !== '';
  const metrics = new GatewayMetrics({ inFlight: () => inFlight.size, channels: channelHealthFrom(storage.db), defaultMetrics: recording });
  if (recording) ledger.observeCommits((jobs, seconds, statements, lockSeconds) => metrics.observeCommit(jobs, seconds, statements, lockSeconds));
  const counter = new TokenCounter();
  const limits = new UsageLimits(redis, (error) => reportError(error, 'usage limits'));
  const relay = {
    store: new RelayStore(storage.db, cache),
    ledger,
    pools: new UpstreamPools(config.RELAY_TIMEOUT_SECONDS * 1000),
    streamDrainMs: config.STREAM_DRAIN_SECONDS * 1000,
    counter,
    bodies: new BodyWorkers(),
    credentials: new CredentialResolver(CREDENTIAL_SOURCES),
    inFlight,
    limits,
    affinity: new SessionAffinity(shared, options),
    metrics,
    meter: new BillingMeter({ ledger, options, counter, limits, holds: inFlight, metrics: recording ? metrics : undefined }),
  };

  const channelTests = new ChannelTestRunner({ store: relay.store, options, pools: relay.pools, notifier, credentials: relay.credentials }, shared, config.RELAY_TIMEOUT_SECONDS + 60);
  if (config.CHANNEL_TEST_FREQUENCY_MINUTES > 0) node.every('channel-tests', config.CHANNEL_TEST_FREQUENCY_MINUTES * 60_000, async () => (await channelTests.start('all')) && channelTests.idle());
  const logService = new LogService(logs);
  if (config.LOG_RETENTION_DAYS > 0) node.every('log-retention', 3_600_000, () => logService.deleteBefore(Math.floor(Date.now() / 1000) - config.LOG_RETENTION_DAYS * 86_400));
  const integrations = createIntegrations(config);
  const ctx: AppContext = {
    config,
    storage,
    options,
    sessions: new SessionCodec(secret),
    rateLimiter: redis ? new RedisRateLimiter(redis) : new MemoryRateLimiter(),
    redis,
    shared,
    cluster: { node, bus, takeover },
    repositories: { users, logs },
    services: {
      users: userService,
      tokens: new TokenService(new TokensRepository(storage.db, cache)),
      channels: new ChannelService(new ChannelsRepository(storage.db, storage.dialect, cache)),
      logs: logService,
      verification: new VerificationService(users, options, emailCodes, notifier, reportError),
      passwordReset: new PasswordResetService(users, options, emailCodes, notifier, reportError),
      oauth: new OAuthService({ users, bindings: new UserBindingsRepository(storage.db), accounts: userService, options, integrations, shared, codes: emailCodes }),
      redemptions: new RedemptionService(new RedemptionsRepository(storage.db, logs, cache), options),
      pricing: new PricingService(storage.db, options),
      // The dashboard's sums run on the reader (off the event loop on SQLite).
      dashboard: new DashboardService(new UsageRollupsRepository(storage.reader), users, options),
    },
    integrations,
    channelTests,
    notifier,
    relay,
    version: readVersion(),
    startTime,
  };
  return ctx;
}

/**
 * Closes everything after the HTTP server stopped: settlements still queued are committed first, then this
 * instance leaves the cluster (its leases released, so survivors take over at once), then connections close.
 */
export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.relay.inFlight.idle();
  await ctx.relay.ledger.drain();
  await ctx.cluster.node.stop();
  await ctx.cluster.bus.close();
  await ctx.relay.pools.close();
  await ctx.relay.counter.close();
  await ctx.relay.bodies.closeAll();
  ctx.redis?.disconnect();
  await ctx.storage.close();
}
