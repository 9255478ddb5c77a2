import { asArray, asNumber, asString, badRequest, isRecord } from '../../dialects/shared.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * OpenAI chat and embeddings bodies written as Hunyuan's ChatCompletions and GetEmbedding requests (API version
 * 2023-09-01, https://cloud.tencent.com/document/api/1729/105701 and /102832). Tencent Cloud API refuses a parameter
 * it does not know (UnknownParameter), so only documented fields are sent: ChatCompletions has no output limit, and
 * a reasoning model's `reasoning_content` must not be sent back.
 */
export function hunyuanChatBody(body: Record<string, unknown>, model: string, stream: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { Model: model, Messages: hunyuanMessages(asArray(body.messages)), Stream: stream };
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) out.Temperature = Math.min(Math.max(temperature, 0), 2);
  const topP = asNumber(body.top_p);
  if (topP !== undefined) out.TopP = Math.min(Math.max(topP, 0), 1);
  const stop = typeof body.stop === 'string' ? [body.stop] : asArray(body.stop).filter((s): s is string => typeof s === 'string');
  if (stop.length) out.Stop = stop;
  const seed = asNumber(body.seed);
  if (seed !== undefined && Number.isInteger(seed) && seed > 0 && seed <= 10_000) out.Seed = seed;
  const tools = flatMap(asArray(body.tools), (tool) => (isRecord(tool) && isRecord(tool.function) ? [hunyuanTool(tool.function)] : []));
  if (tools.length) {
    out.Tools = tools;
    const choice = body.tool_choice;
    // Hunyuan's choices are none, auto and custom (one named tool); OpenAI's `required` has no equal and stays auto.
    if (choice === 'none') out.ToolChoice = 'none';
    else if (isRecord(choice) && isRecord(choice.function)) {
      const name = choice.function.name;
      const named = tools.find((t) => (t.Function as { Name: string }).Name === name);
      if (named) Object.assign(out, { ToolChoice: 'custom', CustomTool: named });
    } else if (choice !== undefined) out.ToolChoice = 'auto';
  }
  return out;
}

function hunyuanTool(fn: Record<string, unknown>): Record<string, unknown> {
  // Parameters is a JSON string on this API, not an object.
  const tool: Record<string, unknown> = { Name: String(fn.name ?? ''), Parameters: JSON.stringify(isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} }) };
  if (typeof fn.description === 'string' && fn.description) tool.Description = fn.description;
  return { Type: 'function', Function: tool };
}

/** Text of an OpenAI content (a string or text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return flatMap(asArray(content), (part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/**
 * Hunyuan takes one system message, first; then user (or tool results) and assistant in turn. System and developer
 * messages are joined into the first, and consecutive plain user messages into one.
 */
function hunyuanMessages(messages: unknown[]): Array<Record<string, unknown>> {
  const system: string[] = [];
  const out: Array<Record<string, unknown>> = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const role = asString(message.role);
    if (role === 'system' || role === 'developer') {
      const text = textOf(message.content);
      if (text) system.push(text);
    } else if (role === 'user') {
      const next = userMessage(message.content);
      const last = out.at(-1);
      if (last?.Role === 'user' && typeof last.Content === 'string' && typeof next.Content === 'string') last.Content = `${last.Content}\n\n${next.Content}`;
      else out.push(next);
    } else if (role === 'assistant') {
      const calls = flatMap(asArray(message.tool_calls), (call) =>
        isRecord(call) && isRecord(call.function) ? [{ Id: String(call.id ?? ''), Type: 'function', Function: { Name: String(call.function.name ?? ''), Arguments: String(call.function.arguments ?? '{}') } }] : [],
      );
      out.push({ Role: 'assistant', Content: textOf(message.content), ...(calls.length ? { ToolCalls: calls } : {}) });
    } else if (role === 'tool') {
      out.push({ Role: 'tool', Content: textOf(message.content), ToolCallId: String(message.tool_call_id ?? '') });
    }
  }
  return system.length ? [{ Role: 'system', Content: system.join('\n\n') }, ...out] : out;
}

/** A user message: plain Content, or Contents (text and image_url parts) when it carries an image. */
function userMessage(content: unknown): Record<string, unknown> {
  const parts = asArray(content).filter(isRecord);
  if (!parts.some((p) => p.type === 'image_url')) return { Role: 'user', Content: textOf(content) };
  const contents = flatMap(parts, (part): Array<Record<string, unknown>> => {
    if (part.type === 'text' && typeof part.text === 'string') return [{ Type: 'text', Text: part.text }];
    const url = isRecord(part.image_url) ? asString(part.image_url.url) : asString(part.image_url);
    return part.type === 'image_url' && url ? [{ Type: 'image_url', ImageUrl: { Url: url } }] : [];
  });
  // Contents must hold a text part.
  if (!contents.some((c) => c.Type === 'text')) contents.unshift({ Type: 'text', Text: ' ' });
  return { Role: 'user', Contents: contents };
}

/** GetEmbedding takes one text (`Input`) or up to 50 (`InputList`), and no model. */
export function hunyuanEmbeddingBody(body: Record<string, unknown>): Record<string, unknown> {
  const input = body.input;
  if (typeof input === 'string') return { Input: input };
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return { InputList: input };
  throw badRequest('腾讯混元向量化只接受文本（字符串或字符串数组）输入');
}
