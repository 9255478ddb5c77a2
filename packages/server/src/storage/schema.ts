import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types of the whole product (docs/console.md §3 entities plus what the relay and billing need).
 * Quota columns are 64-bit integers in SQL and plain numbers here (exact below 2^53, far above any real quota).
 */
export interface UsersTable {
  id: Generated<number>;
  username: string;
  password: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  wechat_id: string;
  lark_id: string;
  access_token: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  inviter_id: number;
  created_at: number;
  /** Requests per minute, tokens per minute, quota per calendar day and month (server time); 0 = no limit. */
  rpm_limit: Generated<number>;
  tpm_limit: Generated<number>;
  daily_quota_limit: Generated<number>;
  monthly_quota_limit: Generated<number>;
  /** Carried by every session cookie; incremented to end all of the user's sessions (password change, ban, role change). */
  session_version: Generated<number>;
  /** The username case-folded (storage/username-key.ts), unique: names differing only in case are one account (migration 007). */
  username_key: Generated<string>;
}

export interface TokensTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: number;
  used_quota: number;
  request_count: number;
  models: string;
  subnet: string;
  /** Requests per minute, tokens per minute, quota per calendar day and month (server time); 0 = no limit. */
  rpm_limit: Generated<number>;
  tpm_limit: Generated<number>;
  daily_quota_limit: Generated<number>;
  monthly_quota_limit: Generated<number>;
}

export interface ChannelsTable {
  id: Generated<number>;
  type: number;
  key: string;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  /** Why the last test failed; '' after a pass (migration 002). */
  test_error: Generated<string>;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  request_count: number;
  model_mapping: string;
  priority: number;
  config: string;
  system_prompt: string;
  /** Answers whose upstream usage report was wrong and billed at the request's bound or the gateway's count (migration 007). */
  usage_anomalies: Generated<number>;
}

/** One row per (group, model, channel): the index the relay uses to pick channels. */
export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: number;
  priority: number;
  weight: number;
}

export interface RedemptionsTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
}

export interface LogsTable {
  id: Generated<number>;
  user_id: Generated<number>;
  created_at: number;
  type: number;
  content: Generated<string>;
  username: string;
  token_name: Generated<string>;
  token_id: Generated<number>;
  model_name: Generated<string>;
  quota: number;
  prompt_tokens: Generated<number>;
  completion_tokens: Generated<number>;
  channel_id: Generated<number>;
  request_id: Generated<string>;
  elapsed_time: Generated<number>;
  is_stream: Generated<number>;
  /** Milliseconds from the request to the first byte of the answer (streams). */
  first_byte_ms: Generated<number>;
  /** The channel's name when the request ran (it may be renamed or deleted later). */
  channel_name: Generated<string>;
  /** The client's dialect: openai-chat, openai-responses, anthropic, gemini, the OpenAI endpoint, or gemini-embeddings. */
  dialect: Generated<string>;
  cached_tokens: Generated<number>;
  cache_write_tokens: Generated<number>;
  reasoning_tokens: Generated<number>;
  /** A failed request's reason (log type 5). */
  error: string | null;
  /** JSON list of the channels tried, each with why it was left: [{channel_id, channel_name, status, reason}]. */
  attempts: string | null;
  /** JSON of how the request was routed (contract LogRouting): session affinity, fallback models (migration 008). */
  routing?: string | null;
}

/** Hourly sums of settled requests per user x key x model x channel (and instance), for charts and totals. */
export interface UsageRollupsTable {
  /** Unix seconds at the start of the hour. */
  hour: number;
  user_id: number;
  token_id: number;
  model: string;
  channel_id: number;
  instance_id: string;
  requests: number;
  failures: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  quota: number;
  latency_ms: number;
}

export interface OptionsTable {
  key: string;
  value: string;
}

/**
 * Billing ledger: one row per relay request, written before the upstream call (status 'open') and
 * settled exactly once ('settled'). Rows still open at start-up are refunded by crash recovery.
 */
export interface QuotaReservationsTable {
  id: Generated<number>;
  request_id: string;
  user_id: number;
  token_id: number;
  amount: number;
  charged: number;
  status: string;
  created_at: number;
  settled_at: number;
  /** The instance that holds it (its lease says whether that instance is alive). */
  instance_id: Generated<string>;
  model: Generated<string>;
  /** Rough prompt tokens, for charging a takeover of a request whose usage was never reported. */
  prompt_estimate: Generated<number>;
  channel_id: Generated<number>;
  /** Characters of answer delivered so far (streams report progress every few seconds). */
  delivered_chars: Generated<number>;
  is_stream: Generated<number>;
}

/** Named leases with an expiry in milliseconds: instance liveness and once-per-cluster jobs (without Redis). */
export interface ClusterLeasesTable {
  name: string;
  holder: string;
  expires_at: number;
}

export interface Database {
  users: UsersTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  options: OptionsTable;
  quota_reservations: QuotaReservationsTable;
  cluster_leases: ClusterLeasesTable;
  usage_rollups: UsageRollupsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type LogRow = Selectable<LogsTable>;
export type NewLog = Insertable<LogsTable>;
export type TokenRow = Selectable<TokensTable>;
export type ChannelRow = Selectable<ChannelsTable>;
export type RedemptionRow = Selectable<RedemptionsTable>;
