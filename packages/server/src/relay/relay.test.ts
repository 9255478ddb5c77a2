import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QuotaLedger } from '../billing/ledger.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { MOCK_REPLY, startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../test-support/seed.js';

/** The relay's path through the official openai SDK: answers, billing, errors, retries, settlement and concurrency. A channel's own rules: relay-channels.test.ts. */
let t: TestApp;
let mock: MockUpstream;
let gatewayUrl: string;
let userId: number;

async function quotaState(tokenId: number) {
  const user = await t.ctx.storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  const token = await t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow();
  const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute();
  const open = await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('status', '=', 'open').execute();
  return { user, token, logs, open };
}

/** Settlement is committed in batches just after the answer is sent: wait for it. */
async function settled(tokenId: number, logs: number) {
  let state = await quotaState(tokenId);
  // Waits for the settlement it checks (up to 20 s: a loaded machine settles late, an idle one at once).
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (state.logs.length < logs || state.open.length > 0)) {
    await new Promise((r) => setTimeout(r, 20));
    state = await quotaState(tokenId);
  }
  return state;
}

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '1' });
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const root = await t.ctx.repositories.users.findByUsername('root');
  userId = root!.id;
  await t.ctx.options.set('PreConsumedQuota', '100');
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  mock.requests.length = 0;
});

function client(key: string) {
  return new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
}

describe('relay through the official openai SDK', () => {
  it('non-stream chat: answer passes through, usage is billed exactly and logged', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const before = await quotaState(token.id);
    const completion = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBe(MOCK_REPLY);
    // cost = ceil((12 + 10 x 4) x 0.075 x 1) = 4
    const after = await settled(token.id, 1);
    expect(after.token.remain_quota).toBe(100_000 - 4);
    expect(after.user.quota).toBe(before.user.quota - 4);
    expect(after.token.used_quota).toBe(4);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0]).toMatchObject({ quota: 4, prompt_tokens: 12, completion_tokens: 10, model_name: 'gpt-4o-mini', is_stream: 0, token_name: 'test-token' });
    expect(after.logs[0].content).toContain('模型倍率 0.075');
    expect(after.open).toEqual([]);
  });

  it('stream chat: chunks arrive unchanged, include_usage is requested and billed', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const stream = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(MOCK_REPLY);
    expect((mock.requests[0].body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    const after = await settled(token.id, 1);
    expect(after.logs[0]).toMatchObject({ quota: 4, is_stream: 1, prompt_tokens: 12, completion_tokens: 10 });
    expect(after.token.remain_quota).toBe(100_000 - 4);
  });

  it('counts tokens itself when the upstream reports no usage', async () => {
    await seedChannel(t.ctx.storage, { key: 'no-usage', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const stream = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const _ of stream) void _;
    const after = await settled(token.id, 1);
    expect(after.logs[0].completion_tokens).toBeGreaterThan(5);
    expect(after.logs[0].quota).toBeGreaterThan(0);
  });

  it('an upstream that reports only a total: the prompt is counted locally and the rest billed as completion', async () => {
    await seedChannel(t.ctx.storage, { key: 'total-only', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a prompt of several words to count' }] });
    const after = await settled(token.id, 1);
    const total = 12 + MOCK_REPLY.split(' ').length;
    const log = after.logs[0];
    expect(log.prompt_tokens).toBeGreaterThan(3);
    expect(log.prompt_tokens + log.completion_tokens).toBe(total);
  });

  it('with ApproximateTokenEnabled, counts 0.38 tokens per character instead', async () => {
    await t.ctx.options.set('ApproximateTokenEnabled', 'true');
    try {
      await seedChannel(t.ctx.storage, { key: 'no-usage', baseUrl: mock.url, models: 'gpt-4o-mini' });
      const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
      const prompt = 'how many tokens is this?';
      const stream = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text.length).toBeGreaterThan(0);
      const after = await settled(token.id, 1);
      // The prompt's text is every string of the messages, the role included ("user\n" + content).
      expect(after.logs[0]).toMatchObject({ prompt_tokens: Math.ceil(`user\n${prompt}`.length * 0.38), completion_tokens: Math.ceil(text.length * 0.38) });
    } finally {
      await t.ctx.options.set('ApproximateTokenEnabled', 'false');
    }
  });

  it('embeddings, images, speech, transcription and moderations', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'text-embedding-3-small,dall-e-3,tts-1,whisper-1,text-moderation-latest' });
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const openai = client(token.key);
    const embedding = await openai.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(embedding.data).toHaveLength(2);
    const image = await openai.images.generate({ model: 'dall-e-3', prompt: 'a cat' });
    expect(image.data?.[0].url).toBe('https://example.com/image.png');
    const speech = await openai.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'hello' });
    expect(Buffer.from(await speech.arrayBuffer()).toString()).toBe('ID3-fake-mp3-bytes');
    const transcription = await openai.audio.transcriptions.create({ model: 'whisper-1', file: new File([Buffer.from('RIFF....')], 'a.wav', { type: 'audio/wav' }) });
    expect(transcription.text).toBe('transcribed text');
    const moderation = await openai.moderations.create({ input: 'fine' });
    expect(moderation.results[0].flagged).toBe(false);
    const after = await settled(token.id, 5);
    expect(after.logs.map((l) => l.model_name).sort()).toEqual(['dall-e-3', 'text-embedding-3-small', 'text-moderation-latest', 'tts-1', 'whisper-1']);
    expect(after.token.request_count).toBe(5);
  });

  it('errors come back in OpenAI shape with fitting statuses', async () => {
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const badKey = client('nope');
    await expect(badKey.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    const noChannel = await client(token.key)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e as { status: number; error: { message: string } });
    // A model no channel of the group serves is the client's mistake: 404 model_not_found, nothing reserved.
    expect(noChannel).toMatchObject({ status: 404, error: { code: 'model_not_found' } });
    const raw = await fetch(`${gatewayUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' }, body: '{bad' });
    expect(raw.status).toBe(400);
    expect((await raw.json()).error.message).toBeTruthy();
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(100_000);
    expect(after.open).toEqual([]);
  });

  it('billing endpoints report the key balance in dollars; CORS preflight answers', async () => {
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 250_000 });
    await t.ctx.storage.db.updateTable('tokens').set({ used_quota: 250_000 }).where('id', '=', token.id).execute();
    const headers = { authorization: `Bearer sk-${token.key}` };
    const subscription = await (await fetch(`${gatewayUrl}/v1/dashboard/billing/subscription`, { headers })).json();
    expect(subscription).toMatchObject({ object: 'billing_subscription', hard_limit_usd: 1 });
    const usage = await (await fetch(`${gatewayUrl}/dashboard/billing/usage`, { headers })).json();
    expect(usage).toEqual({ object: 'list', total_usage: 50 });
    const preflight = await fetch(`${gatewayUrl}/v1/chat/completions`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('/v1/models lists what the key may use', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini,gpt-4o' });
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true, models: 'gpt-4o' });
    const models = await client(token.key).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['gpt-4o']);
  });
});

describe('retries, faults and settlement on every path', () => {
  it('upstream 500 and 429 are retried on another channel, never the same one twice', async () => {
    await t.ctx.options.set('RetryTimes', '2');
    await seedChannel(t.ctx.storage, { key: 'fail-500', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 10 });
    await seedChannel(t.ctx.storage, { key: 'fail-429', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 5 });
    const good = await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 0 });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const completion = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBe(MOCK_REPLY);
    expect(mock.requests.map((r) => r.key)).toEqual(['fail-500', 'fail-429', 'ok']);
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].channel_id).toBe(good);
    expect(after.token.remain_quota).toBe(100_000 - 4);
    // The request's detail: where it went, how it got there, how fast.
    expect(after.logs[0]).toMatchObject({ channel_name: 'ch-ok', dialect: 'openai-chat', is_stream: 0 });
    expect(after.logs[0].first_byte_ms).toBeGreaterThan(0);
    expect(JSON.parse(after.logs[0].attempts!)).toEqual([
      { channel_id: expect.any(Number), channel_name: 'ch-fail-500', status: 500, reason: 'upstream exploded' },
      { channel_id: expect.any(Number), channel_name: 'ch-fail-429', status: 429, reason: 'Rate limit reached' },
    ]);
  });

  it('with no retries left the upstream error is returned and nothing is charged', async () => {
    await seedChannel(t.ctx.storage, { key: 'fail-500', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    await expect(client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 500 });
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(100_000);
    expect(after.logs).toEqual([]);
    expect(after.open).toEqual([]);
    // The failure itself is logged (type 5, no charge) with the upstream's reason and the channel it came from.
    const failures = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', token.id).where('type', '=', 5).execute();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ quota: 0, error: 'upstream exploded', channel_name: 'ch-fail-500', model_name: 'gpt-4o-mini' });
    expect(JSON.parse(failures[0].attempts!)).toEqual([{ channel_id: expect.any(Number), channel_name: 'ch-fail-500', status: 500, reason: 'upstream exploded' }]);
    expect(after.token.request_count).toBe(0);
  });

  it('an upstream timeout answers 504 and refunds the reservation', async () => {
    await seedChannel(t.ctx.storage, { key: 'slow', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    await expect(client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 504 });
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(100_000);
    expect(after.open).toEqual([]);
  });

  it('a stream that breaks mid-way ends with an error event and bills what was delivered', async () => {
    await seedChannel(t.ctx.storage, { key: 'break', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('Hello');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).not.toContain('[DONE]');
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].content).toContain('上游流式响应中断');
    expect(after.logs[0].completion_tokens).toBeGreaterThan(0);
    expect(after.token.remain_quota).toBe(100_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });

  it('a client that aborts mid-stream is settled and logged once', async () => {
    await seedChannel(t.ctx.storage, { key: 'slow-stream', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const abort = new AbortController();
    const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].content).toContain('客户端中途断开');
    expect(after.token.remain_quota).toBe(100_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });

  it('a dead key disables the channel when AutomaticDisableChannelEnabled is on', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await seedChannel(t.ctx.storage, { key: 'fail-401', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    // The channel's key was refused, not the client's: a 502, never the upstream's 401 (issue 15).
    await expect(client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 502 });
    const channel = await t.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', dead).executeTakeFirstOrThrow();
    expect(channel.status).toBe(3);
    const system = await t.ctx.storage.db.selectFrom('logs').selectAll().where('type', '=', 4).execute();
    expect(system.some((l) => (l.content ?? '').includes('已被自动禁用'))).toBe(true);
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });

  it('a reservation left open by an instance that died is refunded by a survivor, once', async () => {
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1000 });
    const crashed = new QuotaLedger(t.ctx.storage, { instanceId: 'crashed-instance' });
    const reservation = await crashed.reserve({ requestId: 'crashed-1', userId, tokenId: token.id, unlimited: false, amount: 300 });
    expect(reservation.amount).toBe(300);
    expect((await quotaState(token.id)).token.remain_quota).toBe(700);
    expect(await t.ctx.cluster.takeover.run()).toBe(1);
    expect((await quotaState(token.id)).token.remain_quota).toBe(1000);
    // settling after recovery does nothing: exactly once
    expect(await t.ctx.relay.ledger.settle(reservation, { cost: 10, channelId: 0 })).toBeUndefined();
    expect((await quotaState(token.id)).token.remain_quota).toBe(1000);
  });
});

describe('concurrency', () => {
  it('hundreds of parallel requests on one limited token: quotas exact, never negative, logs sum to what was charged', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    // each call costs 4 but reserves 100 (PreConsumedQuota): 1000 quota lets at most 10 run at once
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1000 });
    const before = await quotaState(token.id);
    const openai = client(token.key);
    const results = await Promise.allSettled(
      Array.from({ length: 300 }, () => openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toBeGreaterThan(0);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ status: 429 });
    const after = await settled(token.id, ok);
    const logged = after.logs.reduce((sum, l) => sum + Number(l.quota), 0);
    expect(after.logs).toHaveLength(ok);
    expect(logged).toBe(ok * 4);
    expect(after.token.remain_quota).toBe(1000 - logged);
    expect(after.token.remain_quota).toBeGreaterThanOrEqual(0);
    expect(after.token.used_quota).toBe(logged);
    expect(after.user.quota).toBe(before.user.quota - logged);
    expect(after.open).toEqual([]);
  });
});
