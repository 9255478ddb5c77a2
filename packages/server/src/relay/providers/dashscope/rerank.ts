import { asArray, asNumber, asString, badRequest, isRecord, VendorAnswerError } from '../../dialects/shared.js';
import type { BuildInput, ChannelTarget, UpstreamRequest, VendorCodec } from '../types.js';

/**
 * DashScope's native text rerank (https://help.aliyun.com/zh/model-studio/text-rerank-api, "HTTP调用"): the compatible
 * mode (`/compatible-mode/v1`) serves chat and embeddings but no rerank, so `/v1/rerank` to an Alibaba channel (type
 * 17) goes to `POST /api/v1/services/rerank/text-rerank/text-rerank` with `Authorization: Bearer <API key>` and the
 * native body `{model, input: {query, documents}, parameters: {top_n, return_documents}}`. The answer
 * `{output: {results: [{index, relevance_score, document?: {text}}]}, usage: {total_tokens}, request_id}` is written
 * back in the Cohere/Jina shape the client sent, with the tokens DashScope counted as the prompt usage it is billed by.
 */
export const DASHSCOPE_RERANK_PATH = '/api/v1/services/rerank/text-rerank/text-rerank';

/** The native API lives at the host's root: a base URL saved with the compatible-mode path is cut back to its origin. */
function nativeBase(channel: ChannelTarget, fallback: string): string {
  const base = (channel.baseUrl || fallback).replace(/\/+$/, '');
  return base.replace(/\/compatible-mode\/v1$/, '').replace(/\/api\/v1$/, '');
}

/** The Cohere/Jina rerank body as DashScope's: documents are strings (a `{text}` object gives its text). */
export function dashScopeRerankBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const query = body.query;
  if (typeof query !== 'string' || !query) throw badRequest('rerank 请求缺少 query（字符串）');
  const documents = asArray(body.documents).map((doc) => (typeof doc === 'string' ? doc : isRecord(doc) && typeof doc.text === 'string' ? doc.text : undefined));
  if (documents.length === 0 || documents.some((doc) => doc === undefined)) throw badRequest('rerank 请求的 documents 须为非空的字符串数组（或带 text 的对象数组）');
  const parameters: Record<string, unknown> = {};
  const top = asNumber(body.top_n);
  if (top !== undefined) parameters.top_n = Math.floor(top);
  if (typeof body.return_documents === 'boolean') parameters.return_documents = body.return_documents;
  const out: Record<string, unknown> = { model, input: { query, documents } };
  if (Object.keys(parameters).length > 0) out.parameters = parameters;
  return out;
}

export function dashScopeRerankRequest(input: BuildInput, fallbackBase: string): UpstreamRequest {
  if (Buffer.isBuffer(input.body)) throw badRequest('rerank 请求须为 JSON');
  return {
    url: `${nativeBase(input.channel, fallbackBase)}${DASHSCOPE_RERANK_PATH}`,
    method: 'POST',
    headers: { authorization: `Bearer ${input.channel.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(dashScopeRerankBody(input.body, input.model)),
  };
}

/** DashScope's rerank answer in the Cohere/Jina shape; an error body (`{code, message}`) in a 200 throws. */
export function dashScopeRerankAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const output = isRecord(json.output) ? json.output : undefined;
  if (!output || !Array.isArray(output.results)) {
    const message = asString(json.message) ?? '通义千问 rerank 返回了无法识别的响应';
    throw new VendorAnswerError(asString(json.code) ? `${message}（${asString(json.code)}）` : message);
  }
  const results = asArray(output.results)
    .filter(isRecord)
    .map((r) => ({ index: r.index, relevance_score: r.relevance_score, ...(isRecord(r.document) ? { document: r.document } : {}) }));
  const out: Record<string, unknown> = { id: json.request_id, model, results };
  const tokens = isRecord(json.usage) ? asNumber(json.usage.total_tokens) : undefined;
  if (tokens !== undefined) out.usage = { prompt_tokens: tokens, total_tokens: tokens };
  return out;
}

export const dashScopeRerankCodec = (model: string): VendorCodec => ({ answer: (json) => dashScopeRerankAnswer(json, model) });
