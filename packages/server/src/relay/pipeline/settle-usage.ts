import type { Usage } from '../providers/types.js';

type CountTokens = (text: string) => number;
let tokenizer: Promise<CountTokens> | undefined;
/**
 * gpt-tokenizer's tables take about 20 MB of heap, which every full garbage collection then has to walk; most
 * upstreams report usage themselves, so the tables are loaded the first time a count is really needed.
 */
const loadTokenizer = () =>
  (tokenizer ??= import('gpt-tokenizer').then(
    (module) => module.countTokens as CountTokens,
    // Never bill nothing because the tables could not load: fall back to about one token per 3 characters.
    () => (text: string) => Math.ceil(text.length / 3),
  ));

export const approximateTokens: CountTokens = (text) => Math.ceil(text.length * 0.38);

/**
 * The usage to bill: the upstream's own report when it sent one; otherwise counted with gpt-tokenizer
 * from what was streamed (completion) and from the request (prompt).
 */
export async function usageToBill(
  reported: Usage | undefined,
  streamedText: string,
  request: Record<string, unknown> | undefined,
  /** ApproximateTokenEnabled: 0.38 tokens per character instead of the tokenizer (cheaper, less exact). */
  approximate = false,
): Promise<Usage> {
  if (reported && reported.total_only === undefined) return reported;
  const prompt = promptText(request);
  if (!prompt && !streamedText && !reported) return { prompt_tokens: 0, completion_tokens: 0 };
  const countTokens = approximate ? approximateTokens : await loadTokenizer();
  const promptTokens = prompt ? countTokens(prompt) : 0;
  // Only a total from the upstream: the prompt is counted here and the rest of the total is the completion.
  if (reported?.total_only !== undefined) {
    const total = reported.total_only;
    return { prompt_tokens: Math.min(promptTokens, total), completion_tokens: Math.max(0, total - promptTokens) };
  }
  return { prompt_tokens: promptTokens, completion_tokens: streamedText ? countTokens(streamedText) : 0 };
}

/** The prompt's text parts (messages, prompt or input), images left out. */
function promptText(json: Record<string, unknown> | undefined): string {
  if (!json) return '';
  const parts: string[] = [];
  const collect = (value: unknown) => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) if (key !== 'image_url') collect(inner);
    }
  };
  collect(json.messages ?? json.prompt ?? json.input);
  return parts.join('\n');
}
