import { providerInfo } from '@model-relay/contract';
import { errorMessageOf } from '../openai-compatible/adapter.js';
import { idsOfList, type ErrorVerdict, type ProviderAdapter } from '../types.js';

/** The API version this relay speaks (https://docs.anthropic.com/en/api/versioning). */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic Claude (type 14): Messages API with `x-api-key` and `anthropic-version`; a client's
 * `anthropic-beta` header is forwarded so beta features (prompt-caching TTLs, interleaved thinking...) reach it.
 * https://docs.anthropic.com/en/api/messages
 */
export const anthropicAdapter: ProviderAdapter = {
  id: 'anthropic',
  channelTypes: [14],
  dialects: () => ['anthropic'],
  supports: (endpoint) => endpoint === 'chat',
  build(input) {
    const base = input.channel.baseUrl || providerInfo(14).baseUrl;
    const headers: Record<string, string> = {
      'x-api-key': input.channel.key,
      'anthropic-version': ANTHROPIC_VERSION,
      'content-type': 'application/json',
    };
    if (input.forwardHeaders?.['anthropic-beta']) headers['anthropic-beta'] = input.forwardHeaders['anthropic-beta'];
    return { url: `${base}/v1/messages`, method: 'POST', headers, body: JSON.stringify(input.body) };
  },
  classifyError: classifyAnthropicError,
  // https://docs.anthropic.com/en/api/models-list
  modelList: (channel) => ({
    url: `${channel.baseUrl || providerInfo(14).baseUrl}/v1/models?limit=1000`,
    headers: { 'x-api-key': channel.key, 'anthropic-version': ANTHROPIC_VERSION },
    read: idsOfList,
  }),
};

/**
 * Anthropic's errors (https://docs.anthropic.com/en/api/errors): 429 rate limits, 529 overload, timeouts and 5xx
 * are worth another channel, and so are a dead key (401), an account out of credit (402) and a key without
 * access to this model (403); only the first two say the channel itself is unusable.
 */
export function classifyAnthropicError(status: number, body: string): ErrorVerdict {
  const message = errorMessageOf(body) ?? `upstream returned HTTP ${status}`;
  const retry = status === 429 || status >= 500 || status === 401 || status === 402 || status === 403 || status === 408;
  return { retry, disableChannel: status === 401 || status === 402, message };
}
