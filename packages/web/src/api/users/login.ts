import type { LoginInput } from '@model-relay/contract';
import type { UserDto } from '@model-relay/contract';
import { api } from '../../lib/api';

/** POST /api/user/login: the envelope (the screen shows refusals and stores the user it answers). */
export const login = (credentials: LoginInput) => api<UserDto>('/api/user/login', { method: 'POST', body: credentials });
