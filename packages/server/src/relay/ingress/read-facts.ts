import { imageSizeRatio } from '../../billing/image-prices.js';
import { mediaBoundsFor } from '../../billing/media-bounds.js';
import { inspectOpenAi } from '../dialects/openai-chat/index.js';
import { dialectOf } from '../dialects/registry.js';
import type { DialectName, RequestFacts } from '../dialects/types.js';
import { isRecord } from '../dialects/shared.js';
import type { Endpoint } from '../providers/types.js';

/** OpenAI's endpoints with the fields of each body that the model reads as its prompt. */
export const OPENAI_PROMPT_PARTS: Record<Exclude<Endpoint, 'chat'> | 'chat', (body: Record<string, unknown>) => unknown[]> = {
  chat: (b) => [b.messages, b.tools, b.functions, b.response_format],
  completions: (b) => [b.prompt, b.suffix],
  embeddings: (b) => [b.input],
  images: (b) => [b.prompt],
  audio_speech: (b) => [b.input],
  audio_transcription: () => [],
  audio_translation: () => [],
  moderations: (b) => [b.input],
  // A reranker reads the query beside each document (DashScope counts query tokens x documents + document tokens), so
  // the query counts once per document in the bound; the prompt's text stays the query (the first part).
  rerank: (b) => [b.query, b.documents, Array.isArray(b.documents) && b.documents.length > 1 ? new Array<unknown>(b.documents.length - 1).fill(b.query) : []],
};

/** How an ingress reads a body: the client's dialect, the endpoint, and the model when the path names it (Gemini). */
export interface Reading {
  dialect: DialectName;
  endpoint: Endpoint;
  model?: string;
  stream?: boolean;
  /** Gemini's countTokens: the body may wrap the request in `generateContentRequest`. */
  countTokens?: boolean;
}

/** The facts of a client body and, for the conversation endpoints, what makes it unusable whatever the channel. */
export function readFacts(outer: Record<string, unknown>, reading: Reading): { facts: RequestFacts; problem?: string } {
  const dialect = dialectOf(reading.dialect)!;
  const wrapped = reading.countTokens ? (outer.generateContentRequest ?? outer.generate_content_request) : undefined;
  const body = isRecord(wrapped) ? wrapped : outer;
  let facts: RequestFacts;
  if (reading.dialect === 'openai-chat') facts = inspectOpenAi(body, OPENAI_PROMPT_PARTS[reading.endpoint](body), mediaBoundsFor);
  else if (reading.model !== undefined) facts = Object.assign(dialect.inspect(body, () => mediaBoundsFor(reading.model!)), { model: reading.model, stream: reading.stream ?? false });
  else facts = dialect.inspect(body, mediaBoundsFor);
  if (reading.endpoint === 'images') {
    const ratio = imageSizeRatio(facts.model, body.size, body.quality);
    if (ratio !== 1) facts.imageSizeRatio = ratio;
  }
  return { facts, problem: reading.endpoint === 'chat' ? dialect.validate?.(body) : undefined };
}
