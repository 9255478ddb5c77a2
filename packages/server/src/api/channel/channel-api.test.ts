import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';

let t: TestApp;
let root: string;
let mock: MockUpstream;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => t.call({ method, url, cookie: root, payload });
const abilities = () => t.ctx.storage.db.selectFrom('abilities').selectAll().orderBy('model').orderBy('group').execute();

describe('/api/channel', () => {
  // covers S7-API-46, S7-API-43, S7-API-44, S7-API-45
  it('creates one channel per key line, never returns keys, and indexes group x model', async () => {
    const created = await call('POST', '/api/channel/', { name: 'openai', type: 1, key: 'sk-a\nsk-b\n\n', base_url: 'https://api.example.com/', models: 'gpt-4o,gpt-4o-mini', group: 'default,vip', model_mapping: '', config: '' });
    expect(created.body).toMatchObject({ success: true, data: 2 });
    const list = await call('GET', '/api/channel/?p=0');
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.every((c: { key: string }) => c.key === '')).toBe(true);
    expect(list.body.data[0]).toMatchObject({ base_url: 'https://api.example.com', models: 'gpt-4o,gpt-4o-mini', group: 'default,vip', status: 1 });
    expect(await abilities()).toHaveLength(8);
    const byKey = await call('GET', '/api/channel/search?keyword=sk-a');
    expect(byKey.body.data).toHaveLength(1);
    expect(JSON.stringify(byKey.body)).not.toContain('sk-a');
    const one = await call('GET', `/api/channel/${list.body.data[0].id}`);
    expect(one.body.data.key).toBe('');
  });

  // covers S5-VALID-35, S5-VALID-36, S5-VALID-38
  it('validates name/key, models (except type 43), model mapping JSON; Azure gets the default API version', async () => {
    expect((await call('POST', '/api/channel/', { name: '', type: 1, key: 'k', models: 'a' })).body.message).toBe('请填写渠道名称和渠道密钥！');
    expect((await call('POST', '/api/channel/', { name: 'n', type: 1, key: '', models: 'a' })).body.message).toBe('请填写渠道名称和渠道密钥！');
    expect((await call('POST', '/api/channel/', { name: 'n', type: 1, key: 'k', models: '' })).body.message).toBe('请至少选择一个模型！');
    expect((await call('POST', '/api/channel/', { name: 'proxy', type: 43, key: 'k', models: '' })).body.success).toBe(true);
    expect((await call('POST', '/api/channel/', { name: 'n', type: 1, key: 'k', models: 'a', model_mapping: '{bad' })).body.message).toBe('模型重定向必须是合法的 JSON 格式！');
    expect((await call('POST', '/api/channel/', { name: 'azure', type: 3, key: 'k', models: 'gpt-4o' })).body.message).toBe('请填写 AZURE_OPENAI_ENDPOINT，例如 https://docs-test-001.openai.azure.com');
    expect((await call('POST', '/api/channel/', { name: 'azure', type: 3, key: 'k', models: 'gpt-4o', base_url: 'https://x.openai.azure.com' })).body.success).toBe(true);
    const azure = (await call('GET', '/api/channel/search?keyword=azure')).body.data[0];
    expect(azure.other).toBe('2024-03-01-preview');
    expect((await call('POST', '/api/channel/', { name: 'w', type: 1, key: 'k2', models: 'a', weight: -5, priority: '' })).body.success).toBe(true);
    expect((await call('GET', '/api/channel/search?keyword=w')).body.data[0]).toMatchObject({ weight: 0, priority: 0 });
  });

  // covers S7-API-47, S4-STATES-11, S4-STATES-12
  it('status, priority and weight update alone; a full update keeps the key when left empty; abilities follow', async () => {
    await call('POST', '/api/channel/', { name: 'c', type: 1, key: 'secret-key', models: 'gpt-4o', group: 'default' });
    const id = (await call('GET', '/api/channel/?p=0')).body.data[0].id;
    expect((await call('PUT', '/api/channel/', { id, status: 2 })).body.data.status).toBe(2);
    expect((await abilities()).every((a) => a.enabled === 0)).toBe(true);
    expect((await call('PUT', '/api/channel/', { id, status: 1 })).body.data.status).toBe(1);
    expect((await call('PUT', '/api/channel/', { id, priority: 7 })).body.data.priority).toBe(7);
    expect((await call('PUT', '/api/channel/', { id, weight: 3 })).body.data.weight).toBe(3);
    expect((await abilities())[0]).toMatchObject({ enabled: 1, priority: 7, weight: 3 });
    const full = await call('PUT', '/api/channel/', { id, name: 'renamed', type: 1, key: '', models: 'gpt-4o-mini,o1', group: 'vip', base_url: '', model_mapping: '{"gpt-4o-mini":"gpt-4o"}', config: '' });
    expect(full.body.data).toMatchObject({ name: 'renamed', models: 'gpt-4o-mini,o1', group: 'vip', key: '' });
    const row = await t.ctx.storage.db.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.key).toBe('secret-key');
    expect((await abilities()).map((a) => `${a.group}/${a.model}`)).toEqual(['vip/gpt-4o-mini', 'vip/o1']);
  });

  it('credential fields of the config (AWS SK, Vertex credentials) never leave the server; an edit leaving them empty keeps them', async () => {
    const config = JSON.stringify({ region: 'us-east-1', ak: 'AKIA1', sk: 'very-secret' });
    await call('POST', '/api/channel/', { name: 'aws', type: 33, key: 'AKIA1|very-secret|us-east-1', models: 'claude-3-haiku', group: 'default', config });
    const listed = (await call('GET', '/api/channel/?p=0')).body.data[0];
    const id = listed.id;
    const shown = (await call('GET', `/api/channel/${id}`)).body.data;
    for (const dto of [listed, shown]) {
      expect(JSON.stringify(dto)).not.toContain('very-secret');
      expect(JSON.parse(dto.config)).toEqual({ region: 'us-east-1', ak: 'AKIA1', sk: '' });
    }
    // The form sends the config back with the SK empty and no key: only the region changes.
    await call('PUT', '/api/channel/', { id, name: 'aws', type: 33, key: '', models: 'claude-3-haiku', group: 'default', base_url: '', model_mapping: '', config: JSON.stringify({ region: 'eu-west-1', ak: 'AKIA1', sk: '' }) });
    const row = await t.ctx.storage.db.selectFrom('channels').select(['key', 'config']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.config ?? '')).toEqual({ region: 'eu-west-1', ak: 'AKIA1', sk: 'very-secret' });
    expect(row.key).toBe('AKIA1|very-secret|eu-west-1');
  });

  it('a Vertex AI key with a pretty-printed service-account JSON is one channel, its JSON on one line', async () => {
    const account = { type: 'service_account', client_email: 'sa@p.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n' };
    const key = `us-east5|proj-1|${JSON.stringify(account, null, 2)}\n`;
    const created = await call('POST', '/api/channel/', { name: 'vertex', type: 42, key, models: 'gemini-2.5-pro', group: 'default', config: '' });
    expect(created.body).toMatchObject({ success: true, data: 1 });
    const rows = await t.ctx.storage.db.selectFrom('channels').select(['id', 'key']).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key).not.toContain('\n');
    expect(JSON.parse(rows[0]!.key.split('|')[2]!)).toEqual(account);
    // An edit pasting the JSON again keeps it one line too.
    await call('PUT', '/api/channel/', { id: rows[0]!.id, name: 'vertex', type: 42, key: key.replace('proj-1', 'proj-2'), models: 'gemini-2.5-pro', group: 'default', base_url: '', model_mapping: '', config: '' });
    const after = await t.ctx.storage.db.selectFrom('channels').select('key').executeTakeFirstOrThrow();
    expect(after.key.startsWith('us-east5|proj-2|{')).toBe(true);
    expect(JSON.parse(after.key.split('|')[2]!)).toEqual(account);
  });

  it('a Vertex AI channel whose credentials are not a service-account key file is refused, saving nothing; an edit leaving them empty keeps them', async () => {
    const message = 'Vertex AI 渠道的密钥必须是服务账号的 JSON（"type": "service_account"，含 client_email 与 private_key）';
    const account = { type: 'service_account', project_id: 'sa-project', client_email: 'sa@sa-project.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n' };
    const vertex = (fields: Record<string, unknown>) => ({ name: 'vertex', type: 42, models: 'gemini-2.5-pro', group: 'default', base_url: '', model_mapping: '', config: '', ...fields });
    const refused = [
      vertex({ key: 'AIza-an-api-key' }),
      vertex({ key: 'us-east5|proj-1|not json' }),
      vertex({ key: `us-east5|proj-1|${JSON.stringify({ ...account, type: 'authorized_user' })}` }),
      vertex({ key: `us-east5|proj-1|${JSON.stringify({ ...account, private_key: undefined })}` }),
      vertex({ key: JSON.stringify({ ...account, client_email: undefined }, null, 2) }),
      // The console's form: the parts in config, the key composed from them.
      vertex({ key: 'us-east5|proj-1|{"type":"service_account"}', config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: '{"type":"service_account"}' }) }),
    ];
    for (const body of refused) expect((await call('POST', '/api/channel/', body)).body).toMatchObject({ success: false, message });
    // The region and the project the relay would call must be valid too (a key file without project_id names none).
    expect((await call('POST', '/api/channel/', vertex({ key: JSON.stringify({ ...account, project_id: undefined }) }))).body).toMatchObject({ success: false, message: 'Vertex AI 渠道缺少 Project ID' });
    expect((await call('POST', '/api/channel/', vertex({ key: `US East|proj-1|${JSON.stringify(account)}` }))).body).toMatchObject({ success: false, message: 'Vertex AI 区域无效：US East' });
    expect(await t.ctx.storage.db.selectFrom('channels').selectAll().execute()).toHaveLength(0);
    expect(await abilities()).toHaveLength(0);

    // Accepted: the key file alone (region global, its own project), pretty-printed as downloaded, or the form's parts.
    expect((await call('POST', '/api/channel/', vertex({ name: 'vertex-key', key: JSON.stringify(account, null, 2) }))).body).toMatchObject({ success: true, data: 1 });
    const adc = JSON.stringify(account, null, 2);
    const config = JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: adc });
    expect((await call('POST', '/api/channel/', vertex({ key: `us-east5|proj-1|${adc}`, config }))).body).toMatchObject({ success: true, data: 1 });
    const id = (await call('GET', '/api/channel/search?keyword=vertex')).body.data.find((c: { name: string }) => c.name === 'vertex').id;
    const stored = await t.ctx.storage.db.selectFrom('channels').select(['key', 'config']).where('id', '=', id).executeTakeFirstOrThrow();

    // An edit sends the config back with the credentials empty and no key: they are kept, and the edit is saved.
    const edited = await call('PUT', '/api/channel/', vertex({ id, name: 'vertex-renamed', key: '', config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: '' }) }));
    expect(edited.body).toMatchObject({ success: true, data: { name: 'vertex-renamed' } });
    expect(await t.ctx.storage.db.selectFrom('channels').select(['key', 'config']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual(stored);
    // An edit with credentials that cannot log in is refused and changes nothing.
    const bad = await call('PUT', '/api/channel/', vertex({ id, name: 'vertex-bad', key: '', config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: '{"type":"authorized_user"}' }) }));
    expect(bad.body).toMatchObject({ success: false, message });
    expect(await t.ctx.storage.db.selectFrom('channels').select(['name', 'key', 'config']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ name: 'vertex-renamed', ...stored });
  });

  // covers S7-API-48, S7-API-49
  it('deletes one channel, and all disabled ones with their abilities', async () => {
    await call('POST', '/api/channel/', { name: 'a', type: 1, key: 'k1\nk2\nk3', models: 'm' });
    const ids = (await call('GET', '/api/channel/?p=0')).body.data.map((c: { id: number }) => c.id);
    expect((await call('DELETE', `/api/channel/${ids[0]}/`)).body.success).toBe(true);
    await call('PUT', '/api/channel/', { id: ids[1], status: 2 });
    await t.ctx.relay.store.setChannelStatus(ids[2], 3);
    await call('POST', '/api/channel/', { name: 'keep', type: 1, key: 'k4', models: 'm' });
    expect((await call('DELETE', '/api/channel/disabled')).body.data).toBe(2);
    const left = (await call('GET', '/api/channel/?p=0')).body.data;
    expect(left.map((c: { name: string }) => c.name)).toEqual(['keep']);
    expect(await abilities()).toHaveLength(1);
  });

  // covers S7-API-52, S7-API-53, S7-API-50
  it('tests one channel (time in seconds and model) and refreshes its balance', async () => {
    await call('POST', '/api/channel/', { name: 'mock', type: 1, key: 'ok', base_url: mock.url, models: 'gpt-4o-mini' });
    const id = (await call('GET', '/api/channel/?p=0')).body.data[0].id;
    const test = await call('GET', `/api/channel/test/${id}?model=gpt-4o-mini`);
    expect(test.body).toMatchObject({ success: true, model: 'gpt-4o-mini' });
    expect(typeof test.body.time).toBe('number');
    const balance = await call('GET', `/api/channel/update_balance/${id}/`);
    expect(balance.body).toMatchObject({ success: true, balance: 99.5 });
    const row = (await call('GET', `/api/channel/${id}`)).body.data;
    expect(row.balance).toBe(99.5);
    expect(row.test_time).toBeGreaterThan(0);
    expect((await call('GET', '/api/channel/test?scope=all')).body.success).toBe(true);
    await t.ctx.channelTests.idle();
  });

  it('a failed test keeps its upstream reason on the channel (never a healthy-looking time); a pass clears it', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
    await call('POST', '/api/channel/', { name: 'broken', type: 1, key: 'fail-500', base_url: mock.url, models: 'gpt-4o-mini' });
    const id = (await call('GET', '/api/channel/?p=0')).body.data[0].id;
    const failed = await call('GET', `/api/channel/test/${id}`);
    expect(failed.body.success).toBe(false);
    expect(failed.body.message).toContain('upstream exploded');
    // The answer carries the channel as the test left it, for the console's row.
    expect(failed.body.data.channel).toMatchObject({ id, key: '' });
    expect(failed.body.data.channel.test_error).toContain('upstream exploded');
    expect(failed.body.data.channel.test_time).toBeGreaterThan(0);
    expect((await call('GET', `/api/channel/${id}`)).body.data.test_error).toContain('upstream exploded');
    await call('PUT', '/api/channel/', { id, key: 'ok', name: 'broken', type: 1, base_url: mock.url, models: 'gpt-4o-mini' });
    const passed = await call('GET', `/api/channel/test/${id}`);
    expect(passed.body).toMatchObject({ success: true });
    expect(passed.body.data.channel.test_error).toBe('');
  });

  it('test all reports its progress (total, done, failed) until it ends; a second start while it runs is refused', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
    for (const [name, key] of [['a', 'ok'], ['b', 'fail-500'], ['c', 'ok']]) await call('POST', '/api/channel/', { name, type: 1, key, base_url: mock.url, models: 'gpt-4o-mini' });
    expect((await call('GET', '/api/channel/test?scope=all')).body.success).toBe(true);
    expect((await call('GET', '/api/channel/test?scope=all')).body).toMatchObject({ success: false, message: '测试已在运行中' });
    const during = (await call('GET', '/api/channel/test/status')).body.data;
    expect(during).toMatchObject({ running: true, scope: 'all' });
    await t.ctx.channelTests.idle();
    const after = (await call('GET', '/api/channel/test/status')).body.data;
    expect(after).toMatchObject({ running: false, scope: 'all', total: 3, done: 3, failed: 1 });
    expect(after.finished_at).toBeGreaterThanOrEqual(after.started_at);
    // Once it ended, another run may start.
    expect((await call('GET', '/api/channel/test?scope=disabled')).body.success).toBe(true);
    await t.ctx.channelTests.idle();
  });

  // covers S7-API-51, S7-API-50
  it('test disabled runs only the manually and automatically disabled channels against the upstream', async () => {
    await t.ctx.options.set('AutomaticEnableChannelEnabled', 'false');
    for (const name of ['on', 'manual', 'auto']) await call('POST', '/api/channel/', { name, type: 1, key: `ok:${name}`, base_url: mock.url, models: 'gpt-4o-mini' });
    const ids = Object.fromEntries((await call('GET', '/api/channel/?p=0')).body.data.map((c: { id: number; name: string }) => [c.name, c.id]));
    await call('PUT', '/api/channel/', { id: ids.manual, status: 2 });
    await t.ctx.relay.store.setChannelStatus(ids.auto, 3);
    mock.requests.length = 0;
    expect((await call('GET', '/api/channel/test?scope=disabled')).body.success).toBe(true);
    await t.ctx.channelTests.idle();
    expect(mock.requests.map((r) => r.key).sort()).toEqual(['ok:auto', 'ok:manual']);
    expect(mock.requests.every((r) => r.path === '/v1/chat/completions')).toBe(true);
    const rows = await t.ctx.storage.db.selectFrom('channels').select(['name', 'test_time', 'status']).orderBy('id').execute();
    expect(rows.map((r) => [r.name, Number(r.test_time) > 0, r.status])).toEqual([['on', false, 1], ['manual', true, 2], ['auto', true, 3]]);
    // "Test all" tests every channel, the disabled ones included.
    mock.requests.length = 0;
    expect((await call('GET', '/api/channel/test?scope=all')).body.success).toBe(true);
    await t.ctx.channelTests.idle();
    expect(mock.requests.map((r) => r.key).sort()).toEqual(['ok:auto', 'ok:manual', 'ok:on']);
  });

  // covers S5-VALID-50
  it('a channel test uses the chosen model, else the first model of the channel, else a chat model', async () => {
    await call('POST', '/api/channel/', { name: 'pick', type: 1, key: 'ok:pick', base_url: mock.url, models: 'gpt-4o-mini,gpt-4o' });
    const id = (await call('GET', '/api/channel/?p=0')).body.data[0].id;
    mock.requests.length = 0;
    const first = await call('GET', `/api/channel/test/${id}?model=`);
    expect(first.body).toMatchObject({ success: true, model: 'gpt-4o-mini', data: { model: 'gpt-4o-mini' } });
    const chosen = await call('GET', `/api/channel/test/${id}?model=gpt-4o`);
    expect(chosen.body).toMatchObject({ success: true, model: 'gpt-4o' });
    await t.ctx.storage.db.updateTable('channels').set({ models: '' }).where('id', '=', id).execute();
    const fallback = await call('GET', `/api/channel/test/${id}`);
    expect(fallback.body).toMatchObject({ success: true, model: 'gpt-4o-mini' });
    expect(mock.requests.map((r) => [r.path, (r.body as { model: string }).model])).toEqual([
      ['/v1/chat/completions', 'gpt-4o-mini'],
      ['/v1/chat/completions', 'gpt-4o'],
      ['/v1/chat/completions', 'gpt-4o-mini'],
    ]);
    expect(mock.requests[0].body).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
  });

  // covers S5-VALID-51
  it('a channel test refuses non-chat models without calling the upstream', async () => {
    await call('POST', '/api/channel/', { name: 'embed', type: 1, key: 'ok:embed', base_url: mock.url, models: 'text-embedding-3-small,gpt-4o-mini' });
    const id = (await call('GET', '/api/channel/?p=0')).body.data[0].id;
    mock.requests.length = 0;
    for (const model of ['text-embedding-3-small', 'dall-e-3', 'whisper-1', 'tts-1', 'omni-moderation-latest']) {
      const res = await call('GET', `/api/channel/test/${id}?model=${model}`);
      expect(res.body.success, model).toBe(false);
      expect(res.body.message).toBe(`渠道测试仅支持 chat 模型，${model} 不是 chat 模型，请选择其他测试模型`);
    }
    expect(mock.requests).toHaveLength(0);
    expect(Number((await t.ctx.storage.db.selectFrom('channels').select('test_time').where('id', '=', id).executeTakeFirstOrThrow()).test_time)).toBe(0);
    // Without a chosen model the first chat model of the list is used, skipping the embedding model before it.
    expect((await call('GET', `/api/channel/test/${id}?model=`)).body).toMatchObject({ success: true, model: 'gpt-4o-mini' });
    expect(mock.requests).toHaveLength(1);
    // A channel of embedding models only: its first model is named in the refusal, nothing is sent.
    await t.ctx.storage.db.updateTable('channels').set({ models: 'text-embedding-3-small,text-embedding-3-large' }).where('id', '=', id).execute();
    expect((await call('GET', `/api/channel/test/${id}`)).body).toMatchObject({ success: false, message: '渠道测试仅支持 chat 模型，text-embedding-3-small 不是 chat 模型，请选择其他测试模型' });
    expect(mock.requests).toHaveLength(1);
  });

  // covers S7-API-54
  it('lists built-in models for the form', async () => {
    const all = await call('GET', '/api/channel/models');
    expect(all.body.data.some((m: { id: string }) => m.id === 'gpt-4o')).toBe(true);
    const byType = await call('GET', '/api/models');
    expect(byType.body.data['1']).toContain('gpt-4o');
    expect(byType.body.data['43']).toEqual([]);
  });

  it('every channel route is admin-only', async () => {
    await call('POST', '/api/user/', { username: 'plain', password: 'password123' });
    const plain = await t.login('plain', 'password123');
    for (const [method, url] of [['GET', '/api/channel/?p=0'], ['GET', '/api/channel/search?keyword=a'], ['GET', '/api/channel/1'], ['POST', '/api/channel/'], ['PUT', '/api/channel/'], ['DELETE', '/api/channel/1/'], ['DELETE', '/api/channel/disabled'], ['GET', '/api/channel/test/1'], ['GET', '/api/channel/test?scope=all'], ['GET', '/api/channel/test/status'], ['GET', '/api/channel/update_balance/1/'], ['GET', '/api/channel/models']] as const) {
      const res = await t.call({ method, url, cookie: plain, payload: method === 'POST' || method === 'PUT' ? {} : undefined });
      expect(res.body, `${method} ${url}`).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
    }
  });
});
