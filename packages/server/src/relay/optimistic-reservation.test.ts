import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QuotaLedger } from '../billing/ledger.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * A stream's first byte does not wait for the reservation's commit (issue 8, speed): when the balances cover it,
 * the reservation commits while the upstream is called, and nothing reaches the client before it has. When it
 * is refused after all, the upstream call is dropped unseen and the request is reserved the careful way.
 */
let t: TestApp;
let mock: MockUpstream;
let gatewayUrl: string;
let serial = 0;
let reserve: QuotaLedger['reserve'];
/** Runs before each reservation the ledger is asked for (a delay, a competing spend). */
let beforeReserve: (call: number) => Promise<void>;
let reserveCalls: Array<{ minimum?: number; amount: number; at: number; committedAt?: number }>;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const ledger = t.ctx.relay.ledger;
  reserve = ledger.reserve.bind(ledger);
  ledger.reserve = async (input) => {
    const entry: (typeof reserveCalls)[number] = { minimum: input.minimum, amount: input.amount, at: performance.now() };
    reserveCalls.push(entry);
    await beforeReserve(reserveCalls.length);
    try {
      return await reserve(input);
    } finally {
      entry.committedAt = performance.now();
    }
  };
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
  await t.ctx.options.set('RetryTimes', '0');
  await t.ctx.options.set('PreConsumedQuota', '500');
  mock.requests.length = 0;
  reserveCalls = [];
  beforeReserve = async () => undefined;
});

async function userWith(quota: number): Promise<number> {
  serial++;
  return seedUser(t.ctx.storage, `optimist${serial}`, quota, `OPT${serial}`);
}

async function settled(userId: number, tokenId: number) {
  const db = t.ctx.storage.db;
  for (let i = 0; ; i++) {
    const logs = await db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute();
    const open = await db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).execute();
    if ((logs.length > 0 && open.length === 0) || i > 200) {
      const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
      return { logs, open, user };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const client = (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
const ask = { model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hello' }] };

describe('the reservation and the upstream call overlap on streams', () => {
  it('the upstream is called while the reservation commits; the client sees nothing before it has', async () => {
    let upstreamBeforeCommit = -1;
    beforeReserve = async () => {
      await new Promise((r) => setTimeout(r, 300));
      upstreamBeforeCommit = mock.requests.length;
    };
    const userId = await userWith(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const sent = performance.now();
    const stream = await client(token.key).chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    const headersAt = performance.now();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('Hello from the mock upstream');
    expect(reserveCalls).toHaveLength(1);
    expect(reserveCalls[0]!.minimum).toBe(reserveCalls[0]!.amount); // all or nothing
    // The upstream had the request before the commit, and the client's answer began only after it.
    expect(upstreamBeforeCommit).toBe(1);
    expect(mock.requests).toHaveLength(1);
    expect(headersAt).toBeGreaterThanOrEqual(reserveCalls[0]!.committedAt!);
    expect(headersAt - sent).toBeGreaterThanOrEqual(300);
    const after = await settled(userId, token.id);
    expect(after.logs).toHaveLength(1);
    expect(after.open).toEqual([]);
    expect(after.user.quota).toBe(10_000_000 - after.logs[0]!.quota);
  });

  it('answers that are not streamed reserve first: the upstream is not called before the commit', async () => {
    let upstreamBeforeCommit = -1;
    beforeReserve = async () => {
      await new Promise((r) => setTimeout(r, 200));
      upstreamBeforeCommit = mock.requests.length;
    };
    const userId = await userWith(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await client(token.key).chat.completions.create(ask);
    expect(upstreamBeforeCommit).toBe(0);
    expect(reserveCalls[0]!.minimum).toBeLessThan(reserveCalls[0]!.amount);
  });

  it('refused after all (the balance was spent meanwhile): the upstream call is dropped, the request reserves what is left and caps its output', async () => {
    const userId = await userWith(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    // Between the balance read and the commit, something else spends half of what the request needs.
    await t.ctx.options.set('PreConsumedQuota', '0');
    let left = 0;
    beforeReserve = async (call) => {
      if (call !== 1) return;
      left = Math.floor(reserveCalls[0]!.amount / 2);
      await t.ctx.storage.db.updateTable('users').set({ quota: left }).where('id', '=', userId).execute();
    };
    const stream = await client(token.key).chat.completions.create({ ...ask, max_tokens: 1000, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toContain('Hello from the mock upstream');
    expect(reserveCalls.map((c) => c.minimum === c.amount)).toEqual([true, false]);
    expect(mock.requests).toHaveLength(2);
    // The second call asks for no more output than what is left pays for.
    const capped = mock.requests[1]!.body as { max_tokens?: number; max_completion_tokens?: number };
    expect(capped.max_completion_tokens ?? capped.max_tokens).toBeLessThan(1000);
    const after = await settled(userId, token.id);
    expect(after.logs).toHaveLength(1);
    expect(after.open).toEqual([]);
    expect(after.user.quota).toBe(left - after.logs[0]!.quota);
    expect(after.user.quota).toBeGreaterThanOrEqual(0);
  });

  it('refused after all with nothing left: 429, nothing charged, nothing held', async () => {
    const userId = await userWith(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    beforeReserve = async (call) => {
      if (call === 1) await t.ctx.storage.db.updateTable('users').set({ quota: 0 }).where('id', '=', userId).execute();
    };
    await expect(client(token.key).chat.completions.create({ ...ask, stream: true })).rejects.toMatchObject({ status: 429 });
    const db = t.ctx.storage.db;
    expect(await db.selectFrom('quota_reservations').selectAll().where('token_id', '=', token.id).execute()).toEqual([]);
    expect((await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota).toBe(0);
    expect(await db.selectFrom('logs').selectAll().where('token_id', '=', token.id).where('type', '=', 2).execute()).toEqual([]);
  });

  it('parallel streams from one user go the careful way once this instance already holds the balance for others', async () => {
    // 1,600 covers three of these requests' 500 but not eight: the rest must not be sent ahead and dropped.
    beforeReserve = () => new Promise((r) => setTimeout(r, 50));
    const userId = await userWith(1_600);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const many = { ...ask, max_tokens: 1000, stream: true as const };
    const results = await Promise.allSettled(Array.from({ length: 8 }, async () => {
      const stream = await client(token.key).chat.completions.create(many);
      for await (const chunk of stream) void chunk;
    }));
    const optimistic = reserveCalls.filter((c) => c.minimum === c.amount).length;
    expect(reserveCalls[0]!.amount).toBe(500);
    expect(optimistic).toBe(3);
    // Every upstream call but the dropped optimistic ones belongs to a request that answered.
    expect(mock.requests.length).toBeLessThanOrEqual(results.filter((r) => r.status === 'fulfilled').length + optimistic);
    const user = await t.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(user.quota).toBeGreaterThanOrEqual(0);
  });
});
