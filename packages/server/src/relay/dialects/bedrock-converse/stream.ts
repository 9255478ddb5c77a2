import type { FinishReason, StreamPart, Usage } from '../../canonical.js';
import type { Frame, StreamReader, StreamWriter, WriteContext } from '../types.js';
import { asString, isRecord, parseEvent, UpstreamStreamError } from '../shared.js';
import { finishFromConverse, finishToConverse, readConverseUsage, writeConverseUsage } from './response.js';

const EVENTS = new Set(['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata']);

/**
 * Reads ConverseStream's events (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html),
 * named by the frame (`:event-type`) or, in the AWS SDKs' JSON form, by the one key wrapping the payload. Tool input
 * arrives as text pieces of the block opened by contentBlockStart; reasoning as text pieces then its signature;
 * usage in the closing metadata event. An exception event (throttlingException, modelStreamErrorException, …)
 * ends the stream as an upstream error.
 */
export function createConverseStreamReader(): StreamReader {
  return {
    read(frame: Frame): StreamPart[] {
      let payload = parseEvent(frame.data);
      if (!payload) return [];
      let event = frame.event;
      if (!event) {
        const key = Object.keys(payload).find((k) => EVENTS.has(k) || k.endsWith('Exception'));
        if (key && isRecord(payload[key])) {
          event = key;
          payload = payload[key] as Record<string, unknown>;
        }
      }
      const index = typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : 0;
      switch (event) {
        case 'messageStart':
          return [{ type: 'start' }];
        case 'contentBlockStart': {
          const use = isRecord(payload.start) && isRecord(payload.start.toolUse) ? payload.start.toolUse : undefined;
          return use ? [{ type: 'tool_call', index, id: asString(use.toolUseId) ?? '', name: asString(use.name) ?? '' }] : [];
        }
        case 'contentBlockDelta': {
          const delta = isRecord(payload.delta) ? payload.delta : {};
          if (typeof delta.text === 'string') return delta.text ? [{ type: 'text', text: delta.text }] : [];
          if (isRecord(delta.toolUse)) return [{ type: 'tool_call_delta', index, arguments: asString(delta.toolUse.input) ?? '' }];
          if (isRecord(delta.reasoningContent)) {
            const reasoning = delta.reasoningContent;
            if (typeof reasoning.redactedContent === 'string') return [{ type: 'reasoning', text: '', redacted: reasoning.redactedContent }];
            if (typeof reasoning.signature === 'string') return [{ type: 'reasoning', text: '', signature: reasoning.signature }];
            if (typeof reasoning.text === 'string') return [{ type: 'reasoning', text: reasoning.text }];
          }
          return [];
        }
        case 'messageStop': {
          const reason = finishFromConverse(payload.stopReason);
          return reason ? [{ type: 'finish', reason }] : [];
        }
        case 'metadata': {
          const usage = readConverseUsage(payload.usage);
          return usage ? [{ type: 'usage', usage }] : [];
        }
        default:
          if (event?.endsWith('Exception')) throw new UpstreamStreamError(`${event}: ${asString(payload.message) ?? asString(payload.Message) ?? '上游返回错误'}`);
          return [];
      }
    },
  };
}

const sse = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Writes canonical parts as ConverseStream events. StreamWriter writes text, so the events are framed as SSE (the
 * event name in `event:`, the payload in `data:`) rather than as binary event-stream messages; the events and their
 * payloads are Converse's. Blocks are numbered as they open; text and reasoning blocks open with their first delta,
 * tool blocks with contentBlockStart; messageStop and metadata (usage) close the answer.
 */
export function createConverseStreamWriter(_context: WriteContext): StreamWriter {
  let started = false;
  let open: { kind: 'text' | 'reasoning' | 'tool'; index: number } | undefined;
  let next = 0;
  const toolBlocks = new Map<number, number>();
  let finish: FinishReason | undefined;
  let usage: Usage | undefined;

  const start = () => {
    if (started) return '';
    started = true;
    return sse('messageStart', { role: 'assistant' });
  };
  const close = () => {
    if (!open) return '';
    const index = open.index;
    open = undefined;
    return sse('contentBlockStop', { contentBlockIndex: index });
  };
  const ensure = (kind: 'text' | 'reasoning') => {
    if (open?.kind === kind) return '';
    const out = close();
    open = { kind, index: next++ };
    return out;
  };
  const delta = (delta: Record<string, unknown>) => sse('contentBlockDelta', { contentBlockIndex: open!.index, delta });

  return {
    write(part: StreamPart): string {
      let out = start();
      switch (part.type) {
        case 'start':
          return out;
        case 'text':
          if (!part.text) return out;
          out += ensure('text');
          return out + delta({ text: part.text });
        case 'reasoning':
          if (part.redacted !== undefined) {
            out += close();
            open = { kind: 'reasoning', index: next++ };
            return out + delta({ reasoningContent: { redactedContent: part.redacted } }) + close();
          }
          out += ensure('reasoning');
          if (part.text) out += delta({ reasoningContent: { text: part.text } });
          if (part.signature) out += delta({ reasoningContent: { signature: part.signature } });
          return out;
        case 'tool_call':
          out += close();
          open = { kind: 'tool', index: next++ };
          toolBlocks.set(part.index, open.index);
          return out + sse('contentBlockStart', { contentBlockIndex: open.index, start: { toolUse: { toolUseId: part.id, name: part.name } } });
        case 'tool_call_delta':
          if (!part.arguments) return out;
          return out + sse('contentBlockDelta', { contentBlockIndex: toolBlocks.get(part.index) ?? open?.index ?? 0, delta: { toolUse: { input: part.arguments } } });
        case 'finish':
          finish = part.reason;
          return out;
        case 'usage':
          usage = part.usage;
          return out;
        case 'image':
          // Converse streams carry no image in answers.
          return out;
      }
    },
    end(): string {
      const reason = finish ?? (toolBlocks.size > 0 ? 'tool_calls' : 'stop');
      return start() + close() + sse('messageStop', { stopReason: finishToConverse(reason) }) + sse('metadata', { usage: writeConverseUsage(usage), metrics: { latencyMs: 0 } });
    },
    error: (message: string): string => sse('internalServerException', { message }),
  };
}
