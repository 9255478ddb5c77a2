import { countTokens } from 'gpt-tokenizer';
import type { Usage } from '../providers/types.js';

/**
 * The usage to bill: the upstream's own report when it sent one; otherwise counted with gpt-tokenizer
 * from what was streamed (completion) and the estimate of the prompt.
 */
export function usageToBill(reported: Usage | undefined, streamedText: string, promptTokens: number): Usage {
  if (reported) return reported;
  return { prompt_tokens: promptTokens, completion_tokens: streamedText ? countTokens(streamedText) : 0 };
}

/** Prompt tokens counted with gpt-tokenizer from the request (used only when the upstream reports none). */
export function countPromptTokens(json: Record<string, unknown> | undefined): number {
  if (!json) return 0;
  const parts: string[] = [];
  const collect = (value: unknown) => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) if (key !== 'image_url') collect(inner);
    }
  };
  collect(json.messages ?? json.prompt ?? json.input);
  return parts.length ? countTokens(parts.join('\n')) : 0;
}
