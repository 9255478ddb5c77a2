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

const accessToken = async () => (await t.ctx.repositories.users.findByUsername('root'))!.access_token;

// covers issue 10 defect 10: state changes on GET (a cross-site link rotated the access token, logged out, ...)
describe('cross-site requests to /api', () => {
  const crossSite = [
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { referer: 'https://evil.example/page' },
    // a navigation from a page that hid its referrer, on plain HTTP (no Sec-Fetch-* there)
    { 'upgrade-insecure-requests': '1', accept: 'text/html,application/xhtml+xml' },
  ];

  it('GET /api/user/token from another site is refused and the token stays', async () => {
    const before = (await t.call({ method: 'GET', url: '/api/user/token', cookie: root })).body.data;
    for (const headers of crossSite) {
      const res = await t.call({ method: 'GET', url: '/api/user/token', cookie: root, headers });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body).toEqual({ success: false, message: '已拒绝跨站请求：请在本站控制台中操作' });
    }
    expect(await accessToken()).toBe(before);
  });

  it('the other state-changing GETs are refused cross-site too: logout, channel tests, balance', async () => {
    const headers = { 'sec-fetch-site': 'cross-site' };
    for (const url of ['/api/user/logout', '/api/channel/test?scope=all', '/api/channel/test/1', '/api/channel/update_balance/1/', '/api/user/aff']) {
      expect((await t.call({ method: 'GET', url, cookie: root, headers })).status, url).toBe(403);
    }
    // the session survived the cross-site logout attempt
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: root })).body.success).toBe(true);
    expect((await t.call({ method: 'PUT', url: '/api/user/self', cookie: root, headers, payload: { display_name: 'x' } })).status).toBe(403);
    expect((await t.call({ method: 'POST', url: '/api/user/login', headers, payload: { username: 'root', password: '123456' } })).status).toBe(403);
  });

  it('the console (same origin) and non-browser clients keep working', async () => {
    const sameOrigin = [
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      { origin: 'http://localhost:3000', host: 'localhost:3000' },
      { referer: 'http://localhost:3000/setting', host: 'localhost:3000' },
      // behind a proxy that rewrites Host: the forwarded host is the console's
      { origin: 'https://relay.example.com', host: '127.0.0.1:3000', 'x-forwarded-host': 'relay.example.com' },
      {},
    ];
    for (const headers of sameOrigin) {
      const res = await t.call({ method: 'GET', url: '/api/user/token', cookie: root, headers });
      expect(res.body.success, JSON.stringify(headers)).toBe(true);
    }
    // a script with the system access token and no browser headers
    const token = await accessToken();
    expect((await t.call({ method: 'GET', url: '/api/user/self', headers: { authorization: token! } })).body.data.username).toBe('root');
    // the configured server address counts as this site
    await t.ctx.options.set('ServerAddress', 'https://gateway.example.org');
    const viaAddress = await t.call({ method: 'GET', url: '/api/user/self', cookie: root, headers: { referer: 'https://gateway.example.org/token', host: '10.0.0.5' } });
    expect(viaAddress.body.success).toBe(true);
  });

  it('public reads stay readable from anywhere', async () => {
    for (const url of ['/api/status', '/api/notice', '/api/about', '/api/home_page_content']) {
      expect((await t.call({ method: 'GET', url, headers: { 'sec-fetch-site': 'cross-site' } })).body.success, url).toBe(true);
    }
  });
});
