import { opaque, startMockServer, type MockServer } from './mock-http.js';

/** A GitHub account the mock knows. */
export interface MockGitHubUser {
  id: number;
  login: string;
  name: string | null;
  /** The public address shown on the profile (null when private, as GitHub does). */
  email: string | null;
  /** Every address of the account, listed at /user/emails (needs scope user:email). */
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

export interface MockGitHub extends MockServer {
  /** Adds an account; `signIn` picks the one "logged in at github.com" who approves the next authorisation. */
  addUser(user: MockGitHubUser): void;
  signIn(login: string): void;
  /**
   * What a browser does at the authorize page: returns the callback URL GitHub redirects to (with code and
   * state), or the refusal page's status. The approval is given by the signed-in account.
   */
  authorize(params: { client_id: string; state: string; scope?: string }): Promise<string>;
  /** Ages every issued code (GitHub's codes expire after 10 minutes). */
  expireCodes(): void;
  /** Changes the app's registered callback URL (as in the app's settings on GitHub). */
  setCallbackUrl(url: string): void;
}

const CODE_TTL_MS = 10 * 60 * 1000;

/**
 * GitHub's OAuth web flow for one OAuth App (client id + secret + registered callback URL), as documented at
 * https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps, and the REST
 * endpoints /user and /user/emails. Checks what GitHub checks: the client id at authorize, id + secret +
 * single-use unexpired code at the token endpoint, the bearer token and a User-Agent on the API.
 */
export async function startMockGitHub(registered: { clientId: string; clientSecret: string; callbackUrl: string }): Promise<MockGitHub> {
  const app = { ...registered };
  const users = new Map<string, MockGitHubUser>();
  let signedIn: string | undefined;
  const codes = new Map<string, { login: string; scope: string; issuedAt: number; redirectUri?: string }>();
  const tokens = new Map<string, { login: string; scope: string }>();

  const server = await startMockServer((req) => {
    if (req.method === 'GET' && req.path === '/login/oauth/authorize') {
      if (req.query.get('client_id') !== app.clientId) return { status: 404, body: 'Not Found' };
      const redirectUri = req.query.get('redirect_uri') ?? undefined;
      // A redirect_uri, when given, must lie under the callback URL registered for the app.
      if (redirectUri && !redirectUri.startsWith(app.callbackUrl)) return { status: 400, body: 'The redirect_uri MUST match the registered callback URL for this application.' };
      if (!signedIn) return { status: 401, body: 'Sign in to GitHub' };
      const code = opaque('', 20);
      codes.set(code, { login: signedIn, scope: req.query.get('scope') ?? '', issuedAt: Date.now(), redirectUri });
      const target = new URL(redirectUri ?? app.callbackUrl);
      target.searchParams.set('code', code);
      if (req.query.get('state') !== null) target.searchParams.set('state', req.query.get('state')!);
      return { status: 302, headers: { location: target.toString() } };
    }
    if (req.method === 'POST' && req.path === '/login/oauth/access_token') {
      const wantsJson = String(req.headers.accept ?? '').includes('json');
      const answer = (fields: Record<string, string>) =>
        wantsJson ? { body: fields } : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() };
      const { client_id, client_secret, code, redirect_uri } = req.body as Record<string, string | undefined>;
      if (client_id !== app.clientId || client_secret !== app.clientSecret) {
        return answer({ error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' });
      }
      const grant = code ? codes.get(code) : undefined;
      if (grant) codes.delete(code!);
      if (!grant || Date.now() - grant.issuedAt > CODE_TTL_MS) {
        return answer({ error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      }
      if (redirect_uri && grant.redirectUri && redirect_uri !== grant.redirectUri) {
        return answer({ error: 'redirect_uri_mismatch', error_description: 'The redirect_uri MUST match the registered callback URL for this application.' });
      }
      const token = opaque('gho_', 36);
      tokens.set(token, { login: grant.login, scope: grant.scope });
      return answer({ access_token: token, token_type: 'bearer', scope: grant.scope });
    }
    if (req.method === 'GET' && (req.path === '/user' || req.path === '/user/emails')) {
      if (!req.headers['user-agent']) return { status: 403, body: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.' };
      const auth = String(req.headers.authorization ?? '');
      const grant = tokens.get(auth.replace(/^(Bearer|token)\s+/i, ''));
      if (!grant) return { status: 401, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } };
      const user = users.get(grant.login)!;
      if (req.path === '/user') return { body: { login: user.login, id: user.id, name: user.name, email: user.email, type: 'User' } };
      if (!grant.scope.split(/[ ,]/).includes('user:email')) return { status: 404, body: { message: 'Not Found' } };
      return { body: user.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })) };
    }
    return { status: 404, body: { message: 'Not Found' } };
  });

  return {
    ...server,
    addUser: (user) => void users.set(user.login, user),
    signIn: (login) => {
      signedIn = login;
    },
    async authorize(params) {
      const response = await fetch(`${server.url}/login/oauth/authorize?${new URLSearchParams({ scope: 'user:email', ...params })}`, { redirect: 'manual' });
      if (response.status !== 302) throw new Error(`authorize answered ${response.status}: ${await response.text()}`);
      return response.headers.get('location')!;
    },
    setCallbackUrl: (url) => {
      app.callbackUrl = url;
    },
    expireCodes: () => {
      for (const grant of codes.values()) grant.issuedAt -= CODE_TTL_MS + 1;
    },
  };
}
