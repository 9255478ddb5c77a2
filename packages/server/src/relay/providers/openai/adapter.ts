import type { AdapterInput, ProviderAdapter, UpstreamRequest, Usage } from '../types.js';

/** Default endpoints of the OpenAI-dialect channel types (the type numbers of the spec's catalogue). */
const DEFAULT_BASE_URLS: Record<number, string> = {
  1: 'https://api.openai.com',
  2: 'https://oa.api2d.net',
  4: 'https://api.closeai-proxy.xyz',
  5: 'https://api.openai-sb.com',
  6: 'https://api.openaimax.com',
  7: 'https://api.ohmygpt.com',
  9: 'https://api.caipacity.com',
  10: 'https://api.aiproxy.io',
  12: 'https://api.api2gpt.com',
  13: 'https://api.aigc2d.com',
  19: 'https://ai.360.cn',
  20: 'https://openrouter.ai/api',
  22: 'https://fastgpt.run/api/openapi',
  25: 'https://api.moonshot.cn',
  26: 'https://api.baichuan-ai.com',
  27: 'https://api.minimax.chat',
  28: 'https://api.mistral.ai',
  29: 'https://api.groq.com/openai',
  30: 'http://localhost:11434',
  31: 'https://api.lingyiwanwu.com',
  32: 'https://api.stepfun.com',
  36: 'https://api.deepseek.com',
  39: 'https://api.together.xyz',
  40: 'https://ark.cn-beijing.volces.com/api/v3',
  41: 'https://api.novita.ai/v3/openai',
};

/** Upstreams whose chat path has no /v1 segment after the base URL (their base already carries the version). */
const NO_V1_PREFIX = new Set([40, 41]);

/** OpenAI error statuses that mean the key or the account is dead, not a passing fault. */
const DEAD_KEY_HINTS = ['invalid_api_key', 'account_deactivated', 'insufficient_quota', 'billing_not_active', 'Incorrect API key'];

/**
 * Every upstream that speaks OpenAI's wire format: OpenAI itself, the proxy types, the custom channel and the
 * OpenAI-compatible vendors. The request passes through as the client sent it (model rewritten), with
 * `stream_options.include_usage` added to streams so billing sees real usage.
 */
export const openAiAdapter: ProviderAdapter = {
  channelTypes: [1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 19, 20, 22, 25, 26, 27, 28, 29, 30, 31, 32, 36, 39, 40, 41, 43],

  defaultBaseUrl(type) {
    return DEFAULT_BASE_URLS[type] ?? DEFAULT_BASE_URLS[1];
  },

  buildRequest(input: AdapterInput): UpstreamRequest {
    const base = input.channel.baseUrl || this.defaultBaseUrl(input.channel.type);
    const path = NO_V1_PREFIX.has(input.channel.type) ? input.path.replace(/^\/v1/, '') : input.path;
    return { url: `${base}${path}`, method: 'POST', ...bodyOf(input, { authorization: `Bearer ${input.channel.key}` }) };
  },

  usageFromResponse: readUsage,

  readStreamEvent(data) {
    if (data === '[DONE]') return { done: true };
    let event: { usage?: unknown; choices?: Array<{ delta?: { content?: unknown }; text?: unknown }> };
    try {
      event = JSON.parse(data);
    } catch {
      return {};
    }
    const usage = readUsage(event);
    const choice = event.choices?.[0];
    const content = choice?.delta?.content ?? choice?.text;
    return { usage, text: typeof content === 'string' ? content : undefined };
  },

  classifyError(status, body) {
    const message = errorMessageOf(body) ?? `upstream returned HTTP ${status}`;
    const deadKey = status === 401 || DEAD_KEY_HINTS.some((hint) => body.includes(hint));
    const retry = status === 429 || status >= 500 || status === 401 || status === 403 || status === 408;
    return { retry, disableChannel: deadKey, message };
  },
};

/** JSON bodies are re-serialised (model rewritten, usage requested); uploads pass through byte for byte. */
export function bodyOf(input: AdapterInput, authHeaders: Record<string, string>): Pick<UpstreamRequest, 'body' | 'headers'> {
  const headers: Record<string, string> = { ...authHeaders };
  if (input.rawBody) {
    headers['content-type'] = input.contentType ?? 'application/octet-stream';
    return { headers, body: input.rawBody };
  }
  const body = { ...(input.body ?? {}) };
  if (input.stream && (input.mode === 'chat' || input.mode === 'completions')) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  }
  if (input.maxOutputTokens !== undefined && (input.mode === 'chat' || input.mode === 'completions')) capOutput(body, input.maxOutputTokens, input.upstreamModel);
  headers['content-type'] = 'application/json';
  return { headers, body: JSON.stringify(body) };
}

/**
 * Caps the answer's length. OpenAI's reasoning models refuse `max_tokens` and take `max_completion_tokens`,
 * which the older OpenAI-compatible vendors do not know; use the field the client used, else the one the
 * model understands.
 */
function capOutput(body: Record<string, unknown>, cap: number, model: string): void {
  const modern = body.max_completion_tokens !== undefined || /^(o\d|gpt-5)/.test(model);
  const field = modern ? 'max_completion_tokens' : 'max_tokens';
  const current = Number(body[field] ?? body.max_tokens ?? Infinity);
  body[field] = Math.min(cap, Number.isFinite(current) && current > 0 ? current : cap);
  if (modern) delete body.max_tokens;
}

export function readUsage(body: unknown): Usage | undefined {
  const usage = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } } | undefined)?.usage;
  if (!usage || typeof usage !== 'object') return undefined;
  if (usage.prompt_tokens === undefined && usage.completion_tokens === undefined) {
    const total = Number(usage.total_tokens);
    return Number.isFinite(total) && total > 0 ? { prompt_tokens: 0, completion_tokens: 0, total_only: total } : undefined;
  }
  const prompt = Number(usage.prompt_tokens ?? 0);
  const completion = Number(usage.completion_tokens ?? (Number(usage.total_tokens ?? 0) - prompt));
  if (!Number.isFinite(prompt) || !Number.isFinite(completion)) return undefined;
  return { prompt_tokens: Math.max(0, prompt), completion_tokens: Math.max(0, completion) };
}

export function errorMessageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (parsed.error && typeof parsed.error.message === 'string') return parsed.error.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    /* not JSON */
  }
  return body ? body.slice(0, 300) : undefined;
}
