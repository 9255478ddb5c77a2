import { tokenInputSchema } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { parseInput } from '../lib/validate.js';
import { ok, zodValidatorCompiler } from './typed-routes.js';

/** What parseInput (a service's check) says about `input`, or undefined when it passes. */
function serviceMessage(input: unknown): string | undefined {
  try {
    parseInput(tokenInputSchema, input);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('the validator compiler', () => {
  const body = zodValidatorCompiler({ schema: tokenInputSchema, method: 'POST', url: '/api/token/', httpPart: 'body' });

  it('refuses a body with the message parseInput gives, and passes the parsed value on', () => {
    for (const input of [null, [], 'text', 7, {}, { name: '' }, { name: 'k', remain_quota: -1 }, { name: 'k', expired_time: '1e3' }, { name: 'x'.repeat(10_000) }]) {
      const result = body(input) as { error?: Error; value?: unknown };
      expect(result.error?.message, JSON.stringify(input).slice(0, 40)).toBe(serviceMessage(input));
      expect(result.error?.message ?? '').toMatch(/^$|[\u4e00-\u9fff]/);
    }
    expect((body({ name: '  key  ', remain_quota: '15' }) as { value: unknown }).value).toMatchObject({ name: 'key', remain_quota: 15, expired_time: -1 });
  });

  it('ok() is the envelope', () => {
    expect(ok()).toEqual({ success: true, message: '' });
    expect(ok([1], 'bind')).toEqual({ success: true, message: 'bind', data: [1] });
  });
});

describe('typed routes through the app', () => {
  let t: TestApp;
  let root: string;
  beforeAll(async () => {
    t = await createTestApp();
    root = await t.login('root', '123456');
  });
  afterAll(async () => {
    await t.close();
  });

  it('checks the caller before the input: a stranger with a bad body or id is told to sign in', async () => {
    for (const request of [
      { method: 'POST', url: '/api/token/', payload: [] },
      { method: 'GET', url: '/api/token/abc' },
      { method: 'GET', url: '/api/user/?p=-1' },
    ] as const) {
      const res = await t.call(request);
      expect(res.status, request.url).toBe(401);
      expect(res.body.success).toBe(false);
    }
  });

  it('refuses bad params, query and body in Chinese with status 200, and hands the handler parsed values', async () => {
    expect((await t.call({ method: 'GET', url: '/api/token/0x1', cookie: root })).body).toEqual({ success: false, message: '无效的令牌 ID' });
    expect((await t.call({ method: 'GET', url: '/api/channel/?p=1.5', cookie: root })).body).toEqual({ success: false, message: '页码 p 必须是非负整数' });
    expect((await t.call({ method: 'GET', url: '/api/log/?type=1&type=2', cookie: root })).body).toEqual({ success: false, message: '参数 type 不合法' });
    const refused = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: [] });
    expect([refused.status, refused.body]).toEqual([200, { success: false, message: '请求体必须是 JSON 对象' }]);
    const created = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: '  typed  ', remain_quota: '42' } });
    expect(created.body).toMatchObject({ success: true, message: '', data: { name: 'typed', remain_quota: 42 } });
  });
});
