import type { RelayRequest } from '../pipeline/types.js';
import type { FastifyInstance } from 'fastify';
import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import type { RequestFacts } from '../dialects/types.js';
import { handleRelay, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import type { Endpoint } from '../providers/types.js';
import type { DirectRelay, RelayHandler } from './direct.js';
import { readJsonBody } from './large-json.js';

/** OpenAI's endpoints under /v1 (the fields each body's model reads as its prompt: read-facts.ts). */
const ENDPOINTS: Array<[string, Endpoint]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/images/generations', 'images'],
  ['/v1/audio/speech', 'audio_speech'],
  ['/v1/audio/transcriptions', 'audio_transcription'],
  ['/v1/audio/translations', 'audio_translation'],
  ['/v1/moderations', 'moderations'],
  // the Cohere / Jina rerank shape (Dify, FastGPT, LangChain): { model, query, documents, top_n }
  ['/v1/rerank', 'rerank'],
];

/** Models implied by endpoints whose clients may leave `model` out. */
const DEFAULT_MODEL: Partial<Record<Endpoint, string>> = { moderations: 'text-moderation-latest', images: 'dall-e-2' };

/** The OpenAI-compatible relay: chat (translated to any channel) and OpenAI's other endpoints (passed through). */
export function openAiIngress(app: FastifyInstance, deps: RelayDeps, direct: DirectRelay): void {
  for (const [path, endpoint] of ENDPOINTS) {
    const handler: RelayHandler = async (request, reply) => handleRelay(deps, await readCall(deps, request, path, endpoint), request, reply);
    app.post(path, handler);
    direct.post(path, openAiChatDialect, handler);
  }
}

async function readCall(deps: RelayDeps, request: RelayRequest, path: string, endpoint: Endpoint): Promise<IncomingCall> {
  const contentType = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(request.body)) {
    // Uploads (audio) are relayed byte for byte; only the model is read from the form. The reservation covers the
    // floor; the transcript is bounded like the audio (pipeline/handle-relay.ts).
    const model = multipartField(request.body, contentType, 'model') ?? 'whisper-1';
    const facts: RequestFacts = { model, stream: false, maxTokens: 0, choices: 1, promptBound: 0, promptText: () => '', includeUsage: false };
    return { dialect: openAiChatDialect, endpoint, body: { raw: request.body, contentType }, facts, path };
  }
  const { body, facts, problem } = await readJsonBody(deps.bodies, request.body, { dialect: 'openai-chat', endpoint }, DEFAULT_MODEL[endpoint] ?? '');
  return { dialect: openAiChatDialect, endpoint, body, facts, problem, path };
}

/** Reads one text field of a multipart/form-data body without parsing the file parts. */
export function multipartField(body: Buffer, contentType: string, name: string): string | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return undefined;
  const marker = `name="${name}"`;
  const text = body.toString('latin1');
  const start = text.indexOf(marker);
  if (start < 0) return undefined;
  const valueStart = text.indexOf('\r\n\r\n', start);
  if (valueStart < 0) return undefined;
  const end = text.indexOf(`\r\n--${boundary[1] ?? boundary[2]}`, valueStart + 4);
  return end < 0 ? undefined : Buffer.from(text.slice(valueStart + 4, end), 'latin1').toString('utf8').trim();
}
