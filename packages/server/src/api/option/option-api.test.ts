import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_OPTION_KEYS, SECRET_OPTION_KEYS } from '@model-relay/contract';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
});

const put = (key: string, value: unknown) => t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key, value } });
const list = async () => (await t.call({ method: 'GET', url: '/api/option/', cookie: root })).body.data as Array<{ key: string; value: string }>;

describe('GET /api/status', () => {
  // covers S3-ENTITY-27, S3-ENTITY-28, S7-API-01
  it('returns every field of the status object plus version and start_time', async () => {
    const res = await t.call({ method: 'GET', url: '/api/status' });
    expect(res.body.success).toBe(true);
    expect(res.body.message).toBe('');
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        'system_name', 'logo', 'footer_html', 'quota_per_unit', 'display_in_currency', 'chat_link', 'server_address', 'top_up_link',
        'turnstile_check', 'turnstile_site_key', 'version', 'start_time', 'email_verification', 'github_oauth', 'github_client_id',
        'wechat_login', 'wechat_qrcode', 'lark_client_id',
      ].sort(),
    );
    expect(res.body.data).toMatchObject({ system_name: 'Model Relay', quota_per_unit: 500000, display_in_currency: true, version: '0.1.0' });
  });

  it('reflects saved options', async () => {
    await put('SystemName', '我的网关');
    await put('ChatLink', 'https://chat.example.com');
    await put('Footer', '<b>hi</b>');
    const res = await t.call({ method: 'GET', url: '/api/status' });
    expect(res.body.data).toMatchObject({ system_name: '我的网关', chat_link: 'https://chat.example.com', footer_html: '<b>hi</b>' });
  });

  it('serves notice, about and home page content', async () => {
    await put('Notice', '# 公告');
    await put('About', '关于我们');
    await put('HomePageContent', '<h1>首页</h1>');
    expect((await t.call({ method: 'GET', url: '/api/notice' })).body.data).toBe('# 公告');
    expect((await t.call({ method: 'GET', url: '/api/about' })).body.data).toBe('关于我们');
    expect((await t.call({ method: 'GET', url: '/api/home_page_content' })).body.data).toBe('<h1>首页</h1>');
  });
});

describe('/api/option/', () => {
  // covers S3-ENTITY-29
  it('lists every option key with defaults, secrets never included', async () => {
    const options = await list();
    const keys = options.map((o) => o.key);
    for (const key of ALL_OPTION_KEYS) {
      if ((SECRET_OPTION_KEYS as readonly string[]).includes(key)) expect(keys).not.toContain(key);
      else expect(keys).toContain(key);
    }
    expect(options.every((o) => typeof o.value === 'string')).toBe(true);
    const ratio = JSON.parse(options.find((o) => o.key === 'ModelRatio')!.value);
    expect(ratio['gpt-4o']).toBe(1.25);
  });

  it('saves secrets without ever returning them', async () => {
    expect((await put('SMTPToken', 'smtp-secret')).body.success).toBe(true);
    expect((await put('TurnstileSecretKey', 'ts-secret')).body.success).toBe(true);
    const text = JSON.stringify(await list());
    expect(text).not.toContain('smtp-secret');
    expect(text).not.toContain('ts-secret');
    expect(t.ctx.options.get('SMTPToken')).toBe('smtp-secret');
  });

  // covers S4-STATES-29
  it('boolean options accept only the strings "true" and "false"', async () => {
    expect((await put('LogConsumeEnabled', 'false')).body.success).toBe(true);
    expect(t.ctx.options.bool('LogConsumeEnabled')).toBe(false);
    expect((await put('LogConsumeEnabled', 'yes')).body.success).toBe(false);
    expect((await put('LogConsumeEnabled', 'true')).body.success).toBe(true);
  });

  // covers S5-VALID-11, S5-VALID-12, S5-VALID-13
  it('rejects ratio options that are not valid JSON, with the section 5 message', async () => {
    expect((await put('ModelRatio', '{bad')).body).toEqual({ success: false, message: '模型倍率不是合法的 JSON 字符串' });
    expect((await put('GroupRatio', '[1,2]')).body).toEqual({ success: false, message: '分组倍率不是合法的 JSON 字符串' });
    expect((await put('CompletionRatio', '{"a":"x"}')).body).toEqual({ success: false, message: '补全倍率不是合法的 JSON 字符串' });
    expect((await put('GroupRatio', '{"default":1,"vip":0.8}')).body.success).toBe(true);
    expect(t.ctx.options.ratios('GroupRatio')).toEqual({ default: 1, vip: 0.8 });
  });

  it('validates numbers, themes, unknown keys and switch prerequisites', async () => {
    expect((await put('RetryTimes', '1.5')).body.success).toBe(false);
    expect((await put('RetryTimes', '-1')).body.success).toBe(false);
    expect((await put('RetryTimes', '3')).body.success).toBe(true);
    expect((await put('QuotaPerUnit', '500000.5')).body.success).toBe(true);
    expect((await put('QuotaPerUnit', 'abc')).body.success).toBe(false);
    expect((await put('Theme', 'neon')).body.success).toBe(false);
    expect((await put('NoSuchKey', 'x')).body.success).toBe(false);
    expect((await put('GitHubOAuthEnabled', 'true')).body.success).toBe(false);
    expect((await put('SystemName', { nested: true })).body.success).toBe(false);
  });

  it('normalises the server address by removing one trailing slash', async () => {
    await put('ServerAddress', 'https://gw.example.com/');
    expect(t.ctx.options.get('ServerAddress')).toBe('https://gw.example.com');
  });

  it('keeps options across a reload from the database', async () => {
    await put('Notice', 'persisted');
    t.ctx.options['values'].set('Notice', 'stale');
    await t.ctx.options.load();
    expect(t.ctx.options.get('Notice')).toBe('persisted');
  });
});

describe('unknown routes', () => {
  it('answers an /api 404 in the envelope', async () => {
    const res = await t.call({ method: 'GET', url: '/api/nope' });
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
