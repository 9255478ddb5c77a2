import { describe, expect, it } from 'vitest';
import { RelayError } from '../../relay-error.js';
import { geminiDialect } from '../gemini/index.js';
import { openAiChatDialect } from '../openai-chat/index.js';
import { anthropicDialect } from './index.js';

// covers issue 15 item 1: the Anthropic tool kinds Claude Code sends, on other providers
describe("Anthropic's own tools translated for other providers", () => {
  const body = (tools: unknown[]) => ({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'News?' }], tools });
  const custom = { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };

  it('web search becomes the provider’s own (Gemini Google Search) or a refusal naming it (Chat Completions models without search)', () => {
    const canonical = anthropicDialect.parseRequest(body([{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }]));
    expect(canonical.webSearch).toEqual({ maxUses: 3 });
    expect(geminiDialect.buildRequest({ ...canonical, model: 'gemini-2.5-flash' }).tools).toEqual([{ googleSearch: {} }]);
    expect(() => openAiChatDialect.buildRequest({ ...canonical, model: 'gpt-4o' })).toThrow(/web_search/);
    expect(openAiChatDialect.buildRequest({ ...canonical, model: 'gpt-4o-search-preview' }).web_search_options).toEqual({});
    // Gemini 2.x takes search only without functions: a clear refusal, not a silent drop.
    const both = anthropicDialect.parseRequest(body([custom, { type: 'web_search_20250305', name: 'web_search' }]));
    expect(() => geminiDialect.buildRequest({ ...both, model: 'gemini-2.5-flash' })).toThrow(RelayError);
  });

  it('deferred tools are offered directly and tool search left out; tools only Anthropic runs are refused naming them', () => {
    const canonical = anthropicDialect.parseRequest(body([{ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }, { ...custom, defer_loading: true }]));
    expect(canonical.tools.map((t) => t.name)).toEqual(['Read']);
    expect(() => anthropicDialect.parseRequest(body([{ type: 'web_fetch_20250910', name: 'web_fetch' }]))).toThrow(/web_fetch_20250910/);
    expect(() => anthropicDialect.parseRequest(body([{ type: 'code_execution_20250825', name: 'code_execution' }]))).toThrow(/code_execution_20250825/);
  });
});
