import type { OptionUpdate } from '@model-relay/contract';
import { api } from '../../lib/api';

/** PUT /api/option/: saves one option; the envelope (a refusal's message is shown). */
export const updateOption = (key: string, value: string) => api('/api/option/', { method: 'PUT', body: { key, value } satisfies OptionUpdate });
