import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

let t: TestApp;
let root: string;

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
});

// covers issue 10 defects 9 and 10: fastify's English internals reached users
describe('errors raised before a route runs', () => {
  it('a path parameter past the length limit: 414 in Chinese, in the shape of its API, with the security headers', async () => {
    const api = await t.app.inject({ method: 'GET', url: `/api/channel/${'9'.repeat(500)}`, headers: { cookie: root } });
    expect(api.statusCode).toBe(414);
    expect(api.json()).toEqual({ success: false, message: '请求地址中的参数过长' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    const relay = await t.app.inject({ method: 'GET', url: `/v1/models/${'x'.repeat(500)}` });
    expect(relay.statusCode).toBe(414);
    expect(relay.json()).toEqual({ error: { message: '请求地址中的参数过长', type: 'invalid_request_error', param: '', code: '' } });
    expect(relay.body).not.toMatch(/FST_ERR/);
  });

  it('a URL that does not decode: 400 in Chinese', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/channel/%E0%A4%A', headers: { cookie: root } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, message: '请求地址不合法' });
  });
});
