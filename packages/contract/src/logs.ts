/** A usage log row as GET /api/log/ and /api/log/self/ return it (docs/console.md §3, "Log"). */
export interface LogDto {
  id: number;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** channel id */
  channel: number;
  request_id: string;
  /** milliseconds */
  elapsed_time: number;
  is_stream: boolean;
  /** milliseconds from the request to the answer's first byte (0 when unknown) */
  first_byte_ms: number;
  /** the channel's name when the request ran */
  channel_name: string;
  /** the client's dialect: openai-chat, openai-responses, anthropic, gemini, an OpenAI endpoint, or gemini-embeddings */
  dialect: string;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** why a failed request (type 5) failed */
  error: string;
  /** the channels a relay request tried, in order, and why each one was left */
  attempts: LogAttempt[];
  /** how the request was routed: session affinity, and the fallback models it went through (null for older rows) */
  routing: LogRouting | null;
}

/** How a relay request found the channel that answered it. */
export interface LogRouting {
  /** The channel was the one this agent session used last (session affinity). */
  affinity: boolean;
  /** The model the client asked for. */
  requested_model: string;
  /** The models tried in order when the first had no channel that could serve it (fallbacks); empty when none were. */
  models: string[];
}

export interface LogAttempt {
  channel_id: number;
  channel_name: string;
  /** HTTP status the channel answered (0 when it could not be reached) */
  status: number;
  reason: string;
}
