import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { API_BODY_LIMIT, MAX_JSON_DEPTH, jsonNestedDeeperThan } from './body-limits.js';

let t: TestApp;
let root: string;

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
});

const rowCount = async () => (await t.ctx.storage.db.selectFrom('tokens').select('id').execute()).length;

describe('nesting depth', () => {
  it('measures nesting outside strings only', () => {
    expect(jsonNestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(jsonNestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(jsonNestedDeeperThan(`{"a":"${'['.repeat(1000)}"}`, 3)).toBe(false);
    expect(jsonNestedDeeperThan(`{"a":"x\\"[[[[","b":[[1]]}`, 3)).toBe(false);
    expect(jsonNestedDeeperThan(`{"a":"x\\\\","b":[[[[1]]]]}`, 3)).toBe(true);
  });
});

// covers issue 10 defect 9 (deep nesting) and the "body size limits per route" must-have
describe('bodies on /api', () => {
  it('a body past the route limit is a 413 with a Chinese message, nothing written', async () => {
    const before = await rowCount();
    const res = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: 'k', models: 'x'.repeat(API_BODY_LIMIT) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, message: '请求体过大：此接口最多接受 64 KB' });
    const megabyte = await t.call({ method: 'PUT', url: '/api/user/self', cookie: root, payload: { display_name: 'x'.repeat(1024 * 1024) } });
    expect(megabyte.status).toBe(413);
    expect(await rowCount()).toBe(before);
  });

  it('routes that carry long texts take more, and their fields are still bounded', async () => {
    const notice = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'Notice', value: '公告'.repeat(10_000) } });
    expect(notice.body.success).toBe(true);
    const tooLong = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'Notice', value: '公告'.repeat(25_000) } });
    expect(tooLong.body).toEqual({ success: false, message: '参数 Notice 过长（最多 65535 字节）' });
    const name = await t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name: 'x'.repeat(1024 * 1024), key: 'k', models: 'm' } });
    expect(name.body).toEqual({ success: false, message: '参数 name 过长（最多 128 个字符）' });
  });

  it('deep nesting is refused before parsing; malformed JSON and odd content types are 4xx in Chinese', async () => {
    const deep = '{"name":' + '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1) + '}';
    const nested = await t.call({ method: 'POST', url: '/api/token/', cookie: root, headers: { 'content-type': 'application/json' }, payload: deep });
    expect(nested.status).toBe(400);
    expect(nested.body).toEqual({ success: false, message: `请求体嵌套层级过深（最多 ${MAX_JSON_DEPTH} 层）` });
    const broken = await t.call({ method: 'POST', url: '/api/token/', cookie: root, headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(broken).toEqual({ status: 400, body: { success: false, message: '请求体不是合法的 JSON' } });
    const proto = await t.call({ method: 'POST', url: '/api/token/', cookie: root, headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1}}' });
    expect(proto.status).toBe(400);
    const form = await t.call({ method: 'POST', url: '/api/token/', cookie: root, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'name=k' });
    expect(form).toEqual({ status: 415, body: { success: false, message: '不支持的请求体类型，请使用 application/json' } });
    const text = await t.call({ method: 'POST', url: '/api/token/', cookie: root, headers: { 'content-type': 'text/plain' }, payload: 'name=k' });
    expect(text.body).toEqual({ success: false, message: '请求体必须是 JSON 对象' });
    const array = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: [1, 2] });
    expect(array.body).toEqual({ success: false, message: '请求体必须是 JSON 对象' });
  });

  it('the /v1 JSON parser answers malformed bodies in Chinese too', async () => {
    const res = await t.call({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: '{"model":' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('请求体不是合法的 JSON');
    expect(JSON.stringify(res.body)).not.toMatch(/Unexpected|position/);
  });
});
