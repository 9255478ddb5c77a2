import type { Dialect } from '../storage/database.js';
import type { Transaction } from 'kysely';
import { insertRows, type RawSql, type Statement } from '../storage/raw-sql.js';
import type { Database } from '../storage/schema.js';
import type { Reservation, Settlement } from './ledger-types.js';

/** Hourly usage rollups (the dashboard reads them): summed per batch and upserted in the settlement's own transaction. */

const ROLLUP_COLUMNS = ['hour', 'user_id', 'token_id', 'model', 'channel_id', 'instance_id', 'requests', 'failures', 'prompt_tokens', 'completion_tokens',
  'cached_tokens', 'reasoning_tokens', 'quota', 'latency_ms'] as const;
/** The rollup columns a conflicting insert adds to. */
const ROLLUP_SUMS = ROLLUP_COLUMNS.slice(6);
export const hourOf = (seconds: number) => seconds - (seconds % 3600);

export interface Rollup {
  hour: number;
  userId: number;
  tokenId: number;
  model: string;
  channelId: number;
  requests: number;
  failures: number;
  prompt: number;
  completion: number;
  cached: number;
  reasoning: number;
  quota: number;
  latency: number;
}

export function addRollup(rollups: Map<string, Rollup>, hour: number, r: Reservation, s: Settlement, charged: number): void {
  const u = s.usage!;
  const model = u.model.slice(0, 255);
  const key = `${hour}\u0000${r.userId}\u0000${r.tokenId}\u0000${model}\u0000${s.channelId}`;
  let rollup = rollups.get(key);
  if (!rollup) {
    rollup = { hour, userId: r.userId, tokenId: r.tokenId, model, channelId: s.channelId, requests: 0, failures: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, quota: 0, latency: 0 };
    rollups.set(key, rollup);
  }
  if (u.failed) rollup.failures++;
  else rollup.requests++;
  rollup.prompt += u.promptTokens;
  rollup.completion += u.completionTokens;
  rollup.cached += u.cachedTokens;
  rollup.reasoning += u.reasoningTokens;
  rollup.quota += charged;
  rollup.latency += Math.max(0, Math.round(u.latencyMs));
}

/**
 * The upserts that add a batch's sums to the hourly rollups (multi-row, in key order). Rows carry this instance's
 * id, so instances never write the same row and cannot wait on each other for it.
 */
export function rollupStatements(dialect: Dialect, instanceId: string, rollups: Map<string, Rollup>): Statement[] {
  if (rollups.size === 0) return [];
  const rows = [...rollups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, r]) => [r.hour, r.userId, r.tokenId, r.model, r.channelId, instanceId, r.requests, r.failures, r.prompt, r.completion, r.cached, r.reasoning, r.quota, r.latency]);
  const upsert =
    dialect === 'mysql'
      ? `on duplicate key update ${ROLLUP_SUMS.map((c) => `${c} = ${c} + values(${c})`).join(', ')}`
      : `on conflict (hour, user_id, token_id, model, channel_id, instance_id) do update set ${ROLLUP_SUMS.map((c) => `${c} = usage_rollups.${c} + excluded.${c}`).join(', ')}`;
  return insertRows(dialect, 'usage_rollups', ROLLUP_COLUMNS.map((name) => [name, name === 'model' || name === 'instance_id' ? 'text' : 'bigint'] as const), rows, upsert);
}

/** Runs the upserts of rollupStatements one by one (the import's log copy). */
export async function writeRollups(sql: RawSql, trx: Transaction<Database>, dialect: Dialect, instanceId: string, rollups: Map<string, Rollup>): Promise<void> {
  for (const statement of rollupStatements(dialect, instanceId, rollups)) await sql.run(trx, statement.text, statement.parameters);
}
