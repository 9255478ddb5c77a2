import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSlice } from '../billing/ledger-slices.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * A busy key through the relay (issue 17 item 5, billing/ledger-slices.ts): its requests reserve from a slice of the
 * balances instead of a row each, and the money adds up to the unit all the same, for whole answers, streams and a
 * long stream that moves to a row of its own.
 */
let t: TestApp;
let mock: MockUpstream;
let gatewayUrl: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  // An endless stream its client leaves is read on for a second, then cut (STREAM_DRAIN_SECONDS).
  t = await createTestApp({ STREAM_DRAIN_SECONDS: '1' });
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'endless-model': 1 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'endless-model': 1 }));
  await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
  await seedChannel(t.ctx.storage, { key: 'endless', baseUrl: mock.url, models: 'endless-model' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

const chat = (key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${gatewayUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

async function state(userId: number, tokenId: number) {
  const db = t.ctx.storage.db;
  return {
    user: await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow(),
    token: await db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
    logs: await db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute(),
    rollups: await db.selectFrom('usage_rollups').selectAll().where('token_id', '=', tokenId).execute(),
    open: await db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).execute(),
  };
}

/** Every unit taken from the key and the user is on exactly one consume log, as the counters and rollups say. */
async function expectMoneyAddsUp(userId: number, tokenId: number, initial: { user: number; key: number }, requests: number) {
  await t.ctx.relay.ledger.drain();
  const s = await state(userId, tokenId);
  const charged = s.logs.reduce((sum, log) => sum + Number(log.quota), 0);
  expect(s.open).toEqual([]);
  expect(s.logs).toHaveLength(requests);
  expect(charged).toBeGreaterThan(0);
  expect(s.user.quota).toBe(initial.user - charged);
  expect(s.token.remain_quota).toBe(initial.key - charged);
  expect(s.user.used_quota).toBe(charged);
  expect(s.token.used_quota).toBe(charged);
  expect(s.token.request_count).toBe(requests);
  expect(s.rollups.reduce((sum, r) => sum + Number(r.quota), 0)).toBe(charged);
}

describe('a busy key through the relay', () => {
  it('300 requests, 32 at a time: most reserve from a slice, and logs, counters, rollups and balances agree to the unit', async () => {
    const initial = { user: 80_000_000, key: 40_000_000 };
    const userId = await seedUser(t.ctx.storage, 'busy', initial.user, 'BUSY1');
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: initial.key });
    let next = 0;
    let slicesSeen = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < 300) {
          const stream = next++ % 3 === 0;
          const response = await chat(token.key, { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] });
          await response.text();
          statuses.push(response.status);
          slicesSeen = Math.max(slicesSeen, t.ctx.relay.ledger.slices.size);
        }
      }),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(slicesSeen).toBeGreaterThan(0);
    // Rows ever written to quota_reservations (its autoincrement): the slices and the requests no slice held.
    const { seq } = await t.ctx.storage.db.selectFrom('sqlite_sequence' as never).select('seq' as never).where('name' as never, '=', 'quota_reservations' as never).executeTakeFirstOrThrow() as { seq: number };
    expect(Number(seq)).toBeLessThan(150);
    await expectMoneyAddsUp(userId, token.id, initial, 300);
  });

  it('a long stream held in a slice moves to a reservation row of its own that records its progress; cut off, it is charged what it delivered, once', async () => {
    const initial = { user: 90_000_000, key: 60_000_000 };
    const userId = await seedUser(t.ctx.storage, 'streamer', initial.user, 'BUSY2');
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: initial.key });
    // Busy first: the key's requests get a slice.
    await Promise.all(Array.from({ length: 48 }, async () => (await chat(token.key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).text()));
    for (let i = 0; i < 100 && t.ctx.relay.ledger.slices.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(t.ctx.relay.ledger.slices.size).toBeGreaterThan(0);
    const quick = await Promise.all(Array.from({ length: 8 }, async () => (await chat(token.key, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).status));
    expect(quick).toEqual(quick.map(() => 200));

    const abort = new AbortController();
    const response = await chat(token.key, { model: 'endless-model', stream: true, max_tokens: 400, messages: [{ role: 'user', content: 'tell me a long story' }] }, abort.signal);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    // Held in the slice: no row of its own while it is young.
    expect((await state(userId, token.id)).open.map((r) => r.request_id)).not.toContain(requestId);
    const reader = response.body!.getReader();
    const promoted = async () => (await state(userId, token.id)).open.find((r) => r.request_id === requestId && Number(r.delivered_chars) > 0);
    const deadline = Date.now() + 15_000;
    while (!(await promoted()) && Date.now() < deadline) {
      await reader.read();
    }
    const row = await promoted();
    expect(row).toBeDefined();
    expect(isSlice(row!.request_id)).toBe(false);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    for (let i = 0; i < 250; i++) {
      const log = (await state(userId, token.id)).logs.find((l) => l.request_id === requestId);
      if (log) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const s = await state(userId, token.id);
    const log = s.logs.find((l) => l.request_id === requestId);
    expect(log?.content).toContain('客户端中途断开');
    expect(Number(log?.quota)).toBeGreaterThan(0);
    await expectMoneyAddsUp(userId, token.id, initial, 48 + 8 + 1);
  });
});
