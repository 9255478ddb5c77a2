import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedChannel } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockAnthropic, type MockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { startMockServer, sendJson, type MockHandle } from '../../test-support/upstreams/mock-server.js';
import { startMockOllama, OLLAMA_MODELS } from '../../test-support/upstreams/ollama.js';

/** POST /api/channel/fetch_models: the channel form's 获取模型列表, read from each provider's own list. */
let t: TestApp;
let root: string;
let openaiLike: MockHandle;
let anthropic: MockAnthropic;
let ollama: MockHandle;

beforeAll(async () => {
  // an OpenAI-compatible vendor's list at its own path, behind its bearer
  openaiLike = await startMockServer((_req, res, recorded) => {
    if (recorded.headers.authorization !== 'Bearer good') return sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
    if (recorded.path === '/api/paas/v4/models' || recorded.path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [{ id: 'glm-4.5', object: 'model' }, { id: 'glm-4-air', object: 'model' }, { id: 'glm-4.5', object: 'model' }] });
    return sendJson(res, 404, { error: { message: 'not found' } });
  });
  anthropic = await startMockAnthropic();
  ollama = await startMockOllama();
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
  await Promise.all([openaiLike.close(), anthropic.close(), ollama.close()]);
});

const fetchModels = (payload: object) => t.call({ method: 'POST', url: '/api/channel/fetch_models', cookie: root, payload });

describe('model discovery', () => {
  it('an OpenAI-compatible vendor is asked at its own path (Zhipu /api/paas/v4/models), sorted without duplicates', async () => {
    const { body } = await fetchModels({ type: 16, key: 'good', base_url: openaiLike.url });
    expect(body).toEqual({ success: true, message: '', data: ['glm-4-air', 'glm-4.5'] });
    expect(openaiLike.requests.at(-1)!.path).toBe('/api/paas/v4/models');
  });

  it('Anthropic\'s and Ollama\'s own lists', async () => {
    const claude = await fetchModels({ type: 14, key: 'ok', base_url: anthropic.url });
    expect(claude.body.success).toBe(true);
    expect(claude.body.data.length).toBeGreaterThan(0);
    expect(anthropic.requests.at(-1)!.path).toBe('/v1/models');
    const local = await fetchModels({ type: 30, key: '', base_url: ollama.url });
    expect(local.body).toEqual({ success: true, message: '', data: [...OLLAMA_MODELS].sort() });
  });

  it('an edit that leaves the key empty uses the saved channel\'s key', async () => {
    const id = await seedChannel(t.ctx.storage, { type: 16, key: 'good', baseUrl: openaiLike.url, models: 'glm-4-air' });
    const { body } = await fetchModels({ id, type: 16, key: '', base_url: openaiLike.url });
    expect(body.data).toEqual(['glm-4-air', 'glm-4.5']);
  });

  it('a refused key, an unreachable upstream and a vendor without a list each say why', async () => {
    expect((await fetchModels({ type: 16, key: 'bad', base_url: openaiLike.url })).body).toEqual({ success: false, message: '获取模型列表失败：上游返回 HTTP 401（密钥无效或无权限）' });
    expect((await fetchModels({ type: 1, key: 'k', base_url: 'http://127.0.0.1:9' })).body).toEqual({ success: false, message: '获取模型列表失败：无法连接上游服务' });
    expect((await fetchModels({ type: 15, key: 'a|b' })).body).toEqual({ success: false, message: '获取模型列表失败：百度文心千帆 没有可查询的模型列表接口，请手动填写模型' });
    expect((await fetchModels({ type: 1, key: '' })).body).toEqual({ success: false, message: '请先填写密钥' });
  });

  it('is for admins only', async () => {
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'plainuser', password: 'password123' } });
    const plain = await t.login('plainuser', 'password123');
    const { status, body } = await t.call({ method: 'POST', url: '/api/channel/fetch_models', cookie: plain, payload: { type: 16, key: 'good', base_url: openaiLike.url } });
    expect(status === 403 || body.success === false).toBe(true);
    expect(openaiLike.requests.filter((r) => r.headers.authorization === 'Bearer good').length).toBe(2);
  });
});
