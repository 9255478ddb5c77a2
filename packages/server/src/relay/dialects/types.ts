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
import type { MediaBounds } from '../../billing/media-bounds.js';
import type { Usage } from '../../billing/usage.js';
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

/** A tool a client runs itself, as it declared it (OpenAI Responses: custom tools, functions in a namespace, local_shell, shell, apply_patch). */
export interface ClientTool {
  kind: 'function' | 'custom' | 'local_shell' | 'shell' | 'apply_patch';
  /** The name the client gave it (within its namespace). */
  name: string;
  namespace?: string;
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
  /**
   * Responses: the client-run tools whose calls it expects in a shape of their own (custom_tool_call, a call inside
   * a namespace, local_shell_call...), by the canonical function name they travel under.
   */
  clientTools?: ReadonlyMap<string, ClientTool>;
}

/** What billing and routing need from a client body without translating it. */
export interface RequestFacts {
  model: string;
  stream: boolean;
  /**
   * Output tokens the client allowed per answer: the largest of every output limit the body carries (max_tokens,
   * max_completion_tokens, max_output_tokens, thinking budgets), so that no field the provider honours can let it
   * write more than was reserved; 0 when it set none.
   */
  maxTokens: number;
  /** Answers asked for (OpenAI `n`, Gemini candidateCount). */
  choices: number;
  /**
   * Upper bound of prompt tokens as the upstream will read the body: UTF-8 bytes of the text, each piece of media
   * by the model's documented formula (billing/media-bounds.ts), the tool-use overhead when tools are sent.
   */
  promptBound: number;
  /** Of `promptBound`: the audio's share (priced apart by some models, AudioRatio). */
  audioBound?: number;
  /**
   * Tools the provider runs itself (web search, code execution...): their results enter the prompt, in as many
   * rounds as the provider takes, so the prompt can legitimately outgrow `promptBound`.
   */
  hostedTools?: boolean;
  /** The most web searches the provider may run, when the body bounds every search tool (Anthropic's `max_uses`): reserved. */
  searchBound?: number;
  /** The agent session the body names (Claude Code's metadata.user_id, prompt_cache_key), for session affinity. */
  session?: string;
  /** Prompt-cache writes the body asks for ('none', or the longest TTL); absent when its dialect cannot say. */
  cacheWrites?: 'none' | '5m' | '1h';
  /** The body asks for the provider's fast mode (OpenAI's service_tier priority / fast, Anthropic's speed fast). */
  fastMode?: boolean;
  /** The images endpoint: what each image costs against the model's base image price, by size and quality. */
  imageSizeRatio?: number;
  /** The prompt's text, for counting when the upstream reports no usage (read on the body worker for a large body). */
  promptText(): string | Promise<string>;
  /** The client asked for usage in a stream (OpenAI stream_options.include_usage). */
  includeUsage: boolean;
  /** Responses: the client-run tools whose calls go back in a shape of their own (see WriteContext.clientTools). */
  clientTools?: Array<[string, ClientTool]>;
}

export interface Dialect {
  readonly name: DialectName;
  /** Content type of its stream (what a client of this dialect expects). */
  readonly streamContentType: string;
  /** What the ids of its answers start with (`chatcmpl-`, `resp_`, `msg_`; '' when it has no convention). */
  readonly idPrefix: string;
  /** Its streams may come as one JSON array sent piece by piece instead of SSE (Gemini without `alt=sse`). */
  readonly jsonArrayStreams?: boolean;
  /** The frame that ends a complete stream apart from its events (OpenAI's `[DONE]`), when the dialect has one. */
  readonly endFrame?: string;

  /** Client side: the canonical request from a client's body. Throws RelayError(400) on a malformed one. */
  parseRequest(body: Record<string, unknown>): ChatRequest;
  writeResponse(response: ChatResponse, context: WriteContext): unknown;
  /**
   * `continuing`: when the writer only ends a stream the upstream wrote in this same dialect (a pass-through that
   * broke), the reader that followed it, so that a dialect numbering its events (Responses' sequence_number)
   * continues the upstream's numbering. Dialects that need nothing from it ignore it.
   */
  createStreamWriter(context: WriteContext, continuing?: StreamReader): StreamWriter;
  /** The dialect's error body for a failure answered before any byte of the answer was sent (`type`, `param`: OpenAI's). */
  errorBody(status: number, message: string, code?: string | null, type?: string, param?: string): unknown;
  /**
   * What makes a client body unusable whatever the channel (no messages at all), found before anything is
   * counted or reserved; undefined when it may be sent. The upstream (or the translation) checks the rest.
   */
  validate?(body: Record<string, unknown> | { raw: Buffer }): string | undefined;
  /** Cheap facts about a client body (no translation), its media bounded by the model's `boundsFor`. */
  inspect(body: Record<string, unknown>, boundsFor: (model: string) => MediaBounds): RequestFacts;

  /** Provider side: the upstream body for a canonical request. */
  buildRequest(request: ChatRequest): Record<string, unknown>;
  parseResponse(body: unknown): ChatResponse;
  createStreamReader(): StreamReader;
  /** Same-dialect pass-through: a client body with the upstream model and an output cap applied (a copy). */
  rewrite(body: Record<string, unknown>, changes: { model: string; maxOutputTokens?: number; stream?: boolean }): Record<string, unknown>;
  /** Writes one upstream frame again in this dialect's SSE framing (pass-through across framings). */
  frame(frame: Frame): string;
  /**
   * How the usage the gateway bills is written into an answer of this dialect that a vendor's codec wrote (the
   * client then gets what it is charged, not the vendor's report or nothing): the whole answer with that usage, a
   * re-framed stream frame without the usage it carried (undefined when nothing else was in it), and the frame
   * closing the stream with the billed usage when the client asked for usage (`last`: the stream's last frame).
   */
  readonly billedUsage?: {
    answer(json: Record<string, unknown>, usage: Usage, endpoint: string): Record<string, unknown>;
    strip(frame: Frame): Frame | undefined;
    frame(usage: Usage, last: Frame | undefined, context: WriteContext): Frame | undefined;
  };
}
