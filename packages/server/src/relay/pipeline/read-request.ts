import type { FastifyRequest } from 'fastify';
import { RelayError } from '../relay-error.js';
import type { RelayMode } from '../providers/types.js';
import { imageTokenBoundOf } from '../../billing/model-limits.js';

export interface RelayBody {
  model: string;
  stream: boolean;
  json?: Record<string, unknown>;
  rawBody?: Buffer;
  contentType?: string;
  /**
   * An upper bound of the prompt's tokens, for the reservation: every token of a byte-level tokenizer spans at
   * least one UTF-8 byte, so the byte count of the text bounds it; images count at their model's bound.
   */
  promptBound: number;
  /** Output tokens the client allowed (max_tokens, max_completion_tokens), 0 when it set no limit. */
  maxTokens: number;
  /** Number of answers asked for (`n`), each of which can use the whole output allowance. */
  choices: number;
}

const DEFAULT_MODEL: Partial<Record<RelayMode, string>> = { moderations: 'text-moderation-latest', images: 'dall-e-2' };

/** Step 2: what is being asked for. JSON bodies are parsed; uploads (audio) keep their raw bytes. */
export function readRequest(request: FastifyRequest, mode: RelayMode): RelayBody {
  const contentType = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(request.body)) {
    const raw = request.body;
    const model = multipartField(raw, contentType, 'model') ?? 'whisper-1';
    return { model, stream: false, rawBody: raw, contentType, promptBound: 0, maxTokens: 0, choices: 1 };
  }
  const json = request.body as Record<string, unknown> | undefined;
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const model = typeof json.model === 'string' && json.model ? json.model : DEFAULT_MODEL[mode];
  if (!model) throw new RelayError(400, '请求缺少 model 字段');
  const maxTokens = Number(json.max_completion_tokens ?? json.max_tokens ?? 0);
  const choices = Number(json.n ?? 1);
  return {
    model,
    stream: json.stream === true,
    json,
    promptBound: promptBoundOf(mode, json, imageTokenBoundOf(model)),
    maxTokens: Number.isFinite(maxTokens) && maxTokens > 0 ? Math.floor(maxTokens) : 0,
    choices: Number.isInteger(choices) && choices > 1 ? Math.min(choices, 128) : 1,
  };
}

/** The parts of a body the model reads as its prompt, per endpoint. */
function promptParts(mode: RelayMode, json: Record<string, unknown>): unknown[] {
  if (mode === 'chat') return [json.messages, json.tools, json.functions, json.response_format];
  if (mode === 'completions') return [json.prompt, json.suffix];
  if (mode === 'embeddings' || mode === 'moderations' || mode === 'audio_speech') return [json.input];
  if (mode === 'images') return [json.prompt];
  return [];
}

/**
 * Upper bound of prompt tokens: UTF-8 bytes of every string, a fixed bound per image, 4 per message for the
 * chat framing. Walks the JSON with an explicit stack, so no nesting depth can overflow the call stack.
 */
export function promptBoundOf(mode: RelayMode, json: Record<string, unknown>, imageBound: number): number {
  let tokens = 8;
  const stack: unknown[] = promptParts(mode, json);
  if (mode === 'chat' && Array.isArray(json.messages)) tokens += 4 * json.messages.length;
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      tokens += value.startsWith('data:') && value.length > 256 ? imageBound : Buffer.byteLength(value, 'utf8');
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      tokens += 1;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'image_url' || key === 'input_audio') tokens += imageBound;
        else stack.push(key, inner);
      }
    }
  }
  return tokens;
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
