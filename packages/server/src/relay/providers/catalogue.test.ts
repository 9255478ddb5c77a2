import { PROVIDER_CATALOGUE, providerInfo } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import { BALANCE_READERS } from '../channel-health/query-balance.js';
import { PROVIDERS } from './registry.js';

/** One catalogue of provider facts (contract providers.ts), and every part of the server agreeing with it. */
describe('provider catalogue', () => {
  it('the types with a balance are exactly those the balance query can read', () => {
    expect(PROVIDER_CATALOGUE.filter((p) => p.balance).map((p) => p.value).sort((a, b) => a - b)).toEqual(Object.keys(BALANCE_READERS).map(Number).sort((a, b) => a - b));
  });

  // The URL each vendor documents for a chat completion, reached from a channel that leaves its base URL empty.
  const CHAT_URLS: Record<number, string> = {
    1: 'https://api.openai.com/v1/chat/completions',
    2: 'https://oa.api2d.net/v1/chat/completions',
    4: 'https://api.closeai-proxy.xyz/v1/chat/completions',
    5: 'https://api.openai-sb.com/v1/chat/completions',
    6: 'https://api.openaimax.com/v1/chat/completions',
    7: 'https://api.ohmygpt.com/v1/chat/completions',
    8: 'https://api.openai.com/v1/chat/completions',
    9: 'https://api.caipacity.com/v1/chat/completions',
    10: 'https://api.aiproxy.io/v1/chat/completions',
    12: 'https://api.api2gpt.com/v1/chat/completions',
    13: 'https://api.aigc2d.com/v1/chat/completions',
    14: 'https://api.anthropic.com/v1/messages',
    15: 'https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro',
    16: 'https://open.bigmodel.cn/api/paas/v4/chat/completions',
    17: 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions',
    19: 'https://ai.360.cn/v1/chat/completions',
    20: 'https://openrouter.ai/api/v1/chat/completions',
    21: 'https://api.aiproxy.io/api/library/ask',
    22: 'https://api.fastgpt.in/api/v1/chat/completions',
    23: 'https://api.hunyuan.cloud.tencent.com/v1/chat/completions',
    24: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent',
    25: 'https://api.moonshot.cn/v1/chat/completions',
    26: 'https://api.baichuan-ai.com/v1/chat/completions',
    27: 'https://api.minimax.chat/v1/chat/completions',
    28: 'https://api.mistral.ai/v1/chat/completions',
    29: 'https://api.groq.com/openai/v1/chat/completions',
    31: 'https://api.lingyiwanwu.com/v1/chat/completions',
    32: 'https://api.stepfun.com/v1/chat/completions',
    34: 'https://api.coze.com/v3/chat',
    35: 'https://api.cohere.com/v2/chat',
    36: 'https://api.deepseek.com/v1/chat/completions',
    37: 'https://api.cloudflare.com/client/v4/accounts/0123456789abcdef/ai/v1/chat/completions',
    38: 'https://api.deepl.com/v2/translate',
    39: 'https://api.together.xyz/v1/chat/completions',
    40: 'https://ark.cn-beijing.volces.com/api/v3/chat/completions',
    41: 'https://api.novita.ai/v3/openai/chat/completions',
    30: 'http://localhost:11434/api/chat',
    43: 'https://api.openai.com/v1/chat/completions',
  };
  // covers S3-CHANNELTYPES-02
  it.each(Object.entries(CHAT_URLS).map(([type, url]) => [Number(type), url] as const))('type %i sends a chat to the URL its vendor documents: %s', (type, url) => {
    const provider = PROVIDERS.find((p) => p.channelTypes.includes(type));
    expect(provider, `type ${type} has no adapter`).toBeDefined();
    const channel = { type, baseUrl: '', key: 'k', other: type === 21 ? '10817' : '', config: { user_id: '0123456789abcdef' }, credentials: undefined };
    const model = providerInfo(type).models[0] ?? 'model';
    const dialect = provider!.dialects(channel, model)[0];
    const request = provider!.build({ endpoint: 'chat', dialect, channel, model, stream: false, body: { model, messages: [{ role: 'user', content: 'hi' }] }, path: '/v1/chat/completions' });
    expect(request.url).toBe(url);
  });

  // iFlytek Spark (18) is not in the table: its URL is signed per call (a date in the query) and needs APPID|APISecret|APIKey.
  it('type 18 sends a chat to the signed WebSocket URL its vendor documents: wss://spark-api.xf-yun.com/v1.1/chat for Spark-Lite', () => {
    const provider = PROVIDERS.find((p) => p.channelTypes.includes(18))!;
    const channel = { type: 18, baseUrl: '', key: 'app|secret|key', other: '', config: {} };
    const model = providerInfo(18).models[0];
    const url = new URL(provider.build({ endpoint: 'chat', dialect: 'openai-chat', channel, model, stream: false, body: { model, messages: [] }, path: '/v1/chat/completions' }).url);
    expect(`${url.origin}${url.pathname}`).toBe('wss://spark-api.xf-yun.com/v1.1/chat');
    expect([...url.searchParams.keys()]).toEqual(['authorization', 'date', 'host']);
  });

  it('a channel with its own base URL keeps the vendor\'s path under it', () => {
    const provider = PROVIDERS.find((p) => p.channelTypes.includes(16))!;
    const channel = { type: 16, baseUrl: 'https://glm.example.com', key: 'k', other: '', config: {} };
    const embeddings = provider.build({ endpoint: 'embeddings', dialect: 'openai-chat', channel, model: 'embedding-3', stream: false, body: { model: 'embedding-3', input: 'x' }, path: '/v1/embeddings' });
    expect(embeddings.url).toBe('https://glm.example.com/api/paas/v4/embeddings');
  });

  it("a base URL saved with the vendor's own prefix is not given it twice (an OpenAI SDK's base URL pasted as is)", () => {
    const provider = PROVIDERS.find((p) => p.channelTypes.includes(8))!;
    const chatAt = (type: number, baseUrl: string) =>
      provider.build({ endpoint: 'chat', dialect: 'openai-chat', channel: { type, baseUrl, key: 'k', other: '', config: {} }, model: 'm', stream: false, body: { model: 'm', messages: [] }, path: '/v1/chat/completions' }).url;
    // Perplexity (no type of its own: a custom channel) documents https://api.perplexity.ai/v1 as the OpenAI SDK's base URL
    expect(chatAt(8, 'https://api.perplexity.ai/v1')).toBe('https://api.perplexity.ai/v1/chat/completions');
    expect(chatAt(8, 'https://api.perplexity.ai')).toBe('https://api.perplexity.ai/v1/chat/completions');
    expect(chatAt(16, 'https://open.bigmodel.cn/api/paas/v4')).toBe('https://open.bigmodel.cn/api/paas/v4/chat/completions');
    expect(chatAt(17, 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1')).toBe('https://dashscope-intl.aliyuncs.com/compatible-mode/v1/chat/completions');
    expect(chatAt(36, 'https://api.deepseek.com/v1')).toBe('https://api.deepseek.com/v1/chat/completions');
    // a path that only contains the prefix further up is the channel's own
    expect(chatAt(8, 'https://gw.example.com/v1/tenant')).toBe('https://gw.example.com/v1/tenant/v1/chat/completions');
  });

  it('a Cloudflare channel without its Account ID is refused with the reason', () => {
    const provider = PROVIDERS.find((p) => p.channelTypes.includes(37))!;
    const channel = { type: 37, baseUrl: '', key: 'k', other: '', config: {} };
    expect(() => provider.build({ endpoint: 'chat', dialect: 'openai-chat', channel, model: 'm', stream: false, body: {}, path: '/v1/chat/completions' })).toThrow('Account ID');
  });

  // covers S3-CHANNELTYPES-02
  it('every type of the catalogue relays (PaLM, which Google shut down, answers why instead)', () => {
    const served = new Set(PROVIDERS.flatMap((p) => p.channelTypes));
    const missing = PROVIDER_CATALOGUE.filter((p) => !served.has(p.value) && !p.retired).map((p) => p.value);
    expect(missing).toEqual([]);
    expect(PROVIDER_CATALOGUE.filter((p) => p.retired).map((p) => p.value)).toEqual([11]);
  });

  it('every served type is in the catalogue', () => {
    for (const provider of PROVIDERS) for (const type of provider.channelTypes) expect(providerInfo(type).text).not.toBe('未知类型');
  });
});
