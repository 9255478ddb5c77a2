import { describe, expect, it } from 'vitest';
import { anthropicDialect } from '../relay/dialects/anthropic/index.js';
import { bedrockConverseDialect } from '../relay/dialects/bedrock-converse/index.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiChatDialect } from '../relay/dialects/openai-chat/index.js';
import { openAiResponsesDialect } from '../relay/dialects/openai-responses/index.js';
import { checkUsage, type UsageEvidence } from './check-usage.js';
import type { Usage } from './usage.js';

/** Each upstream dialect's answer carrying these two totals (raw JSON values), read by the dialect itself. */
const READERS: Array<[string, (prompt: unknown, completion: unknown) => Usage | undefined]> = [
  ['openai-chat', (p, c) => openAiChatDialect.parseResponse({ choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }], usage: { prompt_tokens: p, completion_tokens: c } }).usage],
  ['openai-responses', (p, c) => openAiResponsesDialect.parseResponse({ id: 'r', object: 'response', status: 'completed', output: [], usage: { input_tokens: p, output_tokens: c } }).usage],
  ['anthropic', (p, c) => anthropicDialect.parseResponse({ id: 'm', type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn', usage: { input_tokens: p, output_tokens: c } }).usage],
  ['gemini', (p, c) => geminiDialect.parseResponse({ candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: p, candidatesTokenCount: c } }).usage],
  ['bedrock-converse', (p, c) => bedrockConverseDialect.parseResponse({ output: { message: { role: 'assistant', content: [] } }, stopReason: 'end_turn', usage: { inputTokens: p, outputTokens: c } }).usage],
];

const PROMPT = 'Summarise the following report in three sentences. '.repeat(10);
const DELIVERED = 'The report says that the quarter went well and that costs fell. '.repeat(3);
const evidence = (bounds = { prompt: 5_000, completion: 500 }): UsageEvidence => ({
  promptText: () => PROMPT,
  promptChars: PROMPT.length,
  delivered: DELIVERED,
  bounds,
  // A stand-in for the tokenizer: four characters a token.
  count: async (texts) => texts.map((text) => Math.ceil(text.length / 4)),
});
const counted = { prompt: Math.ceil(PROMPT.length / 4), completion: Math.ceil(DELIVERED.length / 4) };

// covers issue 19 item 3: upstream usage is checked before it is billed, on every dialect
describe.each(READERS)('usage reported by %s', (_name, read) => {
  it('well-formed and plausible: billed as reported', async () => {
    const { usage, anomalies } = await checkUsage(read(120, 40), evidence());
    expect([usage.prompt_tokens, usage.completion_tokens, anomalies]).toEqual([120, 40, []]);
  });

  it('negative totals: replaced by the gateway count and flagged', async () => {
    const { usage, anomalies } = await checkUsage(read(-100, -500), evidence());
    expect([usage.prompt_tokens, usage.completion_tokens]).toEqual([counted.prompt, counted.completion]);
    expect(anomalies.join()).toContain('无效');
  });

  it('totals as strings: not counts, replaced by the gateway count', async () => {
    const { usage, anomalies } = await checkUsage(read('120', 'many'), evidence());
    expect([usage.prompt_tokens, usage.completion_tokens]).toEqual([counted.prompt, counted.completion]);
    expect(anomalies).toHaveLength(2);
  });

  it('a non-finite total (1e400 parses as Infinity): replaced by the gateway count', async () => {
    const { usage } = await checkUsage(read(JSON.parse('1e400'), 40), evidence());
    expect([usage.prompt_tokens, usage.completion_tokens]).toEqual([counted.prompt, 40]);
  });

  it('zero output for a delivered answer: replaced by the gateway count', async () => {
    const { usage, anomalies } = await checkUsage(read(120, 0), evidence());
    expect(usage.completion_tokens).toBe(counted.completion);
    expect(anomalies.join()).toContain('低于实际内容的最少可能值');
  });

  it('absurd totals: billed at the request bound and flagged', async () => {
    const { usage, anomalies } = await checkUsage(read(1e15, 1e15), evidence({ prompt: 5_000, completion: 50 }));
    expect([usage.prompt_tokens, usage.completion_tokens]).toEqual([5_000, 50]);
    expect(anomalies.join()).toContain('按上限计费');
  });
});

describe('usage checks beyond the totals', () => {
  it('no report at all: counted, not an anomaly', async () => {
    expect(await checkUsage(undefined, evidence())).toEqual({ usage: { prompt_tokens: counted.prompt, completion_tokens: counted.completion }, anomalies: [] });
  });
  it('parts priced apart never exceed their totals', async () => {
    const { usage } = await checkUsage({ prompt_tokens: 100, completion_tokens: 40, cached_tokens: 1e9, cache_write_tokens: 50, reasoning_tokens: 1e9 }, evidence());
    expect(usage).toMatchObject({ prompt_tokens: 100, cached_tokens: 100, cache_write_tokens: 0, completion_tokens: 40, reasoning_tokens: 40 });
  });
});
