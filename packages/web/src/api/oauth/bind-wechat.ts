import { api } from '../../lib/api';

/** GET /api/oauth/wechat/bind?code: links a WeChat account to the caller; the envelope. */
export const bindWechat = (code: string) => api(`/api/oauth/wechat/bind?code=${encodeURIComponent(code)}`);
