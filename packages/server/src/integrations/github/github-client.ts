import { fail } from '../../lib/errors.js';
import { field, requestJson, type JsonAnswer } from '../http-json.js';

/** The GitHub account behind an OAuth code. */
export interface GitHubAccount {
  /** GitHub's numeric user id (stable across renames), as a string. */
  id: string;
  login: string;
  name: string;
  /** The primary verified address, or '' when GitHub gave none. */
  email: string;
}

/**
 * GitHub's OAuth web flow for an OAuth App (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps):
 * the browser is sent to {oauth}/login/oauth/authorize?client_id&state&scope, GitHub sends it back with a
 * code, the server trades the code at {oauth}/login/oauth/access_token and reads the user from the REST API.
 */
export class GitHubClient {
  constructor(private readonly urls: { oauth: string; api: string }) {}

  /** Where the console opens the authorisation page (it adds client_id, state and scope=user:email). */
  get authorizeUrl(): string {
    return `${this.urls.oauth}/login/oauth/authorize`;
  }

  /** Trades an authorisation code for the user's account. Refusals become Chinese user-facing errors. */
  async accountFor(code: string, clientId: string, clientSecret: string): Promise<GitHubAccount> {
    const token = await this.exchangeCode(code, clientId, clientSecret);
    const user = await this.call(`${this.urls.api}/user`, token);
    if (user.status !== 200 || !field(user.body, 'id')) return fail(`获取 GitHub 用户信息失败（HTTP ${user.status}）`);
    let email = field(user.body, 'email');
    if (!email) email = await this.primaryEmail(token);
    return { id: field(user.body, 'id'), login: field(user.body, 'login'), name: field(user.body, 'name'), email: email.toLowerCase() };
  }

  private async exchangeCode(code: string, clientId: string, clientSecret: string): Promise<string> {
    // GitHub answers form-encoded unless asked for JSON; refusals come as HTTP 200 with an "error" field.
    const answer = await this.send(`${this.urls.oauth}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, code }),
    });
    const error = field(answer.body, 'error');
    if (error) return fail(error === 'bad_verification_code' ? 'GitHub 授权码无效或已过期，请重新登录' : `GitHub 授权失败：${error}`);
    const token = field(answer.body, 'access_token');
    if (answer.status !== 200 || !token) return fail(`GitHub 授权失败（HTTP ${answer.status}）`);
    return token;
  }

  /** A private address is not in /user; with scope user:email it is listed at /user/emails. */
  private async primaryEmail(token: string): Promise<string> {
    const answer = await this.call(`${this.urls.api}/user/emails`, token);
    if (answer.status !== 200 || !Array.isArray(answer.body)) return '';
    const entries = answer.body as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>;
    const primary = entries.find((e) => e.primary === true && e.verified === true && typeof e.email === 'string');
    return typeof primary?.email === 'string' ? primary.email : '';
  }

  private call(url: string, token: string): Promise<JsonAnswer> {
    return this.send(url, {
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}`, 'user-agent': USER_AGENT, 'x-github-api-version': '2022-11-28' },
    });
  }

  private async send(url: string, options: Parameters<typeof requestJson>[1]): Promise<JsonAnswer> {
    try {
      return await requestJson(url, options);
    } catch {
      return fail('无法连接 GitHub，请稍后重试');
    }
  }
}

/** GitHub's REST API refuses requests without a User-Agent. */
const USER_AGENT = 'Model-Relay';
