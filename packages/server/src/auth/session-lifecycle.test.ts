import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { sessionCookieOptions } from './session-lifecycle.js';

const PASSWORD = 'password123';

async function cookieOf(response: { headers: Record<string, unknown> }): Promise<string> {
  return String(response.headers['set-cookie']).split(';')[0];
}

// covers issue 10 defect 7: sessions could not be revoked
describe('session revocation on one instance', () => {
  let t: TestApp;
  let root: string;

  beforeEach(async () => {
    t = await createTestApp();
    root = await t.login('root', '123456');
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'amy', password: PASSWORD } });
  });
  afterEach(async () => {
    await t.close();
  });

  const self = (cookie: string) => t.call({ method: 'GET', url: '/api/user/self', cookie });

  it('logout ends that session only: a copy of its cookie is refused, other sessions go on', async () => {
    const laptop = await t.login('amy', PASSWORD);
    const phone = await t.login('amy', PASSWORD);
    expect((await t.call({ method: 'GET', url: '/api/user/logout', cookie: laptop })).body.success).toBe(true);
    expect((await self(laptop)).status).toBe(401);
    expect((await self(phone)).body.data.username).toBe('amy');
  });

  it('a password change ends every session; the client that changed it gets a fresh cookie', async () => {
    const laptop = await t.login('amy', PASSWORD);
    const phone = await t.login('amy', PASSWORD);
    const change = await t.app.inject({ method: 'PUT', url: '/api/user/self', headers: { cookie: laptop }, payload: { password: 'another-pass1' } });
    expect(change.json().success).toBe(true);
    expect((await self(laptop)).status).toBe(401);
    expect((await self(phone)).status).toBe(401);
    expect((await self(await cookieOf(change))).body.data.username).toBe('amy');
    // changing only the display name keeps sessions
    const again = await t.login('amy', 'another-pass1');
    await t.call({ method: 'PUT', url: '/api/user/self', cookie: again, payload: { display_name: 'Amy' } });
    expect((await self(again)).body.data.display_name).toBe('Amy');
  });

  it('an admin setting the password, a ban and a role change end the user’s sessions', async () => {
    const amyId = (await t.ctx.repositories.users.findByUsername('amy'))!.id;
    let amy = await t.login('amy', PASSWORD);
    await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: amyId, password: 'set-by-admin' } });
    expect((await self(amy)).status).toBe(401);

    amy = await t.login('amy', 'set-by-admin');
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'amy', action: 'disable' } });
    expect((await self(amy)).body).toMatchObject({ success: false, message: '用户已被封禁' });
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'amy', action: 'enable' } });
    // lifting the ban does not bring the old session back
    expect((await self(amy)).status).toBe(401);

    for (const action of ['promote', 'demote']) {
      amy = await t.login('amy', 'set-by-admin');
      expect((await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'amy', action } })).body.success).toBe(true);
      expect((await self(amy)).status, action).toBe(401);
    }
    // quota or group edits by an admin keep the session
    amy = await t.login('amy', 'set-by-admin');
    await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: amyId, quota: 5, group: 'vip' } });
    expect((await self(amy)).body.data).toMatchObject({ quota: 5, group: 'vip' });
  });
});

describe('Secure flag', () => {
  const requestOver = (protocol: 'http' | 'https') => ({ protocol }) as FastifyRequest;
  const ctxWith = (value: string) => ({ config: loadConfig({ SESSION_COOKIE_SECURE: value }) }) as AppContext;

  it('auto: Secure exactly when the request came over HTTPS; true and false force it', () => {
    expect(sessionCookieOptions(ctxWith('auto'), requestOver('https'))).toMatchObject({ secure: true, httpOnly: true, sameSite: 'lax' });
    expect(sessionCookieOptions(ctxWith('auto'), requestOver('http')).secure).toBe(false);
    expect(sessionCookieOptions(ctxWith('true'), requestOver('http')).secure).toBe(true);
    expect(sessionCookieOptions(ctxWith('false'), requestOver('https')).secure).toBe(false);
  });

  it('SESSION_COOKIE_SECURE=true puts Secure on the login cookie', async () => {
    const t = await createTestApp({ SESSION_COOKIE_SECURE: 'true' });
    const login = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(String(login.headers['set-cookie'])).toMatch(/; Secure/);
    await t.close();
    const plain = await createTestApp();
    const plainLogin = await plain.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(String(plainLogin.headers['set-cookie'])).not.toMatch(/Secure/);
    await plain.close();
  });
});

// Two instances on one database and one Redis: a logout on one is honoured by the other.
describe.runIf(process.env.TEST_REDIS_URL)('session revocation across instances', () => {
  let dir: string;
  let a: TestApp;
  let b: TestApp;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mr-sessions-'));
    const env = { SQLITE_PATH: join(dir, 'gateway.db'), REDIS_CONN_STRING: process.env.TEST_REDIS_URL!, SESSION_SECRET: 'shared-secret-for-both' };
    a = await createTestApp(env);
    b = await createTestApp(env);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logout on one instance, password change on the other', async () => {
    const first = await a.login('root', '123456');
    expect((await b.call({ method: 'GET', url: '/api/user/self', cookie: first })).body.data.username).toBe('root');
    await a.call({ method: 'GET', url: '/api/user/logout', cookie: first });
    expect((await b.call({ method: 'GET', url: '/api/user/self', cookie: first })).status).toBe(401);

    const second = await b.login('root', '123456');
    await b.call({ method: 'PUT', url: '/api/user/self', cookie: second, payload: { password: 'new-root-pass' } });
    expect((await a.call({ method: 'GET', url: '/api/user/self', cookie: second })).status).toBe(401);
  });
});
