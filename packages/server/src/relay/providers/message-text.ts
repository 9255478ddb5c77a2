import { asArray, asString, isRecord } from '../dialects/shared.js';
import { flatMap } from '../../lib/arrays.js';

/**
 * Text of an OpenAI chat message's content (a string, or parts of which the text ones count), for vendors whose
 * wire takes plain text (Coze, DeepL, the AI Proxy knowledge base).
 */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  return flatMap(asArray(content), (part) => (isRecord(part) && part.type === 'text' ? [asString(part.text) ?? ''] : []))
    .join('\n');
}

/** The last user message's text of an OpenAI chat body: what a translator or a knowledge base is asked. */
export function lastUserText(body: Record<string, unknown>): string {
  const last = asArray(body.messages)
    .filter((m): m is Record<string, unknown> => isRecord(m) && m.role === 'user')
    .at(-1);
  return last ? textOfContent(last.content) : '';
}
