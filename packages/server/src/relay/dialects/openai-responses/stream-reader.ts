import type { StreamPart } from '../../canonical.js';
import type { Frame, StreamReader } from '../types.js';
import { asArray, asString, isRecord, parseEvent, UpstreamStreamError } from '../shared.js';
import { uncarry } from './carrier.js';
import { freeformArguments } from './freeform.js';
import { reasoningText } from './parse-request.js';
import { finishOf, readResponsesUsage } from './response.js';

/**
 * Reads a Responses event stream (https://platform.openai.com/docs/api-reference/responses-streaming). Text,
 * reasoning summaries and function-call arguments arrive as deltas (a custom tool's text is taken from its
 * finished item); the usage only in the terminal event (`response.completed`, or `response.incomplete` when the
 * answer was cut short: both are billed). A `response.failed` or `error` event breaks the stream.
 *
 * It remembers where the upstream's stream stood (last sequence number, response id), so that in a pass-through
 * the gateway's own error event can continue it (see the writer).
 */
export class ResponsesStreamReader implements StreamReader {
  /** Sequence number of the last event read; -1 before any. */
  lastSequence = -1;
  responseId?: string;
  private started = false;
  /** Function calls by output_index, and whether their arguments came as deltas. */
  private readonly calls = new Map<number, { deltas: boolean }>();
  /** Output indexes whose text (or reasoning summary) came as deltas. */
  private readonly streamed = new Set<number>();
  private toolSignature: string | undefined;

  read(frame: Frame): StreamPart[] {
    const event = parseEvent(frame.data);
    if (!event) return [];
    if (typeof event.sequence_number === 'number') this.lastSequence = event.sequence_number;
    const index = typeof event.output_index === 'number' ? event.output_index : 0;
    switch (event.type ?? frame.event) {
      case 'response.created':
      case 'response.queued':
      case 'response.in_progress':
        return this.start(event.response);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        this.streamed.add(index);
        return typeof event.delta === 'string' && event.delta ? [{ type: 'text', text: event.delta }] : [];
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.streamed.add(index);
        return typeof event.delta === 'string' && event.delta ? [{ type: 'reasoning', text: event.delta }] : [];
      case 'response.output_item.added':
        return isRecord(event.item) && event.item.type === 'function_call' ? this.openCall(index, event.item) : [];
      case 'response.function_call_arguments.delta': {
        const call = this.calls.get(index);
        if (call) call.deltas = true;
        return typeof event.delta === 'string' && event.delta ? [{ type: 'tool_call_delta', index, arguments: event.delta }] : [];
      }
      case 'response.output_item.done':
        return isRecord(event.item) ? this.itemDone(index, event.item) : [];
      case 'response.reasoning_summary_part.added':
        // Summary parts are paragraphs: joined as a whole item's summary would be.
        return typeof event.summary_index === 'number' && event.summary_index > 0 ? [{ type: 'reasoning', text: '\n\n' }] : [];
      case 'response.completed':
      case 'response.incomplete':
        return this.finish(event.response, event.type === 'response.incomplete' ? 'incomplete' : 'completed');
      case 'response.failed': {
        const response = isRecord(event.response) ? event.response : {};
        const error = isRecord(response.error) ? response.error : {};
        throw new UpstreamStreamError(asString(error.message) ?? '上游返回错误');
      }
      case 'error':
        throw new UpstreamStreamError(asString(event.message) ?? (isRecord(event.error) ? asString(event.error.message) : undefined) ?? '上游返回错误');
      default:
        return [];
    }
  }

  private start(response: unknown): StreamPart[] {
    if (this.started) return [];
    this.started = true;
    const json = isRecord(response) ? response : {};
    this.responseId = asString(json.id);
    return [{ type: 'start', id: this.responseId, model: asString(json.model) }];
  }

  private openCall(index: number, item: Record<string, unknown>): StreamPart[] {
    this.calls.set(index, { deltas: false });
    const signature = this.toolSignature;
    this.toolSignature = undefined;
    return [{ type: 'tool_call', index, id: asString(item.call_id) ?? asString(item.id) ?? '', name: asString(item.name) ?? '', ...(signature ? { signature } : {}) }];
  }

  /** A finished item: what its deltas did not already say (a stream may send some items whole), and carried signatures. */
  private itemDone(index: number, item: Record<string, unknown>): StreamPart[] {
    if (item.type === 'function_call') {
      const parts = this.calls.has(index) ? [] : this.openCall(index, item);
      const args = typeof item.arguments === 'string' ? item.arguments : '';
      if (!this.calls.get(index)!.deltas && args) parts.push({ type: 'tool_call_delta', index, arguments: args });
      return parts;
    }
    if (item.type === 'custom_tool_call') {
      // Its text is taken whole from the finished item (its input deltas are not JSON arguments).
      return [...this.openCall(index, item), { type: 'tool_call_delta', index, arguments: freeformArguments(asString(item.input) ?? '') }];
    }
    if (item.type === 'message') {
      if (this.streamed.has(index)) return [];
      const text = asArray(item.content)
        .flatMap((p) => (isRecord(p) && (p.type === 'output_text' || p.type === 'refusal') ? [asString(p.text) ?? asString(p.refusal) ?? ''] : []))
        .join('');
      return text ? [{ type: 'text', text }] : [];
    }
    if (item.type !== 'reasoning') return [];
    const parts: StreamPart[] = [];
    const text = this.streamed.has(index) ? '' : reasoningText(item);
    const carried = uncarry(item.encrypted_content);
    if (carried?.toolSignature) this.toolSignature = carried.toolSignature;
    if (carried?.redacted !== undefined) parts.push({ type: 'reasoning', text: '', redacted: carried.redacted });
    else if (text || carried?.signature !== undefined) parts.push({ type: 'reasoning', text, ...(carried?.signature !== undefined ? { signature: carried.signature } : {}) });
    return parts;
  }

  private finish(response: unknown, status: 'completed' | 'incomplete'): StreamPart[] {
    const json = isRecord(response) ? response : {};
    const parts: StreamPart[] = [...this.start(json)];
    const hasCalls = this.calls.size > 0 || asArray(json.output).some((item) => isRecord(item) && (item.type === 'function_call' || item.type === 'custom_tool_call'));
    parts.push({ type: 'finish', reason: finishOf(json.status ?? status, json.incomplete_details, hasCalls) });
    const usage = readResponsesUsage(json.usage);
    if (usage) parts.push({ type: 'usage', usage });
    return parts;
  }
}

export function createResponsesStreamReader(): StreamReader {
  return new ResponsesStreamReader();
}
