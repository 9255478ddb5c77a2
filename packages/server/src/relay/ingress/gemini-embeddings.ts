import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import { asArray, asNumber, isRecord } from '../dialects/shared.js';
import type { IncomingCall, RelayDeps } from '../pipeline/handle-relay.js';
import { RelayError } from '../relay-error.js';
import { LargeJson, readJsonBody } from './large-json.js';

/** Gemini's embedding methods (https://ai.google.dev/api/embeddings). */
export const EMBED_METHODS = ['embedContent', 'batchEmbedContents'];

/**
 * Gemini's embedContent and batchEmbedContents, as @google/genai (whose `models.embedContent` calls
 * batchEmbedContents) and Cherry Studio's knowledge bases send them, served as OpenAI's /v1/embeddings by whichever
 * channel has the model: each request's content is one input text, a common `outputDimensionality` is `dimensions`,
 * and the OpenAI answer comes back as `{embedding: {values}}` or `{embeddings: [{values}]}`. A Gemini channel is sent
 * the client's own requests (`native`), with the task types and titles OpenAI's embeddings have no place for.
 */
export async function geminiEmbedCall(deps: RelayDeps, raw: unknown, model: string, method: string): Promise<IncomingCall> {
  // A batch is at most 100 texts of at most 2,048 tokens: far below the size a body worker takes over.
  if (raw instanceof LargeJson) throw new RelayError(413, '向量请求体过大（超过 1 MB），请分批请求');
  if (!isRecord(raw)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const single = method === 'embedContent';
  const requests = single ? [raw] : asArray(raw.requests);
  if (requests.length === 0) throw new RelayError(400, 'requests 不能为空');
  const texts = requests.map((request, i) => textOf(request, single ? 'content' : `requests[${i}].content`));
  const sizes = new Set(requests.map((request) => (isRecord(request) ? asNumber(request.outputDimensionality) : undefined)).filter((n) => n !== undefined));
  if (sizes.size > 1) throw new RelayError(400, '同一批请求的 outputDimensionality 必须相同');
  const [dimensions] = sizes;
  const body = { model, input: texts, encoding_format: 'float', ...(dimensions !== undefined ? { dimensions } : {}) };
  const read = await readJsonBody(deps.bodies, body, { dialect: 'openai-chat', endpoint: 'embeddings' });
  return {
    dialect: openAiChatDialect,
    endpoint: 'embeddings',
    body: read.body,
    facts: read.facts,
    path: '/v1/embeddings',
    label: 'gemini-embeddings',
    // As written: the Gemini adapter names the channel's model in each.
    native: { requests },
    answerAs: (answer) => {
      const vectors = asArray(answer.data).map((item) => ({ values: isRecord(item) ? floatsOf(item.embedding) : [] }));
      return single ? { embedding: vectors[0] ?? { values: [] } } : { embeddings: vectors };
    },
  };
}

/** The text of one request's content: its parts' text, in order (Gemini embeds text only). */
function textOf(request: unknown, where: string): string {
  const content = isRecord(request) ? request.content : undefined;
  const parts = isRecord(content) ? asArray(content.parts) : [];
  if (parts.length === 0) throw new RelayError(400, `${where} 不能为空`);
  const texts = parts.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : undefined));
  if (texts.some((text) => text === undefined)) throw new RelayError(400, `${where} 只能包含文本（text）部分`);
  return texts.join('\n');
}

/** An OpenAI embedding as floats (an upstream may give base64 float32s even when floats were asked for). */
function floatsOf(embedding: unknown): number[] {
  if (Array.isArray(embedding)) return embedding.map(Number);
  if (typeof embedding !== 'string') return [];
  const bytes = Buffer.from(embedding, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4)));
}
