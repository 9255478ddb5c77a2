import { fail } from '../../lib/errors.js';
import { field, requestJson, type JsonAnswer } from '../http-json.js';

/** The Lark (Feishu) user behind an authorisation code. */
export interface LarkAccount {
  /** open_id: the user's id within this app. */
  id: string;
  name: string;
  email: string;
}

/**
 * Lark's web-app sign-in (https://open.feishu.cn/document/common-capabilities/sso/web-application-end-user-consent/guide):
 * the browser goes to {auth}/open-apis/authen/v1/authorize?client_id&redirect_uri&state, comes back with a code,
 * the server trades it at {api}/open-apis/authen/v2/oauth/token (RFC 6749, JSON body) and reads the user at
 * {api}/open-apis/authen/v1/user_info. Every answer carries `code` (0 = success).
 */
export class LarkClient {
  constructor(private readonly urls: { auth: string; api: string }) {}

  /** Where the console opens the authorisation page (it adds client_id, redirect_uri and state). */
  get authorizeUrl(): string {
    return `${this.urls.auth}/open-apis/authen/v1/authorize`;
  }

  async accountFor(code: string, appId: string, appSecret: string, redirectUri: string): Promise<LarkAccount> {
    const token = await this.send(`${this.urls.api}/open-apis/authen/v2/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ grant_type: 'authorization_code', client_id: appId, client_secret: appSecret, code, redirect_uri: redirectUri }),
    });
    const accessToken = field(token.body, 'access_token');
    if (token.status !== 200 || field(token.body, 'code') !== '0' || !accessToken) {
      const reason = field(token.body, 'error_description') || field(token.body, 'error') || `HTTP ${token.status}`;
      return fail(`飞书授权失败：${reason}`);
    }
    const info = await this.send(`${this.urls.api}/open-apis/authen/v1/user_info`, { headers: { authorization: `Bearer ${accessToken}` } });
    const data = (info.body as { data?: unknown } | undefined)?.data;
    if (info.status !== 200 || field(info.body, 'code') !== '0' || !field(data, 'open_id')) {
      return fail(`获取飞书用户信息失败：${field(info.body, 'msg') || `HTTP ${info.status}`}`);
    }
    return {
      id: field(data, 'open_id'),
      name: field(data, 'name') || field(data, 'en_name'),
      email: (field(data, 'email') || field(data, 'enterprise_email')).toLowerCase(),
    };
  }

  private async send(url: string, options: Parameters<typeof requestJson>[1]): Promise<JsonAnswer> {
    try {
      return await requestJson(url, options);
    } catch {
      return fail('无法连接飞书，请稍后重试');
    }
  }
}
