import type { AssistantPart, ChatResponse, DrawnImage, FinishReason, Usage } from '../../canonical.js';
import { toolCallsOf } from '../../../billing/tool-calls.js';
import { tokenCount, usageOf } from '../../../billing/usage.js';
import { derivedCompletion, isFastTier } from '../openai-chat/response.js';
import type { ClientTool, WriteContext } from '../types.js';
import { asArray, asString, isRecord, nowSeconds } from '../shared.js';
import { carry, uncarry } from './carrier.js';
import { callItem, callOfItem } from './client-tools.js';
import { reasoningText } from './parse-request.js';

type Item = Record<string, unknown>;

/**
 * Responses usage -> canonical. Like Chat Completions, input_tokens counts every input token (cache reads
 * included) and output_tokens every output token (reasoning included); the details say how many were of a kind
 * priced apart. A report with only a total is marked so the pipeline counts the prompt itself.
 */
export function readResponsesUsage(value: unknown, response: Record<string, unknown> = {}): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const usage = readTokens(value);
  if (!usage) return undefined;
  // The other tools OpenAI runs and bills per call: file search, code interpreter containers, generated images.
  const calls = toolCallsOf(response.output);
  if (calls) usage.tool_calls = calls;
  // The web search tool's calls, billed apart (US$10 per 1,000): the response's web_search_call items. The older
  // web_search_preview tool costs US$25 per 1,000 on a model that does not reason (its own price key).
  const searches = asArray(response.output).filter((item) => isRecord(item) && item.type === 'web_search_call').length;
  if (searches > 0 && previewSearch(response)) (usage.tool_calls ??= {}).web_search_preview = searches;
  else if (searches > 0) usage.web_searches = searches;
  if (isFastTier(response.service_tier)) usage.fast_mode = true;
  return usage;
}

/** Whether a response's searches were the web_search_preview tool's on a model that does not reason (its `tools` echo the request's). */
function previewSearch(response: Record<string, unknown>): boolean {
  const types = asArray(response.tools).map((tool) => (isRecord(tool) ? String(tool.type) : ''));
  const preview = types.some((type) => type.startsWith('web_search_preview')) && !types.some((type) => type === 'web_search' || type.startsWith('web_search_20'));
  return preview && !/^(o\d|gpt-(?:[5-9]|[1-9]\d)(?!-chat)|codex)/.test(asString(response.model) ?? '');
}

function readTokens(value: Record<string, unknown>): Usage | undefined {
  if (value.input_tokens === undefined && value.output_tokens === undefined) {
    const total = tokenCount(value.total_tokens);
    return total > 0 ? { prompt_tokens: 0, completion_tokens: 0, total_only: total } : undefined;
  }
  const usage = usageOf(value.input_tokens, value.output_tokens ?? derivedCompletion(value.total_tokens, value.input_tokens));
  const input = isRecord(value.input_tokens_details) ? value.input_tokens_details : {};
  const output = isRecord(value.output_tokens_details) ? value.output_tokens_details : {};
  if (tokenCount(input.cached_tokens) > 0) usage.cached_tokens = tokenCount(input.cached_tokens);
  // Writes for 12 hours (prompt_cache_options.ttl "12h", GPT-5.6 and later) are priced apart from those for 30 minutes
  // where a model lists them (GPT-6.1 Terra and 6.2 Sol: 2.5 times the input price against 1.25): the longer write
  // class. cache_write_tokens_details splits the writes by lifetime; a report without it is settled by what the request asked.
  const written = tokenCount(input.cache_write_tokens);
  const split = isRecord(input.cache_write_tokens_details) ? input.cache_write_tokens_details : undefined;
  const long = Math.min(written, tokenCount(split?.ttl_12h_tokens));
  if (written - long > 0) usage.cache_write_tokens = written - long;
  if (long > 0) usage.cache_write_1h_tokens = long;
  if (written > 0 && !split) usage.cache_writes_unsplit = true;
  if (tokenCount(output.reasoning_tokens) > 0) usage.reasoning_tokens = tokenCount(output.reasoning_tokens);
  return usage;
}

export function writeResponsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, cache_write_tokens: (usage.cache_write_tokens ?? 0) + (usage.cache_write_1h_tokens ?? 0) },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** How a finished answer ended, as Responses says it: a status, and why when it is not complete. */
export function statusOf(finish: FinishReason | undefined): { status: ResponseStatus; incomplete?: { reason: string }; error?: { code: string; message: string } } {
  if (finish === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  if (finish === 'error') return { status: 'failed', error: { code: 'server_error', message: '上游模型未能完成回答' } };
  return { status: 'completed' };
}

/**
 * The response object (https://platform.openai.com/docs/api-reference/responses/object). The request's settings
 * are not echoed (the writer never saw them); they read as the API's defaults.
 */
export function responseObject(
  context: Pick<WriteContext, 'id' | 'model' | 'created'>,
  status: ResponseStatus,
  fields: { output: Item[]; usage?: Usage; incomplete?: { reason: string }; error?: { code: string; message: string } },
): Record<string, unknown> {
  return {
    id: context.id,
    object: 'response',
    created_at: context.created,
    status,
    ...(status === 'completed' ? { completed_at: nowSeconds() } : {}),
    background: false,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete ?? null,
    instructions: null,
    max_output_tokens: null,
    metadata: {},
    model: context.model,
    output: fields.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: fields.usage ? writeResponsesUsage(fields.usage) : null,
    user: null,
  };
}

/** Ids of output items, unique within the response: `msg_…`, `rs_…`, `fc_…`, `ctc_…`. */
export const itemId = (responseId: string, kind: 'msg' | 'rs' | 'fc' | 'ctc' | 'ig', index: number): string => `${kind}_${responseId.replace(/^resp_/, '')}${index.toString().padStart(3, '0')}`;

export const textPart = (text: string): Item => ({ type: 'output_text', text, annotations: [], logprobs: [] });

/** A finished reasoning item: its words as the summary, its signature (or redacted data) carried for the next turn. */
export function reasoningItem(id: string, text: string, carried?: Parameters<typeof carry>[0]): Item {
  return { id, type: 'reasoning', summary: text ? [{ type: 'summary_text', text }] : [], ...(carried ? { encrypted_content: carry(carried) } : {}) };
}

/** The output items of an answer: text runs as messages, reasoning items, and each call in its client tool's shape (client-tools.ts). */
export function outputItems(content: AssistantPart[], responseId: string, tools?: ReadonlyMap<string, ClientTool>): Item[] {
  const items: Item[] = [];
  const id = (kind: 'msg' | 'rs' | 'fc' | 'ctc') => itemId(responseId, kind, items.length);
  let message: { content: Item[] } | undefined;
  for (const part of content) {
    if (part.type === 'text') {
      if (!message) {
        message = { content: [] };
        items.push({ id: id('msg'), type: 'message', status: 'completed', role: 'assistant', content: message.content });
      }
      message.content.push(textPart(part.text));
      continue;
    }
    message = undefined;
    if (part.type === 'reasoning') {
      const carried = part.redacted !== undefined ? { redacted: part.redacted } : part.signature ? { signature: part.signature } : undefined;
      items.push(reasoningItem(id('rs'), part.text, carried));
    } else {
      if (part.signature) items.push(reasoningItem(id('rs'), '', { toolSignature: part.signature }));
      items.push(callItem(id(tools?.get(part.name)?.kind === 'custom' ? 'ctc' : 'fc'), 'completed', part.id, part.name, part.arguments, tools));
    }
  }
  return items;
}

export function writeResponsesResponse(response: ChatResponse, context: WriteContext): Record<string, unknown> {
  const { status, incomplete, error } = statusOf(response.finishReason);
  const output = outputItems(response.content, context.id, context.clientTools);
  for (const image of response.images ?? []) output.push(imageItem(image, context.id, output.length));
  return responseObject(context, status, { output, usage: response.usage, incomplete, error });
}

/** An image the model drew, as the Responses API gives a generated image: an image_generation_call item. */
export function imageItem(image: DrawnImage, responseId: string, index: number): Item {
  return { id: itemId(responseId, 'ig', index), type: 'image_generation_call', status: 'completed', result: image.data, output_format: image.mediaType.replace(/^image\//, '') };
}

/** Output items -> canonical content. Unlike a request's input, reasoning without a signature is kept: it is the model's words. */
export function readOutput(items: unknown[]): AssistantPart[] {
  const content: AssistantPart[] = [];
  let toolSignature: string | undefined;
  const pushText = (text: string) => {
    const last = content.at(-1);
    if (last?.type === 'text') last.text += text;
    else content.push({ type: 'text', text });
  };
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'message') {
      for (const part of asArray(item.content)) {
        if (!isRecord(part)) continue;
        const text = part.type === 'output_text' ? asString(part.text) : part.type === 'refusal' ? asString(part.refusal) : undefined;
        if (text) pushText(text);
      }
    } else if (callOfItem(item)) {
      const call = callOfItem(item)!;
      content.push({ type: 'tool_call', id: call.callId, name: call.name, arguments: call.arguments, ...(toolSignature ? { signature: toolSignature } : {}) });
      toolSignature = undefined;
    } else if (item.type === 'reasoning') {
      const carried = uncarry(item.encrypted_content);
      if (carried?.toolSignature) toolSignature = carried.toolSignature;
      const text = reasoningText(item);
      if (carried?.redacted !== undefined) content.push({ type: 'reasoning', text: '', redacted: carried.redacted });
      else if (text || carried?.signature !== undefined) content.push({ type: 'reasoning', text, ...(carried?.signature !== undefined ? { signature: carried.signature } : {}) });
    }
  }
  return content;
}

/** How a response object says it ended. */
export function finishOf(status: unknown, incomplete: unknown, hasCalls: boolean): FinishReason {
  if (status === 'incomplete') return isRecord(incomplete) && incomplete.reason === 'content_filter' ? 'content_filter' : 'length';
  if (status === 'failed') return 'error';
  return hasCalls ? 'tool_calls' : 'stop';
}

export function parseResponsesResponse(body: unknown): ChatResponse {
  const json = isRecord(body) ? body : {};
  const content = readOutput(asArray(json.output));
  return { id: asString(json.id) ?? '', model: asString(json.model) ?? '', content, finishReason: finishOf(json.status, json.incomplete_details, content.some((p) => p.type === 'tool_call')), usage: readResponsesUsage(json.usage, json) };
}
