import { asArray, asNumber, asString, isRecord } from '../../dialects/shared.js';
import type { SparkVersion } from './versions.js';
import { flatMap } from '../../../lib/arrays.js';

/** One entry of Spark's `payload.message.text`. */
export interface SparkText {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * The first (and only) message of a Spark WebSocket chat (https://www.xfyun.cn/doc/spark/Web.html §3), written from an
 * OpenAI chat body: {header:{app_id, uid?}, parameter:{chat:{domain, temperature?, max_tokens?, top_k?}},
 * payload:{message:{text:[{role, content}]}, functions?:{text:[{name, description, parameters}]}}}.
 *
 * Spark's text takes the roles system (first only), user and assistant and plain-text content: images are left out,
 * a later system message is said as the user (as iFlytek's own SDK does), an assistant's tool call is said in its
 * words, and a tool's result comes back as the user telling it.
 */
export function sparkRequestFrame(body: Record<string, unknown>, version: SparkVersion, appId: string): Record<string, unknown> {
  const chat: Record<string, unknown> = { domain: version.domain };
  // OpenAI's temperature goes up to 2, Spark's to 1.
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) chat.temperature = Math.min(Math.max(temperature, 0.01), 1);
  const maxTokens = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens);
  if (maxTokens !== undefined && maxTokens > 0) chat.max_tokens = Math.min(Math.floor(maxTokens), version.maxTokens);
  const topK = asNumber(body.top_k);
  if (topK !== undefined) chat.top_k = Math.min(Math.max(Math.round(topK), 1), 6);

  const header: Record<string, unknown> = { app_id: appId };
  const user = asString(body.user);
  if (user) header.uid = user.slice(0, 32);

  const payload: Record<string, unknown> = { message: { text: sparkTexts(asArray(body.messages)) } };
  const functions = sparkFunctions(body);
  if (functions.length > 0) payload.functions = { text: functions };
  return { header, parameter: { chat }, payload };
}

function sparkTexts(messages: unknown[]): SparkText[] {
  const texts: SparkText[] = [];
  const names = new Map<string, string>();
  for (const raw of messages) {
    if (!isRecord(raw)) continue;
    const role = asString(raw.role);
    const content = plainText(raw.content);
    if (role === 'system' || role === 'developer') {
      if (!content) continue;
      if (texts.length === 0 || (texts.length === 1 && texts[0].role === 'system')) {
        if (texts.length === 1) texts[0].content += `\n${content}`;
        else texts.push({ role: 'system', content });
      } else push(texts, 'user', content);
    } else if (role === 'assistant') {
      const calls = asArray(raw.tool_calls).filter(isRecord);
      const said = flatMap(calls, (call) => {
        const fn = isRecord(call.function) ? call.function : {};
        const name = asString(fn.name) ?? '';
        if (typeof call.id === 'string') names.set(call.id, name);
        return name ? [`调用函数 ${name}，参数：${asString(fn.arguments) ?? '{}'}`] : [];
      });
      if (isRecord(raw.function_call) && typeof raw.function_call.name === 'string') said.push(`调用函数 ${raw.function_call.name}，参数：${asString(raw.function_call.arguments) ?? '{}'}`);
      const text = [content, ...said].filter(Boolean).join('\n');
      if (text) push(texts, 'assistant', text);
    } else if (role === 'tool' || role === 'function') {
      const name = asString(raw.name) ?? names.get(asString(raw.tool_call_id) ?? '') ?? '';
      push(texts, 'user', `函数 ${name} 的返回结果：${content}`);
    } else if (content) push(texts, 'user', content);
  }
  return texts;
}

/** Consecutive turns of one role are one turn: Spark alternates user and assistant. */
function push(texts: SparkText[], role: 'user' | 'assistant', content: string): void {
  const last = texts.at(-1);
  if (last && last.role === role) last.content += `\n${content}`;
  else texts.push({ role, content });
}

function plainText(content: unknown): string {
  if (typeof content === 'string') return content;
  return flatMap(asArray(content), (part) => (isRecord(part) && (part.type === 'text' || part.type === 'input_text') && typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}

/** OpenAI's `tools` (or legacy `functions`) as Spark's function definitions. */
function sparkFunctions(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const defined = [
    ...flatMap(asArray(body.tools), (tool) => (isRecord(tool) && tool.type === 'function' && isRecord(tool.function) ? [tool.function] : [])),
    ...asArray(body.functions).filter(isRecord),
  ];
  return flatMap(defined, (fn) => {
    const name = asString(fn.name);
    if (!name) return [];
    return [{ name, description: asString(fn.description) ?? '', parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } }];
  });
}
