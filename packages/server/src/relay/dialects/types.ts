/**
 * The dialect contract. A dialect is one wire format of chat requests and answers (OpenAI Chat Completions,
 * OpenAI Responses, Anthropic Messages, Gemini generateContent, Bedrock Converse). It is spoken on two sides:
 *
 *  - by clients: an ingress route parses the client's body with `parseRequest` into the canonical request and
 *    answers with `writeResponse`, a `createStreamWriter` and `errorBody` / the writer's `error`, so every
 *    client hears its own dialect whatever the channel speaks;
 *  - by providers: a provider whose upstream speaks the dialect builds its body with `buildRequest` and reads
 *    the answer with `parseResponse` and a per-request `createStreamReader`.
 *
 * When the client's dialect and the channel's are the same, none of the translation runs: the body passes
 * through with `rewrite` (model, output cap) and the answer's bytes go back as they arrive, while
 * `createStreamReader` / `parseResponse` read usage on the side.
 *
 * A dialect is pure: no I/O, no storage, no quota. Everything here is synchronous and per request.
 */
import type { ChatRequest, ChatResponse, StreamPart } from '../canonical.js';

export type DialectName = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock-converse';

/** A unit of a streamed answer as the transport delivered it: one SSE event, JSON-array element or frame. */
export interface Frame {
  /** SSE `event:` name or the event-stream `:event-type` header, when the transport has one. */
  event?: string;
  /** The payload text (JSON for every dialect here; OpenAI ends with "[DONE]"). */
  data: string;
}

/** Reads one upstream answer's stream, frame by frame. Holds the per-request state a dialect needs. */
export interface StreamReader {
  read(frame: Frame): StreamPart[];
}

/** What a client is sent while an answer streams: text chunks, in the client's own framing. */
export interface StreamWriter {
  write(part: StreamPart): string;
  /** The closing bytes of a complete answer (e.g. OpenAI's `data: [DONE]`). */
  end(): string;
  /**
   * The dialect's own error event, ending a stream that broke upstream. `continued`: the client already holds
   * frames of this answer that this writer did not write (a pass-through), so the event must follow them (after
   * the elements of Gemini's JSON array, a comma).
   */
  error(message: string, continued?: boolean): string;
}

/** What the client side of the pipeline knows about an answer it writes. */
export interface WriteContext {
  /** Id of the answer (generated when the upstream gave none). */
  id: string;
  /** The model name the client asked for (never the mapped upstream name). */
  model: string;
  created: number;
  /** The client asked for usage in the stream (OpenAI `stream_options.include_usage`). */
  includeUsage: boolean;
  /** Gemini: stream as a JSON array (no `alt=sse`). */
  jsonArray?: boolean;
  /** Responses: the client's custom (free-text) tools, whose calls it expects as `custom_tool_call` items. */
  freeformTools?: ReadonlySet<string>;
}

/** What billing and routing need from a client body without translating it. */
export interface RequestFacts {
  model: string;
  stream: boolean;
  /** Output tokens the client allowed per answer; 0 when it set none. */
  maxTokens: number;
  /** Answers asked for (OpenAI `n`, Gemini candidateCount). */
  choices: number;
  /** Upper bound of prompt tokens: UTF-8 bytes of the text, a per-image bound for each image. */
  promptBound: number;
  /** The prompt's text, for counting when the upstream reports no usage. */
  promptText(): string;
  /** The client asked for usage in a stream (OpenAI stream_options.include_usage). */
  includeUsage: boolean;
  /** Responses: names of the client's custom (free-text) tools. */
  freeformTools?: string[];
}

export interface Dialect {
  readonly name: DialectName;
  /** Content type of its stream (what a client of this dialect expects). */
  readonly streamContentType: string;

  /** Client side: the canonical request from a client's body. Throws RelayError(400) on a malformed one. */
  parseRequest(body: Record<string, unknown>): ChatRequest;
  writeResponse(response: ChatResponse, context: WriteContext): unknown;
  /**
   * `continuing`: when the writer only ends a stream the upstream wrote in this same dialect (a pass-through that
   * broke), the reader that followed it, so that a dialect numbering its events (Responses' sequence_number)
   * continues the upstream's numbering. Dialects that need nothing from it ignore it.
   */
  createStreamWriter(context: WriteContext, continuing?: StreamReader): StreamWriter;
  /** The dialect's error body for a failure answered before any byte of the answer was sent (`type`: OpenAI's error type). */
  errorBody(status: number, message: string, code?: string | null, type?: string): unknown;
  /**
   * What makes a client body unusable whatever the channel (no messages at all), found before anything is
   * counted or reserved; undefined when it may be sent. The upstream (or the translation) checks the rest.
   */
  validate?(body: Record<string, unknown> | { raw: Buffer }): string | undefined;
  /** Cheap facts about a client body (no translation). `imageBound` is the model's per-image token bound. */
  inspect(body: Record<string, unknown>, imageBound: (model: string) => number): RequestFacts;

  /** Provider side: the upstream body for a canonical request. */
  buildRequest(request: ChatRequest): Record<string, unknown>;
  parseResponse(body: unknown): ChatResponse;
  createStreamReader(): StreamReader;
  /** Same-dialect pass-through: a client body with the upstream model and an output cap applied (a copy). */
  rewrite(body: Record<string, unknown>, changes: { model: string; maxOutputTokens?: number; stream?: boolean }): Record<string, unknown>;
  /** Writes one upstream frame again in this dialect's SSE framing (pass-through across framings). */
  frame(frame: Frame): string;
}
