import type { FastifyInstance, FastifyRequest } from 'fastify';
import { imageTokenBoundOf } from '../../billing/model-limits.js';
import { inspectOpenAi, openAiChatDialect } from '../dialects/openai-chat/index.js';
import { isRecord } from '../dialects/shared.js';
import type { RequestFacts } from '../dialects/types.js';
import { handleRelay, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import type { Endpoint } from '../providers/types.js';
import { RelayError } from '../relay-error.js';

/** OpenAI's endpoints under /v1, with the fields of each body that the model reads as its prompt. */
const ENDPOINTS: Array<[string, Endpoint, (body: Record<string, unknown>) => unknown[]]> = [
  ['/v1/chat/completions', 'chat', (b) => [b.messages, b.tools, b.functions, b.response_format]],
  ['/v1/completions', 'completions', (b) => [b.prompt, b.suffix]],
  ['/v1/embeddings', 'embeddings', (b) => [b.input]],
  ['/v1/images/generations', 'images', (b) => [b.prompt]],
  ['/v1/audio/speech', 'audio_speech', (b) => [b.input]],
  ['/v1/audio/transcriptions', 'audio_transcription', () => []],
  ['/v1/audio/translations', 'audio_translation', () => []],
  ['/v1/moderations', 'moderations', (b) => [b.input]],
];

/** Models implied by endpoints whose clients may leave `model` out. */
const DEFAULT_MODEL: Partial<Record<Endpoint, string>> = { moderations: 'text-moderation-latest', images: 'dall-e-2' };

/** The OpenAI-compatible relay: chat (translated to any channel) and OpenAI's other endpoints (passed through). */
export function openAiIngress(app: FastifyInstance, deps: RelayDeps): void {
  for (const [path, endpoint, promptParts] of ENDPOINTS) {
    app.post(path, (request, reply) => handleRelay(deps, readCall(request, path, endpoint, promptParts), request, reply));
  }
}

function readCall(request: FastifyRequest, path: string, endpoint: Endpoint, promptParts: (body: Record<string, unknown>) => unknown[]): IncomingCall {
  const contentType = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(request.body)) {
    // Uploads (audio) are relayed byte for byte; only the model is read from the form.
    const model = multipartField(request.body, contentType, 'model') ?? 'whisper-1';
    const facts: RequestFacts = { model, stream: false, maxTokens: 0, choices: 1, promptBound: 0, promptText: () => '', includeUsage: false };
    return { dialect: openAiChatDialect, endpoint, body: { raw: request.body, contentType }, facts, path };
  }
  const body = request.body;
  if (!isRecord(body)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const withModel = typeof body.model === 'string' && body.model ? body : { ...body, model: DEFAULT_MODEL[endpoint] ?? '' };
  return { dialect: openAiChatDialect, endpoint, body: withModel, facts: inspectOpenAi(withModel, promptParts(withModel), imageTokenBoundOf), path };
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
