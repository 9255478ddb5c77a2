import { ChannelType } from '@model-relay/contract';
import { asArray, asNumber, asString, isRecord, newId, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import { RelayError } from '../../relay-error.js';
import { lastUserText } from '../message-text.js';
import { chatCompletion, chunkFrame, type ChunkContext } from '../openai-chunks.js';
import type { BuildInput, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';

const DEFAULT_BASE = 'https://api.aiproxy.io';

/**
 * AI Proxy's knowledge base (知识库：AI Proxy, type 21): `POST /api/library/ask` with header `Api-Key`, body
 * `{model, query, libraryId, stream}`, where the query is the last user message, the model the chat model that
 * answers from the library, and the library id the channel's `other` field (知识库 ID in the channel form).
 * The answer is `{success, answer, documents: [{title, url}]}`; the stream is SSE `data: {content, finish, model,
 * documents}`. AI Proxy reports no usage: the gateway counts the tokens, the prompt's from the query it sent. The documents the answer drew on are
 * appended to it as a numbered list of links.
 *
 * AI Proxy's own page (https://docs.aiproxy.io/dev/library) could not be read; this follows the public facts:
 * the request and answer fields one-api relays to it, and a public client calling the same endpoint.
 */
export const aiProxyLibraryAdapter: ProviderAdapter = {
  id: 'aiproxy-library',
  channelTypes: [ChannelType.AIProxyLibrary],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body) || input.endpoint !== 'chat') throw new RelayError(501, 'AI Proxy 知识库渠道仅支持对话接口', 'upstream_error');
    const libraryId = input.channel.other.trim();
    if (!libraryId) throw new RelayError(400, '渠道未填写知识库 ID', 'upstream_error');
    const query = lastUserText(input.body);
    if (!query.trim()) throw new RelayError(400, 'AI Proxy 知识库渠道需要一条有文字的用户消息作为问题');
    return {
      url: `${input.channel.baseUrl || DEFAULT_BASE}/api/library/ask`,
      method: 'POST',
      headers: { 'api-key': input.channel.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: input.model, query, libraryId, stream: input.stream }),
    };
  },

  // The library is asked the last user message alone, so an answer is counted from that question (what it was
  // sent), not from the client's whole conversation.
  codec: (_channel, model) => ({ answer: (json) => libraryAnswer(json, model), stream: () => libraryStreamReader(model), prompt: (sent) => asString(sent.query) ?? '' }),
  classifyError: classifyLibraryError,
};

/** The documents an answer drew on, as a numbered list of links after it. */
export function documentsText(documents: unknown): string {
  const links = asArray(documents)
    .filter(isRecord)
    .map((d, i) => `${i + 1}. [${asString(d.title) ?? asString(d.url) ?? ''}](${asString(d.url) ?? ''})`);
  return links.length ? `\n\n参考文档：\n${links.join('\n')}` : '';
}

/** An error the library answers with a success status: `{success: false, errCode, message}`. */
function failureOf(json: Record<string, unknown>): VendorAnswerError | undefined {
  const code = asNumber(json.errCode) ?? 0;
  if (json.success !== false && code === 0) return undefined;
  // errCode is an HTTP status when it looks like one (401, 429, 500...), else the library's own (a request fault).
  const status = code === 401 || code === 403 ? 401 : code === 429 ? 429 : code >= 500 && code < 600 ? 500 : 400;
  return new VendorAnswerError(`AI Proxy 知识库错误${code ? ` ${code}` : ''}：${asString(json.message) || '未知错误'}`, status);
}

function libraryAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const failure = failureOf(json);
  if (failure) throw failure;
  const text = (asString(json.answer) ?? '') + documentsText(json.documents);
  return chatCompletion({ id: newId('chatcmpl-'), model, created: nowSeconds() }, text);
}

function libraryStreamReader(fallbackModel: string): (frame: Frame) => Frame[] {
  let context: ChunkContext | undefined;
  let documents: unknown;
  let finished = false;
  return (frame) => {
    const data = parseEvent(frame.data);
    if (!data || finished) return [];
    const failure = failureOf(data);
    if (failure) throw failure;
    const out: Frame[] = [];
    if (!context) {
      context = { id: newId('chatcmpl-'), model: asString(data.model) || fallbackModel, created: nowSeconds() };
      out.push(chunkFrame(context, { role: 'assistant', content: '' }));
    }
    if (asArray(data.documents).length > 0) documents = data.documents;
    const content = asString(data.content);
    if (content) out.push(chunkFrame(context, { content }));
    if (data.finish === true) {
      finished = true;
      const references = documentsText(documents);
      if (references) out.push(chunkFrame(context, { content: references }));
      out.push(chunkFrame(context, {}, 'stop'));
    }
    return out;
  };
}

/** HTTP errors: 401/403 the key is dead, 429 and 5xx are passing, the rest are the request's (or the library id's). */
export function classifyLibraryError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const said = asString(parsed?.message) ?? (isRecord(parsed?.error) ? asString(parsed.error.message) : undefined);
  const message = said || body.trim().slice(0, 300) || `upstream returned HTTP ${status}`;
  const dead = status === 401 || status === 403;
  return { retry: dead || status === 429 || status === 408 || status >= 500, disableChannel: dead, message };
}
