import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockGitHub, type MockGitHub } from '../../test-support/mock-github.js';
import { startMockLark, type MockLark } from '../../test-support/mock-lark.js';
import { startMockWeChatServer, type MockWeChatServer } from '../../test-support/mock-wechat-server.js';
import { readMail, startTestSmtp, type TestSmtp } from '../../test-support/smtp.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

const GITHUB_APP = { clientId: 'Iv1.gateway', clientSecret: 'gh-secret', callbackUrl: 'https://gw.example.com/oauth/github' };
const LARK_APP = { appId: 'cli_gateway', appSecret: 'lark-secret', redirectUrls: ['https://gw.example.com/oauth/lark'] };
const WECHAT_TOKEN = 'wechat-server-token';

let github: MockGitHub;
let lark: MockLark;
let wechat: MockWeChatServer;
let smtp: TestSmtp;
let t: TestApp;
let root: string;

beforeAll(async () => {
  github = await startMockGitHub(GITHUB_APP);
  github.addUser({ id: 583231, login: 'octocat', name: 'The Octocat', email: null, emails: [{ email: 'octo@example.com', primary: true, verified: true }, { email: 'other@example.com', primary: false, verified: true }] });
  github.addUser({ id: 9001, login: 'hubber', name: null, email: 'hubber@example.com', emails: [{ email: 'hubber@example.com', primary: true, verified: true }] });
  lark = await startMockLark(LARK_APP);
  lark.addUser({ open_id: 'ou_alpha', union_id: 'on_alpha', name: '飞书用户甲', en_name: 'Alpha', email: 'alpha@corp.cn' });
  lark.addUser({ open_id: 'ou_beta', union_id: 'on_beta', name: '飞书用户乙', en_name: 'Beta', email: '' });
  wechat = await startMockWeChatServer(WECHAT_TOKEN);
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await Promise.all([github.close(), lark.close(), wechat.close(), smtp.close()]);
});
beforeEach(async () => {
  t = await createTestApp({ GITHUB_OAUTH_URL: github.url, GITHUB_API_URL: github.url, LARK_AUTH_URL: lark.url, LARK_API_URL: lark.url });
  root = await t.login('root', '123456');
  const set = (key: string, value: string) => t.ctx.options.set(key, value);
  await set('ServerAddress', 'https://gw.example.com');
  await set('GitHubClientId', GITHUB_APP.clientId);
  await set('GitHubClientSecret', GITHUB_APP.clientSecret);
  await set('GitHubOAuthEnabled', 'true');
  await set('LarkClientId', LARK_APP.appId);
  await set('LarkClientSecret', LARK_APP.appSecret);
  await set('WeChatServerAddress', wechat.url);
  await set('WeChatServerToken', WECHAT_TOKEN);
  await set('WeChatAuthEnabled', 'true');
});
afterEach(async () => {
  await t.close();
});

const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []].flat().find((c) => c.startsWith(`${name}=`))?.split(';')[0];

/** A browser: GET /api/oauth/state (keeping its cookie), the provider's page, then the callback call. */
async function signInRound(provider: 'github' | 'lark', options: { session?: string; tamper?: (state: string) => string; dropStateCookie?: boolean } = {}) {
  const stateRes = await t.app.inject({ method: 'GET', url: '/api/oauth/state', headers: options.session ? { cookie: options.session } : {} });
  const state: string = stateRes.json().data;
  const stateCookie = cookieOf(stateRes.headers['set-cookie'], 'oauth_state');
  const target = new URL(
    provider === 'github'
      ? await github.authorize({ client_id: GITHUB_APP.clientId, state })
      : await lark.authorize({ client_id: LARK_APP.appId, redirect_uri: 'https://gw.example.com/oauth/lark', state }),
  );
  expect(target.pathname).toBe(`/oauth/${provider}`);
  expect(target.searchParams.get('state')).toBe(state);
  const cookies = [options.session, options.dropStateCookie ? undefined : stateCookie].filter(Boolean).join('; ');
  const sentState = options.tamper ? options.tamper(state) : state;
  const res = await t.app.inject({ method: 'GET', url: `/api/oauth/${provider}?code=${target.searchParams.get('code')}&state=${sentState}`, headers: cookies ? { cookie: cookies } : {} });
  return { body: res.json(), session: cookieOf(res.headers['set-cookie'], 'session') };
}
const self = async (session: string) => (await t.call({ method: 'GET', url: '/api/user/self', cookie: session })).body.data;

describe('GitHub sign-in', () => {
  // covers S7-API-24, S7-API-27, S3-ENTITY-01
  it('signs up a new user when registration is open, then signs the same user in', async () => {
    github.signIn('octocat');
    const first = await signInRound('github');
    expect(first.body).toMatchObject({ success: true, message: '' });
    expect(first.body.data).toMatchObject({ username: expect.stringMatching(/^github_\d+$/), display_name: 'The Octocat', github_id: '583231', email: 'octo@example.com', role: 1 });
    expect(first.session).toBeDefined();
    expect((await self(first.session!)).username).toBe(first.body.data.username);

    const again = await signInRound('github');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await t.ctx.storage.db.selectFrom('users').select('id').where('github_id', '=', '583231').execute()).toHaveLength(1);
    // what the gateway sent GitHub: the app's credentials, and a User-Agent on the API
    const exchange = github.requests.filter((r) => r.path === '/login/oauth/access_token').at(-1)!;
    expect(exchange.body).toMatchObject({ client_id: GITHUB_APP.clientId, client_secret: GITHUB_APP.clientSecret });
  });

  it('is refused when switched off, when registration is closed, or for a banned user', async () => {
    github.signIn('hubber');
    await t.ctx.options.set('GitHubOAuthEnabled', 'false');
    expect((await signInRound('github')).body).toMatchObject({ success: false, message: '管理员未开启通过 GitHub 登录以及注册' });
    await t.ctx.options.set('GitHubOAuthEnabled', 'true');
    await t.ctx.options.set('RegisterEnabled', 'false');
    expect((await signInRound('github')).body).toMatchObject({ success: false, message: '管理员关闭了新用户注册' });
    expect(await t.ctx.storage.db.selectFrom('users').select('id').where('github_id', '=', '9001').execute()).toHaveLength(0);
    await t.ctx.options.set('RegisterEnabled', 'true');
    const created = await signInRound('github');
    expect(created.body.data.display_name).toBe('hubber');
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: created.body.data.username, action: 'disable' } });
    expect((await signInRound('github')).body).toMatchObject({ success: false, message: '用户已被封禁' });
  });

  it('refuses a state that is missing, forged, reused or from another browser', async () => {
    github.signIn('octocat');
    expect((await signInRound('github', { dropStateCookie: true })).body).toMatchObject({ success: false, message: 'state 参数无效或已过期，请重新发起登录' });
    expect((await signInRound('github', { tamper: () => 'forged-state' })).body.success).toBe(false);
    // another browser's state (someone trying to sign this browser into their account)
    const theirs = (await t.call({ method: 'GET', url: '/api/oauth/state' })).body.data;
    expect((await signInRound('github', { tamper: () => theirs })).body.success).toBe(false);
    // a state is good for one callback only
    const stateRes = await t.app.inject({ method: 'GET', url: '/api/oauth/state' });
    const state = stateRes.json().data;
    const cookie = cookieOf(stateRes.headers['set-cookie'], 'oauth_state')!;
    const code = new URL(await github.authorize({ client_id: GITHUB_APP.clientId, state })).searchParams.get('code');
    expect((await t.call({ method: 'GET', url: `/api/oauth/github?code=${code}&state=${state}`, cookie })).body.success).toBe(true);
    expect((await t.call({ method: 'GET', url: `/api/oauth/github?code=${code}&state=${state}`, cookie })).body).toMatchObject({ success: false, message: 'state 参数无效或已过期，请重新发起登录' });
  });

  it('passes on GitHub\'s refusals: a wrong client secret, an expired code', async () => {
    github.signIn('octocat');
    await t.ctx.options.set('GitHubClientSecret', 'not-the-secret');
    expect((await signInRound('github')).body).toMatchObject({ success: false, message: 'GitHub 授权失败：incorrect_client_credentials' });
    await t.ctx.options.set('GitHubClientSecret', GITHUB_APP.clientSecret);
    const stateRes = await t.app.inject({ method: 'GET', url: '/api/oauth/state' });
    const state = stateRes.json().data;
    const code = new URL(await github.authorize({ client_id: GITHUB_APP.clientId, state })).searchParams.get('code');
    github.expireCodes();
    const res = await t.call({ method: 'GET', url: `/api/oauth/github?code=${code}&state=${state}`, cookie: cookieOf(stateRes.headers['set-cookie'], 'oauth_state') });
    expect(res.body).toMatchObject({ success: false, message: 'GitHub 授权码无效或已过期，请重新登录' });
  });

  // covers S2-OAUTH-02, S6-ROLES-09
  it('binds the GitHub account to a signed-in user ("bind"), never to a second user', async () => {
    github.signIn('octocat');
    const bound = await signInRound('github', { session: root });
    expect(bound.body).toMatchObject({ success: true, message: 'bind', data: { username: 'root', github_id: '583231' } });
    expect(bound.session).toBeUndefined();
    // now GitHub signs root in
    const login = await signInRound('github');
    expect(login.body.data.username).toBe('root');

    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'ursula', password: 'password123' } });
    const ursula = await t.login('ursula', 'password123');
    expect((await signInRound('github', { session: ursula })).body).toMatchObject({ success: false, message: '该 GitHub 账户已被绑定' });
    expect((await self(ursula)).github_id).toBe('');
  });

  it('moves a user imported from one-api (GitHub login name as id) to the numeric id', async () => {
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'imported', password: 'password123' } });
    await t.ctx.storage.db.updateTable('users').set({ github_id: 'octocat' }).where('username', '=', 'imported').execute();
    github.signIn('octocat');
    expect((await signInRound('github')).body.data).toMatchObject({ username: 'imported', github_id: '583231' });
  });

  it('a new user gets the GitHub address only when nobody uses it yet', async () => {
    await t.ctx.storage.db.updateTable('users').set({ email: 'octo@example.com' }).where('username', '=', 'root').execute();
    github.signIn('octocat');
    expect((await signInRound('github')).body.data).toMatchObject({ github_id: '583231', email: '' });
  });
});

describe('Lark sign-in', () => {
  // covers S7-API-28
  it('signs up, signs in, and binds; the redirect_uri repeated to Lark is ServerAddress/oauth/lark', async () => {
    lark.signIn('ou_alpha');
    const first = await signInRound('lark');
    expect(first.body.data).toMatchObject({ username: expect.stringMatching(/^lark_\d+$/), display_name: '飞书用户甲', lark_id: 'ou_alpha', email: 'alpha@corp.cn' });
    expect((await signInRound('lark')).body.data.id).toBe(first.body.data.id);
    const exchange = lark.requests.filter((r) => r.path.endsWith('/oauth/token')).at(-1)!;
    expect(exchange.body).toMatchObject({ grant_type: 'authorization_code', client_id: LARK_APP.appId, client_secret: LARK_APP.appSecret, redirect_uri: 'https://gw.example.com/oauth/lark' });

    lark.signIn('ou_beta');
    expect((await signInRound('lark', { session: root })).body).toMatchObject({ success: true, message: 'bind', data: { username: 'root', lark_id: 'ou_beta' } });
    lark.signIn('ou_alpha');
    expect((await signInRound('lark', { session: root })).body).toMatchObject({ success: false, message: '该飞书账户已被绑定' });
  });

  it('is refused without an App ID, and when Lark refuses the exchange', async () => {
    lark.signIn('ou_alpha');
    await t.ctx.options.set('LarkClientSecret', 'wrong');
    expect((await signInRound('lark')).body).toMatchObject({ success: false, message: '飞书授权失败：The client secret is invalid.' });
    await t.ctx.options.set('ServerAddress', 'https://elsewhere.example.com');
    await t.ctx.options.set('LarkClientSecret', LARK_APP.appSecret);
    expect((await signInRound('lark')).body).toMatchObject({ success: false, message: '飞书授权失败：The redirect_uri does not match the one used for authorization.' });
    await t.ctx.options.set('LarkClientId', '');
    const stateRes = await t.app.inject({ method: 'GET', url: '/api/oauth/state' });
    const res = await t.call({ method: 'GET', url: `/api/oauth/lark?code=x&state=${stateRes.json().data}`, cookie: cookieOf(stateRes.headers['set-cookie'], 'oauth_state') });
    expect(res.body).toMatchObject({ success: false, message: '管理员未开启通过飞书登录以及注册' });
  });
});

describe('WeChat sign-in through a WeChat Server', () => {
  const wechatLogin = (code: string) => t.app.inject({ method: 'GET', url: `/api/oauth/wechat?code=${code}` });

  // covers S7-API-29, S2-LOGIN-11
  it('signs up and signs in with the code the official account sent; the code is single use and valid 3 minutes', async () => {
    const code = wechat.issueCode('wx-openid-1');
    const first = await wechatLogin(code);
    expect(first.json()).toMatchObject({ success: true, data: { username: expect.stringMatching(/^wechat_\d+$/), display_name: '微信用户', wechat_id: 'wx-openid-1' } });
    expect(cookieOf(first.headers['set-cookie'], 'session')).toBeDefined();
    expect(wechat.requests.at(-1)!.headers.authorization).toBe(WECHAT_TOKEN);
    expect((await wechatLogin(code)).json()).toMatchObject({ success: false, message: '验证码错误或已过期' });
    expect((await wechatLogin(wechat.issueCode('wx-openid-1'))).json().data.id).toBe(first.json().data.id);
    expect((await wechatLogin(wechat.issueCode('wx-openid-1', 181))).json()).toMatchObject({ success: false, message: '验证码错误或已过期' });
    expect((await wechatLogin(wechat.issueCode('wx-openid-1', 170))).json().success).toBe(true);
  });

  it('is refused when switched off or with a wrong WeChat Server token', async () => {
    await t.ctx.options.set('WeChatServerToken', 'wrong');
    expect((await wechatLogin(wechat.issueCode('wx-openid-2'))).json()).toMatchObject({ success: false, message: '无权进行此操作，token 无效' });
    await t.ctx.options.set('WeChatAuthEnabled', 'false');
    expect((await wechatLogin(wechat.issueCode('wx-openid-2'))).json()).toMatchObject({ success: false, message: '管理员未开启通过微信登录以及注册' });
  });

  // covers S7-API-30
  it('binds WeChat to the signed-in user, once', async () => {
    const bind = (session: string | undefined, code: string) => t.call({ method: 'GET', url: `/api/oauth/wechat/bind?code=${code}`, cookie: session });
    expect((await bind(undefined, wechat.issueCode('wx-openid-3'))).status).toBe(401);
    expect((await bind(root, wechat.issueCode('wx-openid-3'))).body).toEqual({ success: true, message: '' });
    expect((await self(root)).wechat_id).toBe('wx-openid-3');
    expect((await wechatLogin(wechat.issueCode('wx-openid-3'))).json().data.username).toBe('root');
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'victor', password: 'password123' } });
    const victor = await t.login('victor', 'password123');
    expect((await bind(victor, wechat.issueCode('wx-openid-3'))).body).toMatchObject({ success: false, message: '该微信账户已被绑定' });
  });
});

describe('e-mail binding', () => {
  // covers S7-API-31
  it('binds the address the mailed code proves; refuses a wrong code, a used one, and an address in use', async () => {
    await t.ctx.options.set('SMTPServer', '127.0.0.1');
    await t.ctx.options.set('SMTPPort', String(smtp.port));
    await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
    const bind = (session: string | undefined, email: string, code: string) =>
      t.call({ method: 'GET', url: `/api/oauth/email/bind?email=${encodeURIComponent(email)}&code=${code}`, cookie: session });
    expect((await t.call({ method: 'GET', url: '/api/verification?email=root%40example.com' })).body.success).toBe(true);
    const code = /验证码为：([A-Z0-9]{6})/.exec(smtp.mails.map(readMail).filter((m) => m.to.includes('root@example.com')).at(-1)!.text)![1];
    expect((await bind(undefined, 'root@example.com', code)).status).toBe(401);
    expect((await bind(root, 'root@example.com', '')).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
    expect((await bind(root, 'root@example.com', 'WRONG1')).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
    expect((await bind(root, 'root@example.com', code)).body).toEqual({ success: true, message: '' });
    expect((await self(root)).email).toBe('root@example.com');
    expect((await bind(root, 'root@example.com', code)).body.success).toBe(false);

    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'wendy', password: 'password123' } });
    const wendy = await t.login('wendy', 'password123');
    await t.ctx.shared.set('email-code:verify:root@example.com', 'ABCDEF', 600);
    expect((await bind(wendy, 'root@example.com', 'ABCDEF')).body).toMatchObject({ success: false, message: '邮箱地址已被占用' });
  });
});
