import type { Frame } from '../dialects/types.js';

/**
 * OpenAI chat answers written by the codecs of vendors whose wire is their own (Coze, DeepL, the AI Proxy knowledge
 * base): what they answer, read as the `openai-chat` dialect reads OpenAI's own.
 */
export interface ChunkContext {
  id: string;
  model: string;
  created: number;
}

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One `chat.completion.chunk` frame with a delta for choice 0. */
export function chunkFrame(context: ChunkContext, delta: Record<string, unknown>, finish: string | null = null): Frame {
  return { data: JSON.stringify({ id: context.id, object: 'chat.completion.chunk', created: context.created, model: context.model, choices: [{ index: 0, delta, finish_reason: finish }] }) };
}

/** The last chunk of a stream: no choices, the usage. */
export function usageFrame(context: ChunkContext, usage: OpenAiUsage): Frame {
  return { data: JSON.stringify({ id: context.id, object: 'chat.completion.chunk', created: context.created, model: context.model, choices: [], usage }) };
}

/** A whole `chat.completion` of one text answer. */
export function chatCompletion(context: ChunkContext, text: string, usage?: OpenAiUsage): Record<string, unknown> {
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    ...(usage ? { usage } : {}),
  };
}

export const usageOf = (prompt: number, completion: number): OpenAiUsage => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
