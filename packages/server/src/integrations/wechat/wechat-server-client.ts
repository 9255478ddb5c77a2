import { fail } from '../../lib/errors.js';
import { field, requestJson } from '../http-json.js';

/**
 * A WeChat Server (the companion service of one-api, https://github.com/songquanpeng/wechat-server): the user
 * follows the official account and sends it "验证码"; it replies with a short-lived code. The gateway asks
 * {address}/api/wechat/user?code= (header Authorization: the server's token) which WeChat user that code
 * belongs to; the answer is the usual envelope with the user's openid as data.
 */
export class WeChatServerClient {
  async openIdFor(address: string, token: string, code: string): Promise<string> {
    if (!address) return fail('管理员未配置 WeChat Server 服务器地址');
    let answer;
    try {
      answer = await requestJson(`${address.replace(/\/+$/, '')}/api/wechat/user?code=${encodeURIComponent(code)}`, {
        headers: { authorization: token },
      });
    } catch {
      return fail('无法连接 WeChat Server，请稍后重试');
    }
    const body = answer.body as { success?: unknown; message?: unknown } | undefined;
    if (answer.status !== 200 || body?.success !== true) {
      return fail(typeof body?.message === 'string' && body.message ? body.message : `WeChat Server 验证失败（HTTP ${answer.status}）`);
    }
    const openId = field(body, 'data');
    if (!openId) return fail('验证码错误或已过期');
    return openId;
  }
}
