/**
 * The canonical model of a chat exchange: the one shape every client dialect is parsed into and every provider
 * request is built from when the two sides speak different wire formats. (When they speak the same one, the
 * body passes through and none of this is built.)
 *
 * It holds what the dialects have in common and what billing and tools need: text, reasoning ("thinking")
 * with its signatures, tool definitions, tool calls with their argument text, tool results, images, the
 * finish reason and a rich usage. A dialect-specific extra that has no counterpart elsewhere is dropped on
 * translation (it cannot mean anything to the other side).
 */
import type { Usage } from '../billing/usage.js';

export type { Usage };

/** An image the model is shown: a URL, or inline bytes (base64) with their media type. */
export type ImageSource = { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string };

export interface TextPart {
  type: 'text';
  text: string;
  /** Anthropic prompt caching: cache everything up to and including this part. */
  cache?: 'ephemeral' | 'ephemeral-1h';
}

export interface ImagePart {
  type: 'image';
  source: ImageSource;
}

/**
 * Model reasoning. `signature` is the provider's opaque proof of a thinking block (Anthropic `signature`), which
 * must be sent back unchanged with the block in the next turn; `redacted` holds an encrypted block's data.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  redacted?: string;
}

/**
 * A tool the model called. `arguments` is the JSON text of the arguments (kept as text: streams deliver it in
 * pieces). `signature` carries Gemini's `thoughtSignature`, which must come back on the same part next turn.
 */
export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: string;
  signature?: string;
}

/** The result of a tool call, answering `callId`. */
export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  /** The tool's name (Gemini's functionResponse needs it; it is looked up from the call when absent). */
  name?: string;
  content: Array<TextPart | ImagePart>;
  isError?: boolean;
}

export type UserPart = TextPart | ImagePart | ToolResultPart;
export type AssistantPart = TextPart | ReasoningPart | ToolCallPart;

export type Message = { role: 'user'; content: UserPart[] } | { role: 'assistant'; content: AssistantPart[] };

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface ReasoningConfig {
  /** OpenAI-style effort; mapped to a thinking budget where the provider wants tokens. */
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  /** Thinking budget in tokens (Anthropic budget_tokens, Gemini thinkingBudget). */
  budgetTokens?: number;
  /** false turns thinking off where the model would think by default. */
  enabled?: boolean;
}

export interface ChatRequest {
  /** The model asked for (after model mapping when built for an upstream). */
  model: string;
  system: TextPart[];
  messages: Message[];
  tools: ToolDefinition[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningConfig;
  parallelToolCalls?: boolean;
  /**
   * Web search run by the provider (OpenAI's web_search tool, Anthropic's web_search server tool, Gemini's Google
   * Search): built as the upstream's own; an upstream without one refuses the request naming the tool.
   */
  webSearch?: { maxUses?: number; allowedDomains?: string[] };
  /** An end-user id for the provider's abuse monitoring. */
  user?: string;
  stream: boolean;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error';

export interface ChatResponse {
  id: string;
  model: string;
  content: AssistantPart[];
  finishReason: FinishReason;
  usage?: Usage;
  /** Images the model drew in its answer (Gemini's image models), as base64. */
  images?: DrawnImage[];
}

/** An image a model drew in its answer: its MIME type and its bytes as base64. */
export interface DrawnImage {
  mediaType: string;
  data: string;
}

/**
 * One step of a streamed answer, in order. Text, reasoning and tool-call argument deltas arrive as pieces;
 * `tool_call` opens a call (its argument pieces follow with the same `index`); `finish` and `usage` may come
 * in either order and usage may be repeated with growing values (the last one counts).
 */
export type StreamPart =
  | { type: 'start'; id?: string; model?: string }
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string; signature?: string; redacted?: string }
  | { type: 'tool_call'; index: number; id: string; name: string; signature?: string }
  | { type: 'tool_call_delta'; index: number; arguments: string }
  | { type: 'finish'; reason: FinishReason }
  | { type: 'usage'; usage: Usage }
  | ({ type: 'image' } & DrawnImage);

/** An empty request to fill in; dialect parsers start from it. */
export function emptyRequest(model: string): ChatRequest {
  return { model, system: [], messages: [], tools: [], stream: false };
}

/** Joins the text of parts (for token counting and for providers that take plain strings). */
export function textOf(parts: ReadonlyArray<{ type: string; text?: string }>): string {
  let text = '';
  for (const part of parts) if (part.type === 'text' && part.text) text += part.text;
  return text;
}

/**
 * Collapses a stream into the answer it built: what a non-stream response would have said. Used by channel
 * tests and by dialects that must answer a stream-only upstream without streaming.
 */
export function collectStream(parts: Iterable<StreamPart>): ChatResponse {
  const response: ChatResponse = { id: '', model: '', content: [], finishReason: 'stop' };
  const calls = new Map<number, ToolCallPart>();
  for (const part of parts) {
    if (part.type === 'start') {
      response.id ||= part.id ?? '';
      response.model ||= part.model ?? '';
    } else if (part.type === 'text') {
      const last = response.content.at(-1);
      if (last?.type === 'text') last.text += part.text;
      else response.content.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') {
      const last = response.content.at(-1);
      if (last?.type === 'reasoning' && !part.redacted) {
        last.text += part.text;
        if (part.signature) last.signature = (last.signature ?? '') + part.signature;
      } else response.content.push({ type: 'reasoning', text: part.text, signature: part.signature, redacted: part.redacted });
    } else if (part.type === 'tool_call') {
      const call: ToolCallPart = { type: 'tool_call', id: part.id, name: part.name, arguments: '', signature: part.signature };
      calls.set(part.index, call);
      response.content.push(call);
    } else if (part.type === 'tool_call_delta') {
      const call = calls.get(part.index);
      if (call) call.arguments += part.arguments;
    } else if (part.type === 'finish') response.finishReason = part.reason;
    else if (part.type === 'usage') response.usage = part.usage;
    else if (part.type === 'image') (response.images ??= []).push({ mediaType: part.mediaType, data: part.data });
  }
  return response;
}
