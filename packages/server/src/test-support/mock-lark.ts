import { opaque, startMockServer, type MockServer } from './mock-http.js';

/** A Lark (Feishu) user the mock knows. */
export interface MockLarkUser {
  open_id: string;
  union_id: string;
  name: string;
  en_name: string;
  email: string;
}

export interface MockLark extends MockServer {
  addUser(user: MockLarkUser): void;
  /** The user "signed in to Lark" who approves the next authorisation. */
  signIn(openId: string): void;
  /** What the browser does at the authorisation page: returns the redirect target (with code and state). */
  authorize(params: { client_id: string; redirect_uri: string; state: string }): Promise<string>;
  /** Adds a URL to the app's allowed redirect URLs (as in the app's security settings). */
  allowRedirectUrl(url: string): void;
}

/** Authorisation codes are valid 5 minutes and once (Lark's documentation). */
const CODE_TTL_MS = 5 * 60 * 1000;

/**
 * Lark's web-app sign-in for one app (App ID + App Secret + allowed redirect URLs), as documented at
 * https://open.feishu.cn/document/common-capabilities/sso/api/obtain-oauth-code,
 * .../authentication-management/access-token/get-user-access-token and .../authen-v1/user_info/get:
 * every JSON answer carries `code` (0 = success); token errors follow RFC 6749 (`error`, `error_description`).
 * Checks the app id at authorize, the redirect URL against the allowed list, and id + secret + single-use
 * unexpired code + the same redirect_uri at the token endpoint.
 */
export async function startMockLark(registered: { appId: string; appSecret: string; redirectUrls: string[] }): Promise<MockLark> {
  const app = { ...registered, redirectUrls: [...registered.redirectUrls] };
  const users = new Map<string, MockLarkUser>();
  let signedIn: string | undefined;
  const codes = new Map<string, { openId: string; redirectUri: string; issuedAt: number }>();
  const tokens = new Map<string, string>();

  const server = await startMockServer((req) => {
    if (req.method === 'GET' && req.path === '/open-apis/authen/v1/authorize') {
      const redirectUri = req.query.get('redirect_uri') ?? '';
      if (req.query.get('client_id') !== app.appId) return { status: 400, body: 'invalid client_id' };
      if (!app.redirectUrls.includes(redirectUri)) return { status: 400, body: 'redirect_uri 不在应用的重定向 URL 列表中 (20029)' };
      if (!signedIn) return { status: 401, body: '请登录飞书' };
      const code = opaque('', 32);
      codes.set(code, { openId: signedIn, redirectUri, issuedAt: Date.now() });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      if (req.query.get('state') !== null) target.searchParams.set('state', req.query.get('state')!);
      return { status: 302, headers: { location: target.toString() } };
    }
    if (req.method === 'POST' && req.path === '/open-apis/authen/v2/oauth/token') {
      const refuse = (code: number, error: string, description: string) => ({ status: 400, body: { code, error, error_description: description } });
      const { grant_type, client_id, client_secret, code, redirect_uri } = req.body as Record<string, string | undefined>;
      if (!String(req.headers['content-type'] ?? '').includes('application/json')) return refuse(20001, 'invalid_request', 'Content-Type must be application/json');
      if (grant_type !== 'authorization_code') return refuse(20001, 'unsupported_grant_type', 'grant_type must be authorization_code');
      if (client_id !== app.appId || client_secret !== app.appSecret) return refuse(20002, 'invalid_client', 'The client secret is invalid.');
      const grant = code ? codes.get(code) : undefined;
      if (grant) codes.delete(code!);
      if (!grant) return refuse(20003, 'invalid_grant', 'The authorization code is not found.');
      if (Date.now() - grant.issuedAt > CODE_TTL_MS) return refuse(20004, 'invalid_grant', 'The authorization code has expired.');
      if (redirect_uri !== grant.redirectUri) return refuse(20071, 'invalid_grant', 'The redirect_uri does not match the one used for authorization.');
      const token = opaque('u-', 40);
      tokens.set(token, grant.openId);
      return { body: { code: 0, access_token: token, expires_in: 7200, token_type: 'Bearer', scope: '' } };
    }
    if (req.method === 'GET' && req.path === '/open-apis/authen/v1/user_info') {
      const openId = tokens.get(String(req.headers.authorization ?? '').replace(/^Bearer\s+/, ''));
      if (!openId) return { status: 401, body: { code: 99991668, msg: 'Invalid access token for authorization. Please make a request with token attached.' } };
      const user = users.get(openId)!;
      return { body: { code: 0, msg: 'success', data: { ...user, avatar_url: '', tenant_key: 'tenant', user_id: '', mobile: '' } } };
    }
    return { status: 404, body: { code: 404, msg: 'not found' } };
  });

  return {
    ...server,
    addUser: (user) => void users.set(user.open_id, user),
    allowRedirectUrl: (url) => void app.redirectUrls.push(url),
    signIn: (openId) => {
      signedIn = openId;
    },
    async authorize(params) {
      const response = await fetch(`${server.url}/open-apis/authen/v1/authorize?${new URLSearchParams({ response_type: 'code', ...params })}`, { redirect: 'manual' });
      if (response.status !== 302) throw new Error(`authorize answered ${response.status}: ${await response.text()}`);
      return response.headers.get('location')!;
    },
  };
}
