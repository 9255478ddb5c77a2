import type { UserDto } from '@model-relay/contract';
import { api } from '../../lib/api';

/** GET /api/oauth/wechat?code: signs in with a WeChat verification code; the envelope's data is the user. */
export const signInWithWechat = (code: string) => api<UserDto>(`/api/oauth/wechat?code=${encodeURIComponent(code)}`);
