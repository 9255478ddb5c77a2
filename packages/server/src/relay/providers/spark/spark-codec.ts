import { asArray, asNumber, asString, isRecord, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import type { VendorCodec } from '../types.js';
import { meaningOf, sparkErrorMessage } from './spark-errors.js';

/**
 * Spark's answers as OpenAI chat's. Over the WebSocket every answer is a stream of frames
 * (https://www.xfyun.cn/doc/spark/Web.html §4): {header:{code, message, sid, status}, payload:{choices:{status, seq,
 * text:[{content, role, index, function_call?}]}, usage?:{text:{question_tokens, prompt_tokens, completion_tokens,
 * total_tokens}}}}, status 2 on the last, which carries the usage. Each becomes OpenAI `chat.completion.chunk`s. The
 * HTTP API already answers in OpenAI's shape, with Spark's `code` beside it: those pass, unless the code is an error.
 * A non-zero code is the vendor's error, thrown with the status it means.
 */
export function sparkCodec(model: string): VendorCodec {
  return {
    answer(json) {
      throwIfError(json);
      return json;
    },
    stream() {
      const state: StreamState = { model, id: '', called: false, finished: false };
      return (frame) => {
        const json = parseEvent(frame.data);
        if (!json) return [frame]; // the HTTP API's [DONE]
        if (!isRecord(json.header)) {
          throwIfError(json);
          return [frame];
        }
        return chunksOf(json, state);
      };
    },
  };
}

interface StreamState {
  model: string;
  id: string;
  called: boolean;
  finished: boolean;
}

function throwIfError(json: Record<string, unknown>): void {
  const header = isRecord(json.header) ? json.header : json;
  const code = asNumber(header.code);
  if (code === undefined || code === 0) return;
  throw new VendorAnswerError(sparkErrorMessage(code, asString(header.message) ?? ''), meaningOf(code).status);
}

function chunksOf(json: Record<string, unknown>, state: StreamState): Frame[] {
  throwIfError(json);
  const header = json.header as Record<string, unknown>;
  state.id ||= `chatcmpl-${asString(header.sid) ?? nowSeconds()}`;
  const payload = isRecord(json.payload) ? json.payload : {};
  const choices = isRecord(payload.choices) ? payload.choices : {};
  const out: Frame[] = [];
  const chunk = (choice: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
    out.push({ data: JSON.stringify({ id: state.id, object: 'chat.completion.chunk', created: nowSeconds(), model: state.model, choices: choice, ...extra }) });

  for (const text of asArray(choices.text).filter(isRecord)) {
    const delta: Record<string, unknown> = { role: 'assistant' };
    const content = asString(text.content);
    if (content) delta.content = content;
    const call = isRecord(text.function_call) ? text.function_call : undefined;
    if (call) {
      state.called = true;
      const args = call.arguments;
      delta.tool_calls = [{ index: 0, id: `call_${asString(header.sid) ?? state.id}`, type: 'function', function: { name: asString(call.name) ?? '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) } }];
    }
    if (delta.content !== undefined || delta.tool_calls) chunk([{ index: 0, delta, finish_reason: null }]);
  }

  const last = choices.status === 2 || header.status === 2;
  if (last && !state.finished) {
    state.finished = true;
    chunk([{ index: 0, delta: {}, finish_reason: state.called ? 'tool_calls' : 'stop' }]);
    const usage = isRecord(payload.usage) && isRecord(payload.usage.text) ? payload.usage.text : undefined;
    if (usage) {
      const prompt = asNumber(usage.prompt_tokens) ?? 0;
      const completion = asNumber(usage.completion_tokens) ?? 0;
      chunk([], { usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: asNumber(usage.total_tokens) ?? prompt + completion } });
    }
  }
  return out;
}
