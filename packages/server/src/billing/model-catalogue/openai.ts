import { cacheReads, type ModelFamily, type MediaFacts } from './types.js';

/**
 * OpenAI: GPT-3.5 to GPT-5, the o-series, and its embeddings, moderation, image and audio models. (Ratios, units and
 * where each price was read: billing/model-catalogue.ts and the comment on each family.)
 */

/** The size OpenAI's tile formulas are largest for (fit into 2048 x 2048, shortest side scaled to 768). */
const OPENAI_LARGEST: [number, number] = [2048, 768];
const OPENAI_GPT4_TILES: MediaFacts = { image: { tiles: [85, 170] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 1_047_576 };
const OPENAI_4O_MINI_TILES: MediaFacts = { image: { tiles: [2833, 5667] }, largest: OPENAI_LARGEST, page: 52_000, pages: 100, context: 128_000 };
const OPENAI_MINI_PATCHES: MediaFacts = { image: { patches: 1.62 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 };
const OPENAI_NANO_PATCHES: MediaFacts = { image: { patches: 2.46 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 };

/**
 * The Responses API's web search tool: US$10 per 1,000 calls, its results billed as input tokens (OpenAI's pricing;
 * the older web_search_preview costs US$25 per 1,000 on the models that do not reason: billing/tool-calls.ts).
 */
const OPENAI_WEB_SEARCH = 10;
/** The GPT-4o search models of Chat Completions (gpt-4o(-mini)-search-preview): US$25 per 1,000 searches, one an answer. */
const OPENAI_SEARCH_PREVIEW = { match: /-search-preview/, webSearch: 25 };
/*
 * Fast mode (service_tier "priority" or "fast"; Priority processing until July 2026), OpenAI's price list, every token
 * price against the standard one: gpt-4o 1.7 (US$4.25 / 17 against 2.50 / 10), gpt-4o-mini 1.667, gpt-4.1 and
 * gpt-4.1-mini 1.75, gpt-4.1-nano 2, o3 1.75, o4-mini 1.818, gpt-5 to 5.4 2, gpt-5-mini 1.8, gpt-5.5 and later 2.5.
 * A family's ratio is its dearest model's: no request is billed below its price.
 */

export const OPENAI_FAMILIES: ModelFamily[] = [
  {
    family: 'OpenAI GPT-3.5',
    match: /^gpt-3\.5/,
    outputLimit: 4_096,
    models: {
      'gpt-3.5-turbo': { ratio: 0.25, completion: 3, aliases: ['gpt-3.5-turbo-0125'] },
      'gpt-3.5-turbo-instruct': { ratio: 0.75, completion: 1.333 },
    },
  },
  {
    family: 'OpenAI GPT-4 (and GPT-4 Turbo, GPT-4.5)',
    match: /^gpt-4(?!\.1|o)/,
    outputLimit: 8_192,
    media: OPENAI_GPT4_TILES,
    variants: [{ match: /^gpt-4-(turbo|\d{4}-preview|vision)/, outputLimit: 4_096 }],
    models: {
      'gpt-4': { ratio: 15, completion: 2 },
      'gpt-4-turbo': { ratio: 5, completion: 3 },
    },
  },
  {
    family: 'OpenAI GPT-4o',
    match: /^gpt-4o/,
    webSearch: OPENAI_WEB_SEARCH,
    fastMode: 1.7,
    cache: cacheReads(0.5),
    outputLimit: 16_384,
    media: OPENAI_GPT4_TILES,
    variants: [
      // The audio models (Chat Completions with `modalities: ["text", "audio"]`), OpenAI's price list: gpt-4o-audio-preview
      // text US$2.50 / 10, audio US$40 / 80 per 1M; gpt-4o-mini-audio-preview text US$0.15 / 0.60, audio US$10 / 20.
      { match: /^gpt-4o-mini-audio/, audio: { input: 66.667, completion: 2 }, media: OPENAI_4O_MINI_TILES },
      { match: /^gpt-4o-audio/, audio: { input: 16, completion: 2 } },
      OPENAI_SEARCH_PREVIEW,
      { match: /^gpt-4o-mini/, media: OPENAI_4O_MINI_TILES },
    ],
    models: {
      'gpt-4o': { ratio: 1.25, completion: 4, cacheRead: 0.5, aliases: ['gpt-4o-2024-08-06'] },
      'gpt-4o-mini': { ratio: 0.075, completion: 4, cacheRead: 0.5 },
      'gpt-4o-audio-preview': { ratio: 1.25, completion: 4 },
      'gpt-4o-mini-audio-preview': { ratio: 0.075, completion: 4 },
      // The search models: their base model's token prices (US$2.50 / 10 and 0.15 / 0.60 per 1M), the search apart.
      'gpt-4o-search-preview': { ratio: 1.25, completion: 4 },
      'gpt-4o-mini-search-preview': { ratio: 0.075, completion: 4 },
    },
  },
  {
    // ChatGPT's own model (chatgpt-4o-latest): GPT-4o's prices and media, no published output limit.
    family: 'ChatGPT-4o',
    match: /^chatgpt-4o/,
    webSearch: OPENAI_WEB_SEARCH,
    cache: cacheReads(0.5),
    media: OPENAI_GPT4_TILES,
    variants: [{ match: /^chatgpt-4o-mini/, media: OPENAI_4O_MINI_TILES }],
    models: {},
  },
  {
    family: 'OpenAI GPT-4.1',
    match: /^gpt-4\.1/,
    webSearch: OPENAI_WEB_SEARCH,
    fastMode: 1.75,
    cache: cacheReads(0.25),
    outputLimit: 32_768,
    media: OPENAI_GPT4_TILES,
    variants: [
      { match: /^gpt-4\.1-mini/, media: OPENAI_MINI_PATCHES },
      { match: /^gpt-4\.1-nano/, media: OPENAI_NANO_PATCHES, fastMode: 2 },
    ],
    models: {
      'gpt-4.1': { ratio: 1, completion: 4, cacheRead: 0.25 },
      'gpt-4.1-mini': { ratio: 0.2, completion: 4, cacheRead: 0.25 },
      'gpt-4.1-nano': { ratio: 0.05, completion: 4, cacheRead: 0.25 },
    },
  },
  {
    family: 'OpenAI o-series',
    match: /^o\d/,
    webSearch: OPENAI_WEB_SEARCH,
    fastMode: 1.818,
    outputLimit: 100_000,
    variants: [
      { match: /^o1-mini/, outputLimit: 65_536 },
      { match: /^o4-mini/, media: { image: { patches: 1.72 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 200_000 } },
      { match: /^(o3|o4)/, cache: cacheReads(0.25) },
      { match: /^o1/, cache: cacheReads(0.5) },
      { match: /^(o1|o3)/, media: { image: { tiles: [75, 150] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 200_000 } },
    ],
    models: {
      o1: { ratio: 7.5, completion: 4, cacheRead: 0.5 },
      'o1-mini': { ratio: 0.55, completion: 4, cacheRead: 0.5 },
      'o3-mini': { ratio: 0.55, completion: 4, cacheRead: 0.5 },
      o3: { ratio: 1, completion: 4 },
      'o4-mini': { ratio: 0.55, completion: 4 },
    },
  },
  {
    family: 'OpenAI GPT-5',
    match: /^gpt-5/,
    webSearch: OPENAI_WEB_SEARCH,
    fastMode: 2,
    cache: cacheReads(0.1),
    outputLimit: 128_000,
    media: { image: { tiles: [70, 140] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 400_000 },
    variants: [
      // Fast mode of GPT-5.5 and later: 2.5 times (GPT-5.5 US$12.50 / 75 against 5 / 30).
      { match: /^gpt-5\.([5-9]|\d{2})/, fastMode: 2.5 },
      { match: /^gpt-5(\.\d+)?-mini/, media: OPENAI_MINI_PATCHES },
      { match: /^gpt-5(\.\d+)?-nano/, media: OPENAI_NANO_PATCHES },
    ],
    models: {
      'gpt-5': { ratio: 0.625, completion: 8 },
      'gpt-5-mini': { ratio: 0.125, completion: 8 },
      'gpt-5-nano': { ratio: 0.025, completion: 8 },
      // Chat Completions' search model: GPT-5's token prices, US$10 per 1,000 searches (the family's), one an answer.
      'gpt-5-search-api': { ratio: 0.625, completion: 8 },
    },
  },
  {
    // The GA audio models, OpenAI's price list: gpt-audio text US$2.50 / 10, audio US$32 / 64 per 1M; gpt-audio-mini
    // text US$0.60 / 2.40, audio US$10 / 20.
    family: 'OpenAI GPT audio',
    match: /^gpt-audio/,
    outputLimit: 16_384,
    audio: { input: 12.8, completion: 2 },
    variants: [{ match: /^gpt-audio-mini/, audio: { input: 16.667, completion: 2 } }],
    models: {
      'gpt-audio': { ratio: 1.25, completion: 4 },
      'gpt-audio-mini': { ratio: 0.3, completion: 4 },
    },
  },
  {
    // GPT Image on the images endpoint, billed by the tokens it reports (OpenAI's price list, per 1M): gpt-image-1 text
    // input US$5, image input 10, image output 40; gpt-image-1-mini text input 2, image input 2.50, image output 8.
    family: 'OpenAI GPT Image',
    match: /^gpt-image/,
    imageInput: 2,
    imageOutput: 8,
    variants: [{ match: /^gpt-image-1-mini/, imageInput: 1.25, imageOutput: 4 }],
    models: {
      'gpt-image-1': { ratio: 2.5, completion: 8 },
      'gpt-image-1-mini': { ratio: 1, completion: 4 },
    },
  },
  {
    family: 'OpenAI embeddings, moderation, images and audio',
    models: {
      'text-embedding-ada-002': { ratio: 0.05 },
      'text-embedding-3-small': { ratio: 0.01 },
      'text-embedding-3-large': { ratio: 0.065 },
      'text-moderation-latest': { ratio: 0.1 },
      'omni-moderation-latest': { ratio: 0.1 },
      'dall-e-2': { ratio: 8 },
      'dall-e-3': { ratio: 20 },
      'whisper-1': { ratio: 15 },
      'tts-1': { ratio: 7.5 },
      'tts-1-hd': { ratio: 15 },
    },
  },
];
