import type { FinishReason, StreamPart, Usage } from '../../canonical.js';
import type { ClientTool, Frame, StreamReader, StreamWriter, WriteContext } from '../types.js';
import { asArray, asString, isRecord, parseEvent, UpstreamStreamError } from '../shared.js';
import { carry, uncarry } from './carrier.js';
import { callItem, isWholeCall } from './client-tools.js';
import { freeformArguments, freeformInput } from './freeform.js';
import { reasoningText } from './parse-request.js';
import { finishOf, imageItem, itemId, readResponsesUsage, reasoningItem, responseObject, statusOf, textPart } from './response.js';
import { flatMap } from '../../../lib/arrays.js';

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
      const text = flatMap(asArray(item.content), (p) => (isRecord(p) && (p.type === 'output_text' || p.type === 'refusal') ? [asString(p.text) ?? asString(p.refusal) ?? ''] : []))
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
    const usage = readResponsesUsage(json.usage, json);
    if (usage) parts.push({ type: 'usage', usage });
    return parts;
  }
}

export function createResponsesStreamReader(): StreamReader {
  return new ResponsesStreamReader();
}

type Item = Record<string, unknown>;

/** The item being streamed: its place in `output` and what it has said so far. */
type OpenItem =
  | { kind: 'message'; index: number; id: string; text: string }
  | { kind: 'reasoning'; index: number; id: string; text: string; signature: string; summary: boolean }
  /** `whole`: an item of a built-in client tool, added and done at once when its arguments are complete (no deltas). */
  | { kind: 'function_call' | 'custom_tool_call' | 'whole'; index: number; id: string; callId: string; name: string; arguments: string };
type OpenCall = Extract<OpenItem, { callId: string }>;

/** An item as output_item.done (or a failed response's output) shows it. */
function itemOf(item: OpenItem, status: 'completed' | 'incomplete', tools?: ReadonlyMap<string, ClientTool>): Item {
  if (item.kind === 'message') return { id: item.id, type: 'message', status, role: 'assistant', content: [textPart(item.text)] };
  if (item.kind === 'reasoning') return reasoningItem(item.id, item.text, item.signature ? { signature: item.signature } : undefined);
  return callItem(item.id, status, item.callId, item.name, item.arguments, tools);
}

/** A call without arguments still carries a JSON object (clients parse the field). */
const argumentsOf = (item: { arguments: string }) => item.arguments || '{}';

/**
 * Writes canonical parts as Responses events, each with its `sequence_number`, in the order OpenAI sends them
 * (https://platform.openai.com/docs/api-reference/responses-streaming): response.created and
 * response.in_progress; per output item output_item.added, its content part or summary part, the deltas, their
 * .done events and output_item.done carrying the whole item (Codex CLI builds its history from these); then
 * response.completed (or response.incomplete) with the output and the usage, reasoning tokens included.
 *
 * `continuing` is the reader of an upstream stream in this same dialect that the writer continues (a
 * pass-through that broke): the error events then follow the upstream's numbering and response id.
 */
export function createResponsesStreamWriter(context: WriteContext, continuing?: StreamReader): StreamWriter {
  let sequence = 0;
  let responseId = context.id;
  let started = false;
  if (continuing instanceof ResponsesStreamReader && continuing.lastSequence >= 0) {
    sequence = continuing.lastSequence + 1;
    responseId = continuing.responseId ?? context.id;
    started = true;
  }
  const output: Item[] = [];
  const calls = new Map<number, OpenCall>();
  let open: OpenItem | undefined;
  let finish: FinishReason | undefined;
  let usage: Usage | undefined;

  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  const snapshot = (status: 'in_progress' | 'completed' | 'incomplete' | 'failed', extra: Parameters<typeof responseObject>[2]) =>
    responseObject({ id: responseId, model: context.model, created: context.created }, status, extra);
  const start = () => {
    if (started) return '';
    started = true;
    const response = snapshot('in_progress', { output: [] });
    return event('response.created', { response }) + event('response.in_progress', { response });
  };
  const add = (item: Item) => {
    output.push(item);
    return event('response.output_item.added', { output_index: output.length - 1, item });
  };
  /** An item written whole (a redacted thinking block, a tool call's carried signature). */
  const whole = (item: Item) => add(item) + event('response.output_item.done', { output_index: output.length - 1, item });

  const close = (): string => {
    const item = open;
    if (!item) return '';
    open = undefined;
    let out = '';
    if (item.kind === 'message') {
      out += event('response.output_text.done', { item_id: item.id, output_index: item.index, content_index: 0, text: item.text, logprobs: [] });
      out += event('response.content_part.done', { item_id: item.id, output_index: item.index, content_index: 0, part: textPart(item.text) });
    } else if (item.kind === 'reasoning' && item.summary) {
      out += event('response.reasoning_summary_text.done', { item_id: item.id, output_index: item.index, summary_index: 0, text: item.text });
      out += event('response.reasoning_summary_part.done', { item_id: item.id, output_index: item.index, summary_index: 0, part: { type: 'summary_text', text: item.text } });
    } else if (item.kind === 'whole') {
      // Added only now that its arguments are complete: the item is whole from the start.
      const done = itemOf(item, 'completed', context.clientTools);
      output[item.index] = done;
      return out + event('response.output_item.added', { output_index: item.index, item: done }) + event('response.output_item.done', { output_index: item.index, item: done });
    } else if (item.kind === 'function_call') {
      out += event('response.function_call_arguments.done', { item_id: item.id, output_index: item.index, name: context.clientTools?.get(item.name)?.name ?? item.name, arguments: argumentsOf(item) });
    } else if (item.kind === 'custom_tool_call') {
      // The provider wrote JSON arguments around the text: the text is known whole only now, and goes out in one delta.
      const input = freeformInput(item.arguments);
      if (input) out += event('response.custom_tool_call_input.delta', { item_id: item.id, output_index: item.index, delta: input });
      out += event('response.custom_tool_call_input.done', { item_id: item.id, output_index: item.index, input });
    }
    const done = itemOf(item, 'completed', context.clientTools);
    output[item.index] = done;
    return out + event('response.output_item.done', { output_index: item.index, item: done });
  };

  const openMessage = (): string => {
    const out = close();
    const id = itemId(responseId, 'msg', output.length);
    const index = output.length;
    open = { kind: 'message', index, id, text: '' };
    return out + add({ id, type: 'message', status: 'in_progress', role: 'assistant', content: [] }) + event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: textPart('') });
  };

  const reasoning = (part: Extract<StreamPart, { type: 'reasoning' }>): string => {
    let out = '';
    if (part.redacted !== undefined) return close() + whole(reasoningItem(itemId(responseId, 'rs', output.length), '', { redacted: part.redacted }));
    if (open?.kind !== 'reasoning') {
      out += close();
      const id = itemId(responseId, 'rs', output.length);
      open = { kind: 'reasoning', index: output.length, id, text: '', signature: '', summary: false };
      out += add({ id, type: 'reasoning', summary: [] });
    }
    const item = open;
    if (part.text) {
      if (!item.summary) {
        item.summary = true;
        out += event('response.reasoning_summary_part.added', { item_id: item.id, output_index: item.index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      }
      item.text += part.text;
      out += event('response.reasoning_summary_text.delta', { item_id: item.id, output_index: item.index, summary_index: 0, delta: part.text });
    }
    if (part.signature) item.signature += part.signature;
    return out;
  };

  const toolCall = (part: Extract<StreamPart, { type: 'tool_call' }>): string => {
    let out = close();
    if (part.signature) out += whole({ id: itemId(responseId, 'rs', output.length), type: 'reasoning', summary: [], encrypted_content: carry({ toolSignature: part.signature }) });
    const tools = context.clientTools;
    if (isWholeCall(part.name, tools)) {
      // Its place is kept in `output`; the item is sent when its arguments are complete.
      const call: OpenCall = { kind: 'whole', index: output.length, id: itemId(responseId, 'fc', output.length), callId: part.id, name: part.name, arguments: '' };
      output.push({});
      open = call;
      calls.set(part.index, call);
      return out;
    }
    const custom = tools?.get(part.name)?.kind === 'custom';
    const id = itemId(responseId, custom ? 'ctc' : 'fc', output.length);
    const call: OpenCall = { kind: custom ? 'custom_tool_call' : 'function_call', index: output.length, id, callId: part.id, name: part.name, arguments: '' };
    open = call;
    calls.set(part.index, call);
    const item = callItem(id, 'in_progress', part.id, part.name, '', tools);
    return out + add(custom ? { ...item, input: '' } : { ...item, arguments: '' });
  };

  return {
    write(part: StreamPart): string {
      const out = start();
      switch (part.type) {
        case 'start':
          return out;
        case 'text': {
          if (!part.text) return out;
          const opening = open?.kind === 'message' ? '' : openMessage();
          const item = open as Extract<OpenItem, { kind: 'message' }>;
          item.text += part.text;
          return out + opening + event('response.output_text.delta', { item_id: item.id, output_index: item.index, content_index: 0, delta: part.text, logprobs: [] });
        }
        case 'reasoning':
          return out + reasoning(part);
        case 'tool_call':
          return out + toolCall(part);
        case 'tool_call_delta': {
          const call = calls.get(part.index) ?? (open?.kind === 'function_call' || open?.kind === 'custom_tool_call' || open?.kind === 'whole' ? open : undefined);
          if (!call || !part.arguments) return out;
          call.arguments += part.arguments;
          if (call.kind !== 'function_call') return out;
          return out + event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: part.arguments });
        }
        case 'finish':
          finish = part.reason;
          return out;
        case 'usage':
          usage = part.usage;
          return out;
        case 'image':
          return out + close() + whole(imageItem(part, responseId, output.length));
      }
    },
    end(): string {
      const out = start() + close();
      const { status, incomplete, error } = statusOf(finish);
      const type = status === 'incomplete' ? 'response.incomplete' : status === 'failed' ? 'response.failed' : 'response.completed';
      return out + event(type, { response: snapshot(status, { output, usage, incomplete, error }) });
    },
    /**
     * A broken stream ends with an `error` event and `response.failed` (whose error Codex CLI reports and
     * retries on), never with response.completed: clients must not take a cut answer for a whole one.
     */
    error(message: string): string {
      let out = start();
      if (open) output[open.index] = itemOf(open, 'incomplete', context.clientTools);
      open = undefined;
      out += event('error', { code: 'stream_broken', message, param: null });
      return out + event('response.failed', { response: snapshot('failed', { output, usage, error: { code: 'server_error', message } }) });
    },
  };
}
