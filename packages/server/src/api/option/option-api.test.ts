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
        // beyond docs/console.md §3: the theme and where the console finds the sign-in pages, the widget and releases
        'theme', 'github_authorize_url', 'lark_authorize_url', 'turnstile_script_url', 'releases_url',
        // whether visitors may see the pricing page
        'pricing_page',
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
  it('rejects ratio options that are not valid JSON, with the docs/console.md §5 message', async () => {
    expect((await put('ModelRatio', '{bad')).body).toEqual({ success: false, message: '模型倍率不是合法的 JSON 字符串' });
    expect((await put('GroupRatio', '[1,2]')).body).toEqual({ success: false, message: '分组倍率不是合法的 JSON 字符串' });
    expect((await put('CompletionRatio', '{"a":')).body).toEqual({ success: false, message: '补全倍率不是合法的 JSON 字符串' });
    // Valid JSON with a value that is no price: said as such.
    expect((await put('CompletionRatio', '{"a":"x"}')).body).toEqual({ success: false, message: '补全倍率的每个值必须是非负数字' });
    expect((await put('CompletionRatio', '{"gpt-4o-mini":-4}')).body).toEqual({ success: false, message: '补全倍率的每个值必须是非负数字' });
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

/** Creates a user as root and logs in; `promote` makes them an admin (role 10). */
async function userCookie(username: string, promote = false): Promise<string> {
  const created = await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username, password: 'password123', display_name: username } });
  expect(created.body.success).toBe(true);
  if (promote) expect((await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username, action: 'promote' } })).body.success).toBe(true);
  return t.login(username, 'password123');
}
const hasChinese = (text: string) => /[\u4e00-\u9fff]/.test(text);

describe('GET /api/option/ (docs/console.md §7, options load)', () => {
  // covers S7-API-32
  it('returns a list of {key, value} string pairs, one per key', async () => {
    const res = await t.call({ method: 'GET', url: '/api/option/', cookie: root });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const data = res.body.data as unknown[];
    expect(Array.isArray(data)).toBe(true);
    for (const entry of data) {
      expect(Object.keys(entry as object).sort()).toEqual(['key', 'value']);
      expect(typeof (entry as { key: unknown }).key).toBe('string');
      expect(typeof (entry as { value: unknown }).value).toBe('string');
    }
    const keys = (data as Array<{ key: string }>).map((o) => o.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(data).toContainEqual({ key: 'SMTPPort', value: '587' });
    expect(data).toContainEqual({ key: 'PasswordLoginEnabled', value: 'true' });
  });

  // covers S7-API-32
  it('is for admins only: anonymous callers get 401, ordinary users are refused, an admin (role 10) is served', async () => {
    const anonymous = await t.call({ method: 'GET', url: '/api/option/' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.success).toBe(false);
    expect(anonymous.body.data).toBeUndefined();

    const common = await t.call({ method: 'GET', url: '/api/option/', cookie: await userCookie('optreader') });
    expect(common.body.success).toBe(false);
    expect(hasChinese(common.body.message)).toBe(true);
    expect(common.body.data).toBeUndefined();

    const admin = await t.call({ method: 'GET', url: '/api/option/', cookie: await userCookie('optadmin', true) });
    expect(admin.body.success).toBe(true);
    expect((admin.body.data as Array<{ key: string }>).some((o) => o.key === 'SystemName')).toBe(true);
  });

  // covers S7-API-32
  it('never sends a secret back, neither its key nor its value (also not TurnstileSecretKey, unlike one-api)', async () => {
    const secrets: Record<string, string> = {
      SMTPToken: 'sec-smtp-1',
      GitHubClientSecret: 'sec-gh-2',
      LarkClientSecret: 'sec-lark-3',
      WeChatServerToken: 'sec-wx-4',
      MessagePusherToken: 'sec-mp-5',
      TurnstileSecretKey: 'sec-ts-6',
    };
    expect(Object.keys(secrets).sort()).toEqual([...SECRET_OPTION_KEYS].sort());
    for (const [key, value] of Object.entries(secrets)) expect((await put(key, value)).body.success).toBe(true);
    const res = await t.call({ method: 'GET', url: '/api/option/', cookie: root });
    const raw = JSON.stringify(res.body);
    for (const [key, value] of Object.entries(secrets)) {
      expect(raw).not.toContain(value);
      expect((res.body.data as Array<{ key: string }>).map((o) => o.key)).not.toContain(key);
      // Saved all the same, for the server's own use.
      expect(t.ctx.options.get(key as (typeof SECRET_OPTION_KEYS)[number])).toBe(value);
    }
  });
});

describe('PUT /api/option/ (docs/console.md §7, option save)', () => {
  // covers S7-API-33
  it('saves {key, value}: the next GET returns the new value', async () => {
    const res = await put('Notice', '系统维护中');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: '' });
    expect(await list()).toContainEqual({ key: 'Notice', value: '系统维护中' });
    expect((await put('QuotaForNewUser', '1000')).body.success).toBe(true);
    expect(await list()).toContainEqual({ key: 'QuotaForNewUser', value: '1000' });
    expect((await put('RegisterEnabled', 'false')).body.success).toBe(true);
    expect(await list()).toContainEqual({ key: 'RegisterEnabled', value: 'false' });
    await put('RegisterEnabled', 'true');
  });

  // covers S7-API-33
  it('refuses an unknown key and invalid values with a Chinese message, leaving the stored value alone', async () => {
    const unknown = await put('NoSuchKey', 'x');
    expect(unknown.body).toEqual({ success: false, message: '未知的配置项：NoSuchKey' });
    expect((await list()).map((o) => o.key)).not.toContain('NoSuchKey');

    await put('RetryTimes', '2');
    const refusals: Array<[string, unknown]> = [
      ['RetryTimes', 'many'],
      ['RetryTimes', '-3'],
      ['QuotaPerUnit', ''],
      ['LogConsumeEnabled', 'on'],
      ['Theme', 'neon'],
      ['ModelRatio', 'not json'],
      ['SystemName', null],
      ['SystemName', undefined],
      ['SystemName', ['a']],
      ['TurnstileCheckEnabled', 'true'],
      // Too large to be an exact quota, a port out of range, a zero quota per unit (amounts divide by it).
      ['QuotaForNewUser', '99999999999999999999999'],
      ['SMTPPort', '99999'],
      ['QuotaPerUnit', '0'],
    ];
    for (const [key, value] of refusals) {
      const res = await put(key, value);
      expect(res.body.success, `${key}=${JSON.stringify(value)}`).toBe(false);
      expect(hasChinese(res.body.message), res.body.message).toBe(true);
    }
    expect(t.ctx.options.get('RetryTimes')).toBe('2');
    expect(t.ctx.options.get('Theme')).toBe('default');

    const noKey = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { value: 'x' } });
    expect(noKey.body).toEqual({ success: false, message: '无效的参数' });
  });

  // covers S7-API-33
  it('is for admins only: anonymous and ordinary users cannot save, an admin can', async () => {
    await put('SystemName', 'Before');
    const anonymous = await t.call({ method: 'PUT', url: '/api/option/', payload: { key: 'SystemName', value: 'Hacked' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.success).toBe(false);

    const common = await t.call({ method: 'PUT', url: '/api/option/', cookie: await userCookie('optwriter'), payload: { key: 'SystemName', value: 'Hacked' } });
    expect(common.body.success).toBe(false);
    expect(hasChinese(common.body.message)).toBe(true);
    expect(t.ctx.options.get('SystemName')).toBe('Before');

    const admin = await t.call({ method: 'PUT', url: '/api/option/', cookie: await userCookie('optsaver', true), payload: { key: 'SystemName', value: 'After' } });
    expect(admin.body.success).toBe(true);
    expect(t.ctx.options.get('SystemName')).toBe('After');
  });
});

describe('unknown routes', () => {
  it('answers an /api 404 in the envelope', async () => {
    const res = await t.call({ method: 'GET', url: '/api/nope' });
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
  });
});
