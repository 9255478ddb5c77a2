import type { Redis } from 'ioredis';
import type { ChannelService } from './api/channel/channel-service.js';
import type { DashboardService } from './api/dashboard/dashboard-service.js';
import type { LogService } from './api/log/log-service.js';
import type { PricingService } from './api/pricing/pricing-service.js';
import type { RedemptionService } from './api/redemption/redemption-service.js';
import type { TokenService } from './api/token/token-service.js';
import type { ChannelTestRunner } from './relay/channel-health/test-all.js';
import type { UserService } from './api/user/user-service.js';
import type { BodyWorkers } from './relay/ingress/large-json.js';
import type { SessionAffinity } from './relay/pipeline/route-request.js';
import type { TokenCounter } from './billing/count-tokens.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';
import type { UsageLimits } from './billing/usage-limits.js';
import type { InFlightRequests } from './relay/pipeline/in-flight.js';
import type { CredentialResolver } from './relay/credentials/credential-resolver.js';
import type { OAuthService } from './api/oauth/oauth-service.js';
import type { PasswordResetService } from './api/password-reset/password-reset-service.js';
import type { VerificationService } from './api/verification/verification-service.js';
import type { Integrations } from './integrations/create-integrations.js';
import type { BillingMeter } from './billing/meter.js';
import type { QuotaLedger } from './billing/ledger.js';
import type { UpstreamPools } from './relay/transport/upstream-pools.js';
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
import type { ClusterNode } from './cluster/cluster-node.js';
import type { EventBus } from './cluster/event-bus.js';
import type { Takeover } from './billing/takeover.js';

/**
 * The wiring: everything built once in create-context.ts (services included: no route builds one) and handed to the
 * route registrations, which pass each module only what it uses (the relay's RelayDeps, auth's AuthDeps and
 * SessionDeps, the bot check's TurnstileDeps). No globals.
 */
export interface AppContext {
  config: Config;
  storage: Storage;
  options: OptionStore;
  sessions: SessionCodec;
  rateLimiter: RateLimiter;
  redis?: Redis;
  /** Short-lived state every instance sees alike (Redis when configured, else memory): codes, OAuth state, revocations. */
  shared: SharedStore;
  /** This instance in the cluster: liveness and once-per-cluster jobs, change notices, crash takeover. */
  cluster: { node: ClusterNode; bus: EventBus; takeover: Takeover };
  repositories: { users: UsersRepository; logs: LogsRepository };
  services: {
    users: UserService;
    tokens: TokenService;
    channels: ChannelService;
    logs: LogService;
    verification: VerificationService;
    passwordReset: PasswordResetService;
    oauth: OAuthService;
    redemptions: RedemptionService;
    pricing: PricingService;
    dashboard: DashboardService;
  };
  /** Sign-in providers and the bot-check service (addresses from the configuration). */
  integrations: Integrations;
  channelTests: ChannelTestRunner;
  notifier: Notifier;
  relay: { store: RelayStore; ledger: QuotaLedger; pools: UpstreamPools; streamDrainMs: number; counter: TokenCounter; bodies: BodyWorkers; credentials: CredentialResolver; inFlight: InFlightRequests; limits: UsageLimits; affinity: SessionAffinity; metrics: GatewayMetrics; meter: BillingMeter };
  version: string;
  startTime: number;
}
