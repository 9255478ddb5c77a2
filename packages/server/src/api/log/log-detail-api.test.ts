import { LogType } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
let amy: string;

const attempts = [
  { channel_id: 3, channel_name: 'azure-east', status: 429, reason: 'Rate limit reached' },
  { channel_id: 4, channel_name: 'openai-main', status: 0, reason: 'connect ECONNREFUSED' },
];

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
  await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'amy', password: 'password123' } });
  amy = await t.login('amy', 'password123');
  const amyId = (await t.ctx.repositories.users.findByUsername('amy'))!.id;
  const logs = t.ctx.repositories.logs;
  await logs.insert({
    user_id: amyId, username: 'amy', type: LogType.Consume, created_at: 5000, quota: 42, model_name: 'gpt-4o', token_name: 'k', channel_id: 4, request_id: 'req-ok',
    prompt_tokens: 100, completion_tokens: 20, elapsed_time: 1500, is_stream: 1, first_byte_ms: 320, channel_name: 'openai-main', dialect: 'anthropic',
    cached_tokens: 60, cache_write_tokens: 10, reasoning_tokens: 5, error: null, attempts: JSON.stringify(attempts.slice(0, 1)),
  });
  await logs.insert({
    user_id: amyId, username: 'amy', type: LogType.Error, created_at: 5001, quota: 0, model_name: 'gpt-4o', token_name: 'k', channel_id: 4, request_id: 'req-failed',
    elapsed_time: 800, channel_name: 'openai-main', dialect: 'openai-chat', error: 'all channels failed', attempts: JSON.stringify(attempts),
  });
});
afterAll(async () => {
  await t.close();
});

describe('request detail in the log API', () => {
  it('admins see every detail: first byte, dialect, cache and reasoning tokens, the error and each attempt with its channel', async () => {
    const rows = (await t.call({ method: 'GET', url: '/api/log/?p=0', cookie: root })).body.data;
    expect(rows.find((r: { request_id: string }) => r.request_id === 'req-ok')).toMatchObject({
      first_byte_ms: 320, channel_name: 'openai-main', dialect: 'anthropic', cached_tokens: 60, cache_write_tokens: 10, reasoning_tokens: 5, is_stream: true, elapsed_time: 1500,
    });
    expect(rows.find((r: { request_id: string }) => r.request_id === 'req-failed')).toMatchObject({ type: 5, error: 'all channels failed', attempts, channel: 4 });
    const failed = (await t.call({ method: 'GET', url: '/api/log/?p=0&type=5', cookie: root })).body.data;
    expect(failed.map((r: { request_id: string }) => r.request_id)).toEqual(['req-failed']);
  });

  it("users see their own failures and why, but not which channels served them", async () => {
    const rows = (await t.call({ method: 'GET', url: '/api/log/self/?p=0&type=5', cookie: amy })).body.data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ error: 'all channels failed', channel: 0, channel_name: '' });
    expect(rows[0].attempts).toEqual([
      { channel_id: 0, channel_name: '', status: 429, reason: 'Rate limit reached' },
      { channel_id: 0, channel_name: '', status: 0, reason: 'connect ECONNREFUSED' },
    ]);
  });

  it('finds the row of one request by its X-Request-Id (the playground reads its cost this way)', async () => {
    const one = (await t.call({ method: 'GET', url: '/api/log/self/?p=0&request_id=req-ok&start_timestamp=4000', cookie: amy })).body.data;
    expect(one.map((r: { quota: number }) => r.quota)).toEqual([42]);
    expect((await t.call({ method: 'GET', url: '/api/log/self/?p=0&request_id=nope', cookie: amy })).body.data).toEqual([]);
    // another user's request id finds nothing
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'bob', password: 'password123' } });
    const bob = await t.login('bob', 'password123');
    expect((await t.call({ method: 'GET', url: '/api/log/self/?p=0&request_id=req-ok', cookie: bob })).body.data).toEqual([]);
  });
});
