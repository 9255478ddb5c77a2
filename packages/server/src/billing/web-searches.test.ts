import { describe, expect, it } from 'vitest';
import { anthropicDialect } from '../relay/dialects/anthropic/index.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiResponsesDialect } from '../relay/dialects/openai-responses/index.js';
import type { StreamPart } from '../relay/canonical.js';
import { checkUsage } from './check-usage.js';
import { costOf, describePrice, pricesFor } from './pricing.js';
import type { OptionStore } from '../options/option-store.js';

/**
 * Web searches a provider runs are read from each dialect's answer, whole and streamed, checked against what the
 * request allowed, and priced per search (docs/ledger.md, units and prices).
 */
const usageOfStream = (reader: { read(frame: { data: string }): StreamPart[] }, events: unknown[]) => {
  let usage;
  for (const event of events) for (const part of reader.read({ data: JSON.stringify(event) })) if (part.type === 'usage') usage = part.usage;
  return usage;
};

describe('reading the searches', () => {
  it('Anthropic: usage.server_tool_use.web_search_requests', () => {
    const usage = anthropicDialect.parseResponse({ id: 'm', type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn', usage: { input_tokens: 900, output_tokens: 40, server_tool_use: { web_search_requests: 3 } } }).usage;
    expect(usage).toMatchObject({ prompt_tokens: 900, completion_tokens: 40, web_searches: 3 });
  });

  it('OpenAI Responses: the web_search_call items of the response, whole and in response.completed', () => {
    const output = [
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'weather Paris' } },
      { type: 'web_search_call', id: 'ws_2', status: 'completed', action: { type: 'search', query: 'weather Paris tomorrow' } },
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] },
    ];
    const response = { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-5', output, usage: { input_tokens: 1_200, output_tokens: 30, total_tokens: 1_230 } };
    expect(openAiResponsesDialect.parseResponse(response).usage).toMatchObject({ prompt_tokens: 1_200, completion_tokens: 30, web_searches: 2 });
    expect(usageOfStream(openAiResponsesDialect.createStreamReader(), [{ type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } }, { type: 'response.completed', response }])).toMatchObject({ web_searches: 2 });
    expect(openAiResponsesDialect.parseResponse({ ...response, output: output.slice(2) }).usage?.web_searches).toBeUndefined();
  });

  it('OpenAI Responses: the older web_search_preview tool on a model that does not reason is its own price (US$25 per 1,000)', () => {
    const output = [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }, { type: 'web_search_call', id: 'ws_2', status: 'completed' }];
    const answer = (model: string, tool: string) => ({ id: 'r', object: 'response', status: 'completed', model, tools: [{ type: tool }], output, usage: { input_tokens: 900, output_tokens: 30, total_tokens: 930 } });
    const preview = openAiResponsesDialect.parseResponse(answer('gpt-4.1-2025-04-14', 'web_search_preview')).usage!;
    expect(preview.tool_calls).toEqual({ web_search_preview: 2 });
    expect(preview.web_searches).toBeUndefined();
    const store = { ratios: (key: string) => (key === 'ModelRatio' ? { 'gpt-4.1': 1 } : {}), number: () => 500_000 } as unknown as OptionStore;
    const prices = pricesFor(store, 'gpt-4.1', 'default');
    expect(costOf(preview, prices)).toBe(costOf({ prompt_tokens: 900, completion_tokens: 30 }, prices) + 2 * 12_500);
    // A reasoning model's preview searches, and the GA tool's on any model, are web searches (US$10).
    expect(openAiResponsesDialect.parseResponse(answer('o3', 'web_search_preview_2025_03_11')).usage).toMatchObject({ web_searches: 2 });
    expect(openAiResponsesDialect.parseResponse(answer('gpt-4.1', 'web_search')).usage).toMatchObject({ web_searches: 2 });
  });

  it('Gemini: an answer grounded in Google Search (its groundingMetadata names queries) is one grounded prompt, whole and streamed', () => {
    const grounding = { webSearchQueries: ['UEFA Euro 2024 winner', 'Euro 2024 final score'], groundingChunks: [{ web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/x', title: 'uefa.com' } }] };
    const answer = { candidates: [{ content: { role: 'model', parts: [{ text: 'Spain won Euro 2024.' }] }, finishReason: 'STOP', groundingMetadata: grounding }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 } };
    expect(geminiDialect.parseResponse(answer).usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 8, web_searches: 1 });
    const chunks = [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Spain won' }] } }], usageMetadata: { promptTokenCount: 20, totalTokenCount: 20 } },
      { candidates: [{ content: { role: 'model', parts: [{ text: ' Euro 2024.' }] }, finishReason: 'STOP', groundingMetadata: grounding }], usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 } },
    ];
    expect(usageOfStream(geminiDialect.createStreamReader(), chunks)).toMatchObject({ web_searches: 1 });
    // Gemini 3 bills each search query (US$14 per 1,000), not the grounded prompt.
    expect(geminiDialect.parseResponse({ ...answer, modelVersion: 'gemini-3-pro-preview' }).usage).toMatchObject({ web_searches: 2 });
    expect(usageOfStream(geminiDialect.createStreamReader(), chunks.map((c) => ({ ...c, modelVersion: 'gemini-3-pro-preview' })))).toMatchObject({ web_searches: 2 });
    const plain = { ...answer, candidates: [{ ...answer.candidates[0], groundingMetadata: undefined }] };
    expect(geminiDialect.parseResponse(plain).usage?.web_searches).toBeUndefined();
  });
});

describe('checking and pricing them', () => {
  const evidence = (searches: number | undefined) => ({ promptText: () => 'x'.repeat(400), promptChars: 400, delivered: 'y'.repeat(40), bounds: { prompt: 5_000, completion: 500, searches }, count: async (texts: string[]) => texts.map((t) => Math.ceil(t.length / 4)) });

  it('a report of searches for a request that gave no search tool is not billed, and said', async () => {
    const checked = await checkUsage({ prompt_tokens: 120, completion_tokens: 12, web_searches: 40 }, evidence(0));
    expect(checked.usage.web_searches).toBeUndefined();
    expect(checked.anomalies).toEqual(['上游报告联网搜索 40 次，但本次请求没有搜索工具，不计费']);
  });

  it('an advisor\'s sub-inferences and per-call tools are billed only to a request with a provider-run tool', async () => {
    const report = { prompt_tokens: 120, completion_tokens: 12, sub_usages: [{ model: 'claude-opus-4-6', usage: { prompt_tokens: 800, completion_tokens: 500 } }], tool_calls: { file_search: 3 } };
    const without = await checkUsage(report, evidence(0));
    expect(without.usage.sub_usages).toBeUndefined();
    expect(without.usage.tool_calls).toBeUndefined();
    expect(without.anomalies).toEqual(['上游报告其他模型的推理 1 次，但本次请求没有该类工具，不计费', '上游报告托管工具 file_search 3 次，但本次请求没有该类工具，不计费']);
    const withTool = await checkUsage(report, evidence(100));
    expect(withTool.usage.sub_usages).toEqual(report.sub_usages);
    expect(withTool.usage.tool_calls).toEqual({ file_search: 3 });
    expect(withTool.anomalies).toEqual([]);
    // An advisor report beyond its model's output limit is billed at the limit.
    const huge = await checkUsage({ ...report, sub_usages: [{ model: 'claude-opus-4-6', usage: { prompt_tokens: 800, completion_tokens: 1e12 } }] }, evidence(100));
    expect(huge.usage.sub_usages![0].usage.completion_tokens).toBe(128_000);
    expect(huge.anomalies).toEqual(['上游报告 claude-opus-4-6 的推理用量超出上限，按上限计费']);
  });

  it('more searches than a request can run are billed at the bound', async () => {
    const checked = await checkUsage({ prompt_tokens: 120, completion_tokens: 12, web_searches: 1e9 }, evidence(100));
    expect(checked.usage.web_searches).toBe(100);
    expect(checked.anomalies[0]).toContain('超出本次请求上限 100');
    expect((await checkUsage({ prompt_tokens: 120, completion_tokens: 12, web_searches: 4 }, evidence(100))).usage.web_searches).toBe(4);
  });

  it('a search costs its US$ price per 1,000 at QuotaPerUnit, times the group ratio, on top of the tokens', () => {
    const store = (quotaPerUnit: number, group: Record<string, number> = {}, own: Record<string, number> = {}) =>
      ({ ratios: (key: string) => (key === 'GroupRatio' ? group : key === 'WebSearchPrice' ? own : {}), number: () => quotaPerUnit }) as unknown as OptionStore;
    const claude = pricesFor(store(500_000), 'claude-sonnet-4-5-20250929', 'default');
    expect(claude.webSearchQuota).toBe(5_000);
    expect(pricesFor(store(500_000), 'gpt-5', 'default').webSearchQuota).toBe(5_000);
    expect(pricesFor(store(500_000), 'gemini-2.5-flash', 'default').webSearchQuota).toBe(17_500);
    expect(pricesFor(store(500_000), 'gemini-3-pro-preview', 'default').webSearchQuota).toBe(7_000);
    // A model of no family with a search price costs nothing per search unless the admin prices it.
    expect(pricesFor(store(500_000), 'my-local-model', 'default').webSearchQuota).toBe(0);
    expect(pricesFor(store(500_000, {}, { 'my-local-model': 4 }), 'my-local-model', 'default').webSearchQuota).toBe(2_000);
    const tokens = { prompt_tokens: 2_000, completion_tokens: 100 };
    expect(costOf({ ...tokens, web_searches: 3 }, claude) - costOf(tokens, claude)).toBe(15_000);
    const vip = pricesFor(store(500_000, { vip: 0.5 }), 'claude-sonnet-4-5-20250929', 'vip');
    expect(costOf({ ...tokens, web_searches: 3 }, vip) - costOf(tokens, vip)).toBe(7_500);
    expect(describePrice(claude, { ...tokens, web_searches: 3 }, 1)).toContain('联网搜索 3 次 × 5000 额度');
  });
});
