import { ChannelType, providerInfo } from '@model-relay/contract';
import { argumentsObject, badRequest, isRecord, newId, nowSeconds, parseEvent, UpstreamStreamError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import { classifyOpenAiError, openAiBody } from '../openai-compatible/adapter.js';
import { idsOfList, type BuildInput, type ChannelTarget, type ProviderAdapter, type UpstreamRequest, type VendorCodec } from '../types.js';
import { flatMap } from '../../../lib/arrays.js';
import { collectText, NO_MEDIA } from '../../dialects/media.js';
import { float32Base64 } from '../embeddings.js';

/**
 * Ollama (type 30), https://github.com/ollama/ollama/blob/main/docs/api.md. A channel whose base URL ends in `/v1`
 * uses Ollama's OpenAI-compatible API under it; any other base URL (the catalogue's http://localhost:11434) speaks
 * Ollama's own API: `/api/chat` with its newline-delimited JSON stream and `/api/embed`, read back by the codec.
 * Model discovery reads `/api/tags`.
 */
export const ollamaAdapter: ProviderAdapter = {
  id: 'ollama',
  channelTypes: [ChannelType.Ollama],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings',

  build(input: BuildInput): UpstreamRequest {
    const base = baseOf(input.channel);
    const auth: Record<string, string> = input.channel.key ? { authorization: `Bearer ${input.channel.key}` } : {};
    if (compatible(input.channel)) return { url: `${base}${input.path.replace(/^\/v1/, '')}`, method: 'POST', ...openAiBody(input, auth) };
    if (Buffer.isBuffer(input.body)) throw badRequest('Ollama 渠道不支持此接口');
    const body = input.endpoint === 'embeddings' ? embedBody(input.body, input.model) : chatBody(input.body, input.model, input.stream);
    return { url: `${base}/api/${input.endpoint === 'embeddings' ? 'embed' : 'chat'}`, method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) };
  },

  codec: (channel, model, body) => (compatible(channel) ? undefined : nativeCodec(model, body?.encoding_format === 'base64')),
  classifyError: classifyOpenAiError,
  // /api/tags lists the models pulled on this Ollama (https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models)
  modelList: (channel) => ({
    url: compatible(channel) ? `${baseOf(channel)}/models` : `${baseOf(channel)}/api/tags`,
    headers: (channel.key ? { authorization: `Bearer ${channel.key}` } : {}) as Record<string, string>,
    read: (json) => (compatible(channel) ? idsOfList(json) : namesOf((json as { models?: unknown })?.models)),
  }),
};

const namesOf = (list: unknown): string[] => (Array.isArray(list) ? flatMap(list, (m) => (typeof (m as { name?: unknown })?.name === 'string' ? [(m as { name: string }).name] : [])) : []);

const baseOf = (channel: ChannelTarget) => (channel.baseUrl || providerInfo(ChannelType.Ollama).baseUrl).replace(/\/+$/, '');
const compatible = (channel: ChannelTarget) => /\/v1$/.test(baseOf(channel));

/** OpenAI's sampling fields under the names of Ollama's `options`. */
const OPTIONS: Array<[string, string]> = [
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['seed', 'seed'],
  ['frequency_penalty', 'frequency_penalty'],
  ['presence_penalty', 'presence_penalty'],
  ['stop', 'stop'],
];

/** An OpenAI chat body as Ollama's /api/chat body. */
export function chatBody(body: Record<string, unknown>, model: string, stream: boolean): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [from, to] of OPTIONS) if (body[from] !== undefined && body[from] !== null) options[to] = body[from];
  const limit = body.max_completion_tokens ?? body.max_tokens;
  if (typeof limit === 'number') options.num_predict = limit;
  const out: Record<string, unknown> = { model, messages: (Array.isArray(body.messages) ? body.messages : []).map(message), stream };
  if (Object.keys(options).length > 0) out.options = options;
  if (Array.isArray(body.tools) && body.tools.length > 0) out.tools = body.tools;
  const format = isRecord(body.response_format) ? body.response_format : undefined;
  if (format?.type === 'json_object') out.format = 'json';
  else if (format?.type === 'json_schema' && isRecord(format.json_schema)) out.format = format.json_schema.schema;
  return out;
}

/** One OpenAI message as Ollama's: text joined, images as base64, tool calls with their arguments as objects. */
function message(raw: unknown): Record<string, unknown> {
  const m = isRecord(raw) ? raw : {};
  const role = m.role === 'developer' ? 'system' : String(m.role ?? 'user');
  let content = '';
  const images: string[] = [];
  if (typeof m.content === 'string') content = m.content;
  else if (Array.isArray(m.content)) {
    for (const part of m.content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') content += part.text;
      else if (part.type === 'image_url') {
        const url = isRecord(part.image_url) ? String(part.image_url.url ?? '') : String(part.image_url ?? '');
        const data = /^data:[^;,]+;base64,(.*)$/s.exec(url)?.[1];
        if (!data) throw badRequest('Ollama 只接受 base64（data:）形式的图片');
        images.push(data);
      }
    }
  }
  const out: Record<string, unknown> = { role, content };
  if (images.length > 0) out.images = images;
  if (Array.isArray(m.tool_calls)) {
    out.tool_calls = m.tool_calls.filter(isRecord).map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return { function: { name: String(fn.name ?? ''), arguments: argumentsObject(String(fn.arguments ?? '')) } };
    });
  }
  if (role === 'tool' && typeof m.name === 'string') out.tool_name = m.name;
  return out;
}

function embedBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  return { model, input: body.input };
}

/** Ollama's done_reason as OpenAI's finish_reason. */
const finishOf = (reason: unknown, calls: boolean): string => (calls ? 'tool_calls' : reason === 'length' ? 'length' : 'stop');

/**
 * Ollama's counts as OpenAI's usage. `prompt_eval_count` is the whole prompt, the part its KV cache reused included;
 * that part is `prompt_eval_cached_count` (Ollama's API reference), which becomes `cached_tokens` as OpenAI reports it.
 */
const usageOf = (json: Record<string, unknown>) => {
  const prompt = Number(json.prompt_eval_count ?? 0);
  const completion = Number(json.eval_count ?? 0);
  const cached = Math.min(prompt, Number(json.prompt_eval_cached_count ?? 0));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}) };
};

function toolCalls(value: unknown, start = 0): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.filter(isRecord).map((call, i) => {
    const fn = isRecord(call.function) ? call.function : {};
    return { index: start + i, id: newId('call_'), type: 'function', function: { name: String(fn.name ?? ''), arguments: JSON.stringify(fn.arguments ?? {}) } };
  });
}

function refuseError(json: Record<string, unknown>): void {
  if (typeof json.error === 'string') throw new UpstreamStreamError(json.error);
}

/** Images go as base64 under `images`: not text. */
const IMAGES = new Set(['images']);

/** The prompt /api/chat was sent: its messages' text, tool calls and tool names. */
const ollamaPrompt = (sent: Record<string, unknown>): string => collectText([sent.messages], NO_MEDIA, IMAGES);

/** Ollama's own answers (whole, or one NDJSON line at a time) as OpenAI's. */
function nativeCodec(model: string, base64: boolean): VendorCodec {
  return {
    prompt: ollamaPrompt,
    answer(json) {
      refuseError(json);
      if (Array.isArray(json.embeddings)) {
        const data = json.embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(embedding) : embedding }));
        const prompt = Number(json.prompt_eval_count ?? 0);
        return { object: 'list', data, model, usage: { prompt_tokens: prompt, total_tokens: prompt } };
      }
      const msg = isRecord(json.message) ? json.message : {};
      const calls = toolCalls(msg.tool_calls);
      const out: Record<string, unknown> = { role: 'assistant', content: typeof msg.content === 'string' ? msg.content : '' };
      if (typeof msg.thinking === 'string' && msg.thinking) out.reasoning_content = msg.thinking;
      if (calls) out.tool_calls = calls.map(({ index: _index, ...call }) => call);
      return {
        id: newId('chatcmpl-'),
        object: 'chat.completion',
        created: nowSeconds(),
        model,
        choices: [{ index: 0, message: out, finish_reason: finishOf(json.done_reason, calls !== undefined) }],
        usage: usageOf(json),
      };
    },
    stream() {
      const id = newId('chatcmpl-');
      const created = nowSeconds();
      let calls = 0;
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Frame => ({ data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra }) });
      return (frame) => {
        const json = parseEvent(frame.data);
        if (!json) return [];
        refuseError(json);
        const msg = isRecord(json.message) ? json.message : {};
        const delta: Record<string, unknown> = {};
        if (typeof msg.content === 'string' && msg.content) delta.content = msg.content;
        if (typeof msg.thinking === 'string' && msg.thinking) delta.reasoning_content = msg.thinking;
        const newCalls = toolCalls(msg.tool_calls, calls);
        if (newCalls) {
          delta.tool_calls = newCalls;
          calls += newCalls.length;
        }
        const frames: Frame[] = [];
        if (Object.keys(delta).length > 0) frames.push(chunk([{ index: 0, delta, finish_reason: null }]));
        if (json.done === true) {
          frames.push(chunk([{ index: 0, delta: {}, finish_reason: finishOf(json.done_reason, calls > 0) }]));
          frames.push(chunk([], { usage: usageOf(json) }));
        }
        return frames;
      };
    },
  };
}
