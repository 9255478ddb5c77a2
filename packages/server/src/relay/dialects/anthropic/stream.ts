import type { FinishReason, StreamPart, Usage } from '../../canonical.js';
import type { Frame, StreamReader, StreamWriter, WriteContext } from '../types.js';
import { asString, isRecord, parseEvent, UpstreamStreamError } from '../shared.js';
import { finishFromAnthropic, finishToAnthropic, readAnthropicUsage, writeAnthropicUsage } from './response.js';

/**
 * Reads Anthropic's event stream. Usage is split: input (and cache) counts come in message_start, output counts
 * in message_delta (cumulative); the reader keeps the first and reports both together. The input counts are also
 * reported as soon as they come, the output left to be counted, so that a stream cut before its message_delta is
 * billed its input as Anthropic counted it (cache writes, images and documents included).
 */
export function createMessagesStreamReader(): StreamReader {
  let startUsage: Record<string, unknown> = {};
  return {
    read(frame: Frame): StreamPart[] {
      const event = parseEvent(frame.data);
      if (!event) return [];
      switch (event.type) {
        case 'message_start': {
          const message = isRecord(event.message) ? event.message : {};
          startUsage = isRecord(message.usage) ? message.usage : {};
          const start: StreamPart[] = [{ type: 'start', id: asString(message.id), model: asString(message.model) }];
          const input = readAnthropicUsage({ ...startUsage, output_tokens: undefined });
          if (input && !input.unreported?.prompt) start.push({ type: 'usage', usage: input });
          return start;
        }
        case 'content_block_start': {
          const block = isRecord(event.content_block) ? event.content_block : {};
          const index = typeof event.index === 'number' ? event.index : 0;
          if (block.type === 'tool_use') return [{ type: 'tool_call', index, id: asString(block.id) ?? '', name: asString(block.name) ?? '' }];
          if (block.type === 'redacted_thinking') return [{ type: 'reasoning', text: '', redacted: asString(block.data) ?? '' }];
          if (block.type === 'text' && typeof block.text === 'string' && block.text) return [{ type: 'text', text: block.text }];
          if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking) return [{ type: 'reasoning', text: block.thinking }];
          return [];
        }
        case 'content_block_delta': {
          const delta = isRecord(event.delta) ? event.delta : {};
          const index = typeof event.index === 'number' ? event.index : 0;
          if (delta.type === 'text_delta') return [{ type: 'text', text: asString(delta.text) ?? '' }];
          if (delta.type === 'input_json_delta') return [{ type: 'tool_call_delta', index, arguments: asString(delta.partial_json) ?? '' }];
          if (delta.type === 'thinking_delta') return [{ type: 'reasoning', text: asString(delta.thinking) ?? '' }];
          if (delta.type === 'signature_delta') return [{ type: 'reasoning', text: '', signature: asString(delta.signature) ?? '' }];
          return [];
        }
        case 'message_delta': {
          const parts: StreamPart[] = [];
          const reason = finishFromAnthropic(isRecord(event.delta) ? event.delta.stop_reason : undefined);
          if (reason) parts.push({ type: 'finish', reason });
          // Later fields win: message_delta repeats cumulative counts (and, lately, the input counts too).
          const usage = readAnthropicUsage({ ...startUsage, ...(isRecord(event.usage) ? dropNulls(event.usage) : {}) });
          if (usage) parts.push({ type: 'usage', usage });
          return parts;
        }
        case 'error': {
          const error = isRecord(event.error) ? event.error : {};
          throw new UpstreamStreamError(asString(error.message) ?? '上游返回错误');
        }
        default:
          return [];
      }
    },
  };
}

const dropNulls = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));

const sse = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/**
 * Writes canonical parts as Anthropic events: message_start, then content blocks opened and closed as the kind
 * of content changes (text, thinking, tool_use, each with its index), then message_delta with the stop reason
 * and the usage, and message_stop.
 */
export function createMessagesStreamWriter(context: WriteContext): StreamWriter {
  let started = false;
  let open: { kind: 'text' | 'thinking' | 'tool_use'; index: number } | undefined;
  let next = 0;
  const toolBlocks = new Map<number, number>();
  let finish: FinishReason | undefined;
  let usage: Usage | undefined;

  const start = () => {
    if (started) return '';
    started = true;
    return sse('message_start', {
      message: { id: context.id, type: 'message', role: 'assistant', model: context.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
    });
  };
  const close = () => {
    if (!open) return '';
    const index = open.index;
    open = undefined;
    return sse('content_block_stop', { index });
  };
  const openBlock = (kind: 'text' | 'thinking' | 'tool_use', block: Record<string, unknown>) => {
    const out = close();
    open = { kind, index: next++ };
    return out + sse('content_block_start', { index: open.index, content_block: block });
  };

  return {
    write(part: StreamPart): string {
      let out = start();
      switch (part.type) {
        case 'start':
          return out;
        case 'text':
          if (open?.kind !== 'text') out += openBlock('text', { type: 'text', text: '' });
          return out + sse('content_block_delta', { index: open!.index, delta: { type: 'text_delta', text: part.text } });
        case 'reasoning':
          if (part.redacted !== undefined) {
            out += openBlock('thinking', { type: 'redacted_thinking', data: part.redacted }) + close();
            return out;
          }
          if (open?.kind !== 'thinking') out += openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          if (part.text) out += sse('content_block_delta', { index: open!.index, delta: { type: 'thinking_delta', thinking: part.text } });
          if (part.signature) out += sse('content_block_delta', { index: open!.index, delta: { type: 'signature_delta', signature: part.signature } });
          return out;
        case 'tool_call':
          out += openBlock('tool_use', { type: 'tool_use', id: part.id, name: part.name, input: {} });
          toolBlocks.set(part.index, open!.index);
          return out;
        case 'tool_call_delta':
          return out + sse('content_block_delta', { index: toolBlocks.get(part.index) ?? open?.index ?? 0, delta: { type: 'input_json_delta', partial_json: part.arguments } });
        case 'finish':
          finish = part.reason;
          return out;
        case 'usage':
          usage = part.usage;
          return out;
        case 'image':
          // The Messages API has no image in answers: a drawn image cannot be passed on.
          return out;
      }
    },
    end(): string {
      const reason = finish ?? (toolBlocks.size > 0 ? 'tool_calls' : 'stop');
      return start() + close() + sse('message_delta', { delta: { stop_reason: finishToAnthropic(reason), stop_sequence: null }, usage: writeAnthropicUsage(usage) }) + sse('message_stop', {});
    },
    // An error event stands on its own: in a pass-through the upstream already sent message_start.
    error: (message: string): string => sse('error', { error: { type: 'api_error', message } }),
  };
}
