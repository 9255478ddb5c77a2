import type { ServerResponse } from 'node:http';
import { fixtures } from './fixtures.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local Coze Open API (https://www.coze.com/open/docs/developer_guides/chat_v3), `POST /v3/chat` only, answering
 * with providers/coze/__fixtures__. It checks what Coze checks: the personal access token (`Authorization: Bearer
 * pat_<mode>`), the bot id, the user id, the messages (the last one the user's), and that a chat not saved to the
 * history is streamed. Errors are Coze's `{code, msg}`: an invalid token with HTTP 401, the others with 200 as Coze
 * sends them to a stream request. A non-stream request gets what Coze gives it: the chat just started, no answer.
 *
 * Modes (the token's `<mode>`): `tool` adds the bot's own plugin call and its output (messages that are not the
 * answer); `stream-error` fails the chat half way (`conversation.chat.failed`); `break` cuts the stream; the
 * timing modes of mock-server.ts apply. A token `pat_<mode>:input-<N>` has the bot report N input tokens (a bot
 * whose persona, knowledge and plugin results fill its prompt) instead of the recording's 412.
 */
const fx = fixtures('coze');

/** A personal access token for the mock, carrying the mode. */
export const cozeToken = (mode: MockMode | `${MockMode}:${string}` = 'ok') => `pat_${mode}`;

const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'invalid_param',
  'fail-401': 'invalid_token',
  'fail-403': 'no_permission',
  'fail-429': 'rate_limited',
  'fail-500': 'internal',
  'fail-503': 'internal',
};

function sendError(res: ServerResponse, name: string, msg?: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, msg ? { ...error.body, msg } : error.body, { 'x-tt-logid': '20241001000000MOCKLOGID' });
}

const OBJECT_TYPES = new Set(['text', 'image', 'file', 'audio']);

/** What Coze says of a v3 chat body, or null when it takes it. */
export function cozeChatProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The request body must be a JSON object.';
  const b = body as Record<string, unknown>;
  if (typeof b.bot_id !== 'string' || !b.bot_id) return 'bot_id is required.';
  if (typeof b.user_id !== 'string' || !b.user_id) return 'user_id is required.';
  if (b.stream !== undefined && typeof b.stream !== 'boolean') return 'stream must be a boolean.';
  if (b.auto_save_history === false && b.stream !== true) return 'auto_save_history must be true for a non-streaming chat.';
  const messages = b.additional_messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'additional_messages must hold at least one message.';
  for (const [i, m] of messages.entries()) {
    if (typeof m !== 'object' || m === null) return `additional_messages[${i}] must be an object.`;
    const { role, content, content_type: type } = m as Record<string, unknown>;
    if (role !== 'user' && role !== 'assistant') return `additional_messages[${i}].role must be user or assistant.`;
    if (typeof content !== 'string' || !content) return `additional_messages[${i}].content must be a non-empty string.`;
    if (type !== 'text' && type !== 'object_string') return `additional_messages[${i}].content_type must be text or object_string.`;
    if (type === 'object_string') {
      let objects: unknown;
      try {
        objects = JSON.parse(content);
      } catch {
        return `additional_messages[${i}].content is not a JSON array of objects.`;
      }
      if (role !== 'user' || !Array.isArray(objects) || objects.length === 0) return `additional_messages[${i}]: object_string content is a non-empty array in a user message.`;
      for (const o of objects as Array<Record<string, unknown>>) {
        if (!OBJECT_TYPES.has(String(o?.type))) return `additional_messages[${i}]: unknown object type ${String(o?.type)}.`;
        if (o.type === 'text' ? typeof o.text !== 'string' : typeof o.file_url !== 'string' && typeof o.file_id !== 'string') return `additional_messages[${i}]: ${String(o.type)} needs ${o.type === 'text' ? 'text' : 'file_url or file_id'}.`;
      }
    }
  }
  if ((messages.at(-1) as { role?: unknown }).role !== 'user') return 'The last message of additional_messages must be a user message.';
  return null;
}

/** The recorded stream as its events' text, one per event (blank line included). */
function recordedEvents(): string[] {
  return fx
    .text('text.stream.txt')
    .split(/\n\n/)
    .filter((block) => block.trim())
    .map((block) => `${block}\n\n`);
}

const event = (name: string, data: unknown) => `event:${name}\ndata:${JSON.stringify(data)}\n\n`;

/** The bot running one of its own plugins before it answers: messages that are not the answer. */
function pluginEvents(botId: string): string[] {
  const base = { conversation_id: '7381473525342978089', bot_id: botId, role: 'assistant', chat_id: '7382159487131697202', content_type: 'text' };
  return [
    event('conversation.message.completed', { ...base, id: '7382159494123470001', type: 'function_call', content: '{"name":"calendar-weekday","arguments":{"date":"2024-10-01"}}' }),
    event('conversation.message.completed', { ...base, id: '7382159494123470002', type: 'tool_output', content: '{"weekday":"Tuesday"}' }),
  ];
}

export async function startMockCoze(): Promise<MockHandle> {
  return startMockServer(async (req, res, recorded) => {
    if (req.method !== 'POST' || recorded.path !== '/v3/chat') return sendJson(res, 404, { code: 4000, msg: 'The requested API path does not exist.' });
    const token = /^Bearer\s+(\S+)$/i.exec(String(recorded.headers.authorization ?? ''))?.[1];
    const mode = token?.startsWith('pat_') ? modeOf(token.slice(4)) : undefined;
    recorded.key = token;
    if (!mode) return sendError(res, 'invalid_token');
    recorded.mode = mode;
    const body = recorded.body as Record<string, unknown>;
    const stream = body?.stream === true;
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);
    const problem = cozeChatProblem(body);
    if (problem) return sendError(res, 'invalid_param', problem);
    if (!/^\d+$/.test(String(body.bot_id))) return sendError(res, 'bot_not_found');
    if (!stream) {
      // Coze's non-stream chat: started, to be polled (/v3/chat/retrieve, /v3/chat/message/list).
      return sendJson(res, 200, { code: 0, msg: '', data: { id: '7382159487131697202', conversation_id: '7381473525342978089', bot_id: body.bot_id, created_at: 1718792949, last_error: { code: 0, msg: '' }, status: 'in_progress' } });
    }
    const events = recordedEvents().map((e) => e.replaceAll('7379462189365198898', String(body.bot_id)));
    if (mode === 'tool') events.splice(2, 0, ...pluginEvents(String(body.bot_id)));
    const input = /:input-(\d+)$/.exec(token ?? '')?.[1];
    if (input) {
      const completed = events.findIndex((e) => e.includes('"input_count":412'));
      events[completed] = events[completed].replace('"token_count":423', `"token_count":${Number(input) + 11}`).replace('"input_count":412', `"input_count":${input}`);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-tt-logid': '20241001000000MOCKLOGID' });
    if (mode === 'stream-error') {
      await writePaced(res, firstHalf(events.slice(0, -3)), 'ok');
      const failed = fx.json('errors.json').chat_failed_event;
      return void res.end(event(failed.event, failed.body));
    }
    if (await writePaced(res, events, mode)) res.end();
  });
}
