import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockGemini, type MockGemini } from '../../test-support/upstreams/gemini.js';
import { startMockVertex, type MockVertex } from '../../test-support/upstreams/vertex.js';
import type { ServiceAccountKey } from '../../test-support/upstreams/vertex-oauth.js';

// The channel test button (GET /api/channel/test/:id) against Gemini and Vertex AI channels made as the console makes them.
let t: TestApp;
let root: string;
let gemini: MockGemini;
let vertex: MockVertex;

beforeAll(async () => {
  [gemini, vertex] = await Promise.all([startMockGemini(), startMockVertex()]);
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
  await Promise.all([gemini.close(), vertex.close()]);
});
beforeEach(async () => {
  await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  gemini.requests.length = 0;
  vertex.requests.length = 0;
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) => t.call({ method, url, cookie: root, payload });

async function create(body: Record<string, unknown>): Promise<number> {
  expect((await call('POST', '/api/channel/', { group: 'default', model_mapping: '', ...body })).body).toMatchObject({ success: true });
  const list = await call('GET', '/api/channel/?p=0');
  return (list.body.data as Array<{ id: number; name: string }>).find((c) => c.name === body.name)!.id;
}

/** A Vertex channel as the channel form sends it: the parts in config, the key composed from them (first line only). */
function vertexChannel(name: string, account: ServiceAccountKey, models: string) {
  const adc = JSON.stringify(account, null, 2);
  const key = `us-east5|${account.project_id}|${adc}`.split('\n')[0];
  return { name, type: 42, key, base_url: vertex.url, models, config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: account.project_id, vertex_ai_adc: adc }) };
}

describe('channel test on Google channels', () => {
  // covers S5-VALID-50, S3-CHANNELTYPES-02 (type 24)
  it('Gemini: one small generateContent with the key in x-goog-api-key answers the model’s reply', async () => {
    const id = await create({ name: 'gemini', type: 24, key: 'ok', base_url: gemini.url, models: 'gemini-2.5-flash' });
    const result = await call('GET', `/api/channel/test/${id}`);
    expect(result.body).toMatchObject({ success: true, message: 'Hello! How can I help you today?', model: 'gemini-2.5-flash' });
    expect(gemini.requests).toHaveLength(1);
    expect(gemini.requests[0]).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash:generateContent', headers: { 'x-goog-api-key': 'ok' } });
    expect(gemini.requests[0].body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 5 } });
  });

  it('Gemini: a key Google calls invalid fails the test and disables the channel', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const id = await create({ name: 'gemini-bad-key', type: 24, key: 'AIza-not-a-key', base_url: gemini.url, models: 'gemini-2.5-flash' });
    const result = await call('GET', `/api/channel/test/${id}`);
    expect(result.body).toMatchObject({ success: false, message: 'API key not valid. Please pass a valid API key.' });
    expect((await call('GET', `/api/channel/${id}`)).body.data.status).toBe(3);
  });

  // covers S3-ENTITY-16, S2-CHANNELFORM-09 (the Vertex fields read from config), S3-CHANNELTYPES-02 (type 42)
  it('Vertex AI: logs in with the service account, then tests its Gemini and its Claude models', async () => {
    const before = vertex.tokenExchanges.length;
    const id = await create(vertexChannel('vertex', vertex.serviceAccount(), 'gemini-2.5-flash,claude-sonnet-4-5@20250929'));
    expect((await call('GET', `/api/channel/test/${id}`)).body).toMatchObject({ success: true, message: 'Hello! How can I help you today?', model: 'gemini-2.5-flash' });
    expect((await call('GET', `/api/channel/test/${id}?model=claude-sonnet-4-5@20250929`)).body).toMatchObject({ success: true, message: 'Hello! How can I help you today?' });
    const calls = vertex.requests.filter((r) => r.path !== '/token');
    expect(calls.map((r) => r.path)).toEqual([
      '/v1/projects/relay-test-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
      '/v1/projects/relay-test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    ]);
    expect(calls[1].body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 5 });
    expect(vertex.tokenExchanges.length - before).toBe(1);
  });

  it('Vertex AI: a service account the token endpoint refuses fails the test with the reason', async () => {
    const id = await create(vertexChannel('vertex-revoked', vertex.serviceAccount({ revoked: true }), 'gemini-2.5-flash'));
    const result = await call('GET', `/api/channel/test/${id}`);
    expect(result.body.success).toBe(false);
    expect(result.body.message).toMatch(/^渠道凭证无效或无法获取访问令牌：服务账号登录失败：invalid_grant/);
    expect(vertex.requests.filter((r) => r.path !== '/token')).toEqual([]);
  });
});
