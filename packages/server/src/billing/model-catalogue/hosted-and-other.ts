import type { ModelFamily } from './types.js';

/**
 * Hosted open models and the other vendors: Amazon Bedrock, Mistral, Groq, Cloudflare Workers AI, together.ai, Novita,
 * Cohere, DeepL. (Ratios, units and where each price was read: billing/model-catalogue.ts and the comment on each family.)
 */

/** DeepL's models: one per target language (relay/providers/deepl). */
const DEEPL_LANGUAGES = ['zh', 'en', 'ja', 'ko', 'de', 'fr', 'es'];

export const HOSTED_AND_OTHER_FAMILIES: ModelFamily[] = [
  {
    family: 'Amazon Bedrock (Nova, Llama)',
    models: {
      'amazon.nova-pro-v1:0': { ratio: 0.4, completion: 4 },
      'amazon.nova-lite-v1:0': { ratio: 0.03, completion: 4 },
      'meta.llama3-8b-instruct-v1:0': { ratio: 0.15, completion: 2 },
    },
  },
  {
    family: 'Mistral',
    models: {
      'mistral-large-latest': { ratio: 1, completion: 3 },
      'mistral-small-latest': { ratio: 0.1, completion: 3 },
      'open-mistral-nemo': { ratio: 0.075 },
      'codestral-latest': { ratio: 0.15, completion: 3 },
      'mistral-embed': { ratio: 0.05 },
    },
  },
  {
    family: 'Groq (hosted open models)',
    models: {
      'llama-3.1-8b-instant': { ratio: 0.025, completion: 1.6 },
      'llama-3.3-70b-versatile': { ratio: 0.295, completion: 1.339 },
      'gemma2-9b-it': { ratio: 0.1 },
      'mixtral-8x7b-32768': { ratio: 0.12 },
    },
  },
  {
    // developers.cloudflare.com/workers-ai/platform/pricing/ (billed in neurons, listed per token), read 2026-11-23:
    // llama-3.1-8b-instruct US$0.282 / 0.827 per 1M, mistral-7b-instruct-v0.1 US$0.110 / 0.190. The same page's source
    // (github.com/cloudflare/cloudflare-docs, src/content/docs/workers-ai/platform/pricing.mdx at 0059055, read
    // 2026-11-27): llama-3.3-70b-instruct-fp8-fast US$0.293 / 2.253 per 1M. bge-m3 US$0.012 per 1M was added 2026-11-27 at
    // the list price we knew; that version of the page does not list it (verify before relying on it).
    family: 'Cloudflare Workers AI',
    models: {
      '@cf/meta/llama-3.1-8b-instruct': { ratio: 0.141, completion: 2.933 },
      '@cf/mistral/mistral-7b-instruct-v0.1': { ratio: 0.055, completion: 1.727 },
      '@cf/meta/llama-3.3-70b-instruct-fp8-fast': { ratio: 0.1465, completion: 7.689 },
      '@cf/baai/bge-m3': { ratio: 0.006 },
    },
  },
  {
    // together.ai's price page (together.ai/pricing) could not be read from here; one price for input and output, as
    // the third-party catalogue durable-llm-registry lists it (github.com/durableprogramming/durable-llm-registry,
    // catalog/together/catalog.md at 00905f3, "Last Updated 2026-01-24", read 2026-11-27; US$ per 1M tokens):
    // Llama-3.3-70B-Instruct-Turbo 0.88 (pydantic's genai-prices, prices/providers/together.yml, the same, checked
    // 2025-07-03), Qwen2.5-72B-Instruct-Turbo 1.20, Mixtral 8x7B Instruct v0.1 0.60.
    family: 'together.ai',
    models: {
      'meta-llama/Llama-3.3-70B-Instruct-Turbo': { ratio: 0.44 },
      'Qwen/Qwen2.5-72B-Instruct-Turbo': { ratio: 0.6 },
      'mistralai/Mixtral-8x7B-Instruct-v0.1': { ratio: 0.3 },
    },
  },
  {
    // Novita's price page (novita.ai/pricing) could not be read from here (its model pages as stored show one
    // placeholder price for every model); third-party catalogues citing it, read 2026-11-27 (US$ per 1M input /
    // output): llama-3.1-8b-instruct 0.02 / 0.05, mistral-nemo 0.04 / 0.17, qwen-2.5-72b-instruct 0.38 / 0.40 (LobeHub
    // packages/model-bank/src/aiModels/novita.ts at 09e36f4), llama-3.1-70b-instruct 0.34 / 0.39 (genai-prices
    // prices/providers/novita.yml at 47df840, whose list was last changed 2025-07; LobeHub no longer lists it).
    family: 'Novita',
    models: {
      'meta-llama/llama-3.1-8b-instruct': { ratio: 0.01, completion: 2.5 },
      'meta-llama/llama-3.1-70b-instruct': { ratio: 0.17, completion: 1.1471 },
      'mistralai/mistral-nemo': { ratio: 0.02, completion: 4.25 },
      'qwen/qwen-2.5-72b-instruct': { ratio: 0.19, completion: 1.0526 },
    },
  },
  {
    // command-r-plus-08-2024 US$2.50 / 10.00 and command-r-08-2024 US$0.15 / 0.60 per 1M: Cohere's changelog
    // (docs.cohere.com/changelog/command-gets-refreshed). cohere.com/pricing could not be read here (2026-11-27); as
    // public price tables copy it: command-a-03-2025 US$2.50 / 10.00, command-r7b-12-2024 US$0.0375 / 0.15, embed-v4.0
    // US$0.12 (these three as the third-party catalogue genai-prices lists them, prices/providers/cohere.yml at 47df840,
    // checked by them 2025-07-04 and 2025-12-10) and embed-multilingual-v3.0 US$0.10 per 1M text tokens, rerank-v3.5
    // US$2.00 per 1K searches (these two not confirmed by a source read here). A search unit
    // is billed as 100 prompt tokens (providers/cohere/codec.ts), so ratio 10 = US$0.002 a search.
    family: 'Cohere',
    models: {
      'command-a-03-2025': { ratio: 1.25, completion: 4 },
      'command-r-plus-08-2024': { ratio: 1.25, completion: 4 },
      'command-r-08-2024': { ratio: 0.075, completion: 4 },
      'command-r7b-12-2024': { ratio: 0.01875, completion: 4 },
      'embed-v4.0': { ratio: 0.06 },
      'embed-multilingual-v3.0': { ratio: 0.05 },
      'rerank-v3.5': { ratio: 10 },
    },
  },
  {
    // DeepL API Pro, per source character (relay/providers/deepl/adapter.ts reports DeepL's billed_characters as
    // prompt_tokens): US$25 per 1M characters = 12.5 x US$0.002 per 1K; support.deepl.com article 360020685720
    // (read 2026-11-23) lists the EUR price, €0.00002 per character. The translation's characters cost nothing.
    family: 'DeepL',
    models: Object.fromEntries(DEEPL_LANGUAGES.map((language) => [`deepl-${language}`, { ratio: 12.5, completion: 0 }])),
  },
];
