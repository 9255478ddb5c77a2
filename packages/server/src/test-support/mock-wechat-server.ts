import { startMockServer, type MockServer } from './mock-http.js';

export interface MockWeChatServer extends MockServer {
  /**
   * What happens when a WeChat user sends "验证码" to the official account: the server replies with a code
   * for that user. `ageSeconds` backdates it (to test expiry).
   */
  issueCode(openId: string, ageSeconds?: number): string;
  /** URL of the official account's QR code image this mock serves. */
  qrCodeUrl: string;
}

/** How long a code from the official account is valid (the console tells the user: three minutes). */
export const WECHAT_CODE_TTL_SECONDS = 180;

/** A 1x1 PNG, standing in for the official account's QR code. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * A WeChat Server (https://github.com/songquanpeng/wechat-server): GET /api/wechat/user?code= with header
 * `Authorization: <token>` answers {success, message, data: openid}. Checks the token, and that the code was
 * issued, is unexpired and unused.
 */
export async function startMockWeChatServer(token: string): Promise<MockWeChatServer> {
  const codes = new Map<string, { openId: string; issuedAt: number }>();
  const server = await startMockServer((req) => {
    if (req.method === 'GET' && req.path === '/api/wechat/user') {
      if (req.headers.authorization !== token) return { body: { success: false, message: '无权进行此操作，token 无效' } };
      const code = req.query.get('code') ?? '';
      const entry = codes.get(code);
      if (entry) codes.delete(code);
      if (!entry || Date.now() - entry.issuedAt > WECHAT_CODE_TTL_SECONDS * 1000) return { body: { success: false, message: '验证码错误或已过期' } };
      return { body: { success: true, message: '', data: entry.openId } };
    }
    if (req.method === 'GET' && req.path === '/qrcode.png') return { headers: { 'content-type': 'image/png' }, body: PNG };
    return { status: 404, body: { success: false, message: 'not found' } };
  });
  return {
    ...server,
    qrCodeUrl: `${server.url}/qrcode.png`,
    issueCode(openId, ageSeconds = 0) {
      const code = String(100000 + Math.floor(Math.random() * 900000));
      codes.set(code, { openId, issuedAt: Date.now() - ageSeconds * 1000 });
      return code;
    },
  };
}
