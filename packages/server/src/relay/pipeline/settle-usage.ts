import { approximateTokens, type TokenCounter } from '../../billing/count-tokens.js';
import type { Usage } from '../../billing/usage.js';

/**
 * The usage to bill: the upstream's own report when it sent one; otherwise counted (off the event loop, see
 * billing/count-tokens.ts) from what was streamed (completion) and from the request (prompt).
 */
export async function usageToBill(
  reported: Usage | undefined,
  streamedText: string,
  request: Record<string, unknown> | undefined,
  counter: TokenCounter,
  /** ApproximateTokenEnabled: 0.38 tokens per character instead of the tokenizer (cheaper, less exact). */
  approximate = false,
): Promise<Usage> {
  if (reported && reported.total_only === undefined) return reported;
  const prompt = promptText(request);
  if (!prompt && !streamedText && !reported) return { prompt_tokens: 0, completion_tokens: 0 };
  const [promptTokens, completionTokens] = approximate
    ? [approximateTokens(prompt), approximateTokens(streamedText)]
    : await counter.count([prompt, streamedText]);
  // Only a total from the upstream: the prompt is counted here and the rest of the total is the completion.
  if (reported?.total_only !== undefined) {
    const total = reported.total_only;
    return { prompt_tokens: Math.min(promptTokens, total), completion_tokens: Math.max(0, total - promptTokens) };
  }
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens };
}

/**
 * The prompt's text parts (messages, prompt or input), images left out. An explicit stack instead of recursion:
 * a body nested thousands deep must not overflow the call stack on the way to a settlement.
 */
function promptText(json: Record<string, unknown> | undefined): string {
  if (!json) return '';
  const parts: string[] = [];
  const stack: unknown[] = [json.messages ?? json.prompt ?? json.input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) if (entries[i][0] !== 'image_url') stack.push(entries[i][1]);
    }
  }
  return parts.join('\n');
}
