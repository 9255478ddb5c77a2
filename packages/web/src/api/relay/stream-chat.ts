import { API_BASE } from '../../lib/api';

/** One message of the conversation as OpenAI's chat API takes it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Splits a chunk of a server-sent event stream into the `data:` payloads it completes; what is left of an event
 * not yet ended by a blank line is returned to be prefixed to the next chunk.
 */
export function parseSse(buffer: string): { data: string[]; rest: string } {
  const normalised = buffer.replace(/\r\n?/g, '\n');
  const events = normalised.split('\n\n');
  const rest = events.pop() ?? '';
  const data: string[] = [];
  for (const event of events) {
    const lines = event.split('\n').filter((line) => line.startsWith('data:'));
    if (lines.length) data.push(lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n'));
  }
  return { data, rest };
}

/** A relay error in OpenAI's shape, as the answer's text. */
export class ChatError extends Error {}

export interface StreamCallbacks {
  /** The answer has begun: the relay's X-Request-Id (known even if the stream is stopped later). */
  onStart?: (requestId: string) => void;
  onDelta: (text: string) => void;
  onUsage: (usage: ChatUsage) => void;
}

/**
 * POST /v1/chat/completions with the user's key, streamed: every content delta is handed on as it arrives, and
 * the relay's X-Request-Id first (to look up what the answer was charged). An abort stops reading and rejects
 * with the AbortError; an error answer rejects with ChatError carrying the relay's message.
 */
export async function streamChat(
  request: { key: string; model: string; messages: ChatMessage[]; temperature: number },
  callbacks: StreamCallbacks,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`${API_BASE}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${request.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: request.model, messages: request.messages, temperature: request.temperature, stream: true, stream_options: { include_usage: true } }),
    signal,
  });
  const requestId = response.headers.get('x-request-id') ?? '';
  callbacks.onStart?.(requestId);
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new ChatError(body.error?.message ?? `HTTP ${response.status}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const { data, rest } = parseSse(buffer + decoder.decode(value, { stream: true }));
    buffer = rest;
    for (const payload of data) {
      if (payload === '[DONE]') continue;
      let chunk: { choices?: Array<{ delta?: { content?: string | null } }>; usage?: ChatUsage | null; error?: { message?: string } };
      try {
        chunk = JSON.parse(payload);
      } catch {
        continue;
      }
      if (chunk.error) throw new ChatError(chunk.error.message ?? '上游返回了错误');
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) callbacks.onDelta(text);
      if (chunk.usage) callbacks.onUsage(chunk.usage);
    }
  }
}
