import { expect } from 'vitest';
import { seedToken } from './seed.js';
import { createTestApp, type TestApp } from './test-app.js';

/** The tool the dialect matrix's tool-calling tests offer. */
export const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/**
 * The gateway the dialect matrix calls (relay/e2e/dialect-matrix*.test.ts): listening on a free port, the matrix
 * models priced, and one key of root's with plenty of quota.
 */
export async function startMatrixApp(): Promise<{ t: TestApp; gateway: string; userId: number; key: string; tokenId: number }> {
  const t = await createTestApp();
  const gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'claude-sonnet-4-5-20250929': 1.5, 'gemini-2.5-flash': 0.15, 'gemini-2.5-pro': 0.625, 'claude-sonnet-4-5@20250929': 1.5, 'claude-3-7-sonnet-20250219': 1.5, 'amazon.nova-lite-v1:0': 0.03 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'claude-sonnet-4-5-20250929': 5, 'gemini-2.5-flash': 8.33, 'gemini-2.5-pro': 8, 'claude-sonnet-4-5@20250929': 5, 'claude-3-7-sonnet-20250219': 5, 'amazon.nova-lite-v1:0': 4 }));
  // A stored conversation (previous_response_id) may be a whole 1M-token context at the unpriced matrix models' default
  // ratio, long-context prices included: its reservation alone is 120,000,000.
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000_000 });
  return { t, gateway, userId, key: token.key, tokenId: token.id };
}

/** The consume log of the request the gateway answered with this X-Request-Id, once it is settled. */
export async function settledLog(t: TestApp, tokenId: number, requestId: string | null) {
  expect(requestId).toBeTruthy();
  for (let i = 0; i < 200; i++) {
    const log = await t.ctx.storage.db.selectFrom('logs').selectAll().where('request_id', '=', requestId!).where('token_id', '=', tokenId).executeTakeFirst();
    if (log) return log;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log for ${requestId}`);
}
