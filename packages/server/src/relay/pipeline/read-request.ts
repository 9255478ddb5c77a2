import type { FastifyRequest } from 'fastify';
import { RelayError } from '../relay-error.js';
import type { RelayMode } from '../providers/types.js';

export interface RelayBody {
  model: string;
  stream: boolean;
  json?: Record<string, unknown>;
  rawBody?: Buffer;
  contentType?: string;
  /** Cheap upper-ish estimate of prompt tokens, for the reservation only (actual usage comes later). */
  promptEstimate: number;
  /** Completion allowance the client asked for (max_tokens), 0 when unbounded. */
  maxTokens: number;
}

const DEFAULT_MODEL: Partial<Record<RelayMode, string>> = { moderations: 'text-moderation-latest', images: 'dall-e-2' };

/** Step 2: what is being asked for. JSON bodies are parsed; uploads (audio) keep their raw bytes. */
export function readRequest(request: FastifyRequest, mode: RelayMode): RelayBody {
  const contentType = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(request.body)) {
    const raw = request.body;
    const model = multipartField(raw, contentType, 'model') ?? 'whisper-1';
    return { model, stream: false, rawBody: raw, contentType, promptEstimate: 0, maxTokens: 0 };
  }
  const json = request.body as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const model = typeof json.model === 'string' && json.model ? json.model : DEFAULT_MODEL[mode];
  if (!model) throw new RelayError(400, '请求缺少 model 字段');
  const maxTokens = Number(json.max_tokens ?? json.max_completion_tokens ?? 0);
  return {
    model,
    stream: json.stream === true,
    json,
    promptEstimate: estimatePromptTokens(mode, json),
    maxTokens: Number.isFinite(maxTokens) && maxTokens > 0 ? Math.floor(maxTokens) : 0,
  };
}

/** About one token per 3 characters of prompt text: a deliberate over-estimate for the reservation. */
function estimatePromptTokens(mode: RelayMode, json: Record<string, unknown>): number {
  let chars = 0;
  const add = (value: unknown) => {
    if (typeof value === 'string') chars += value.length;
    else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === 'object') Object.values(value).forEach(add);
  };
  if (mode === 'chat') add(json.messages);
  else if (mode === 'completions') add(json.prompt);
  else if (mode === 'embeddings' || mode === 'moderations') add(json.input);
  else if (mode === 'audio_speech') add(json.input);
  else if (mode === 'images') add(json.prompt);
  return Math.ceil(chars / 3) + 8;
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
