import { cacheReads, type CacheRatios, type LongContext, type ModelFamily, type MediaFacts } from './types.js';

/**
 * OpenAI: GPT-3.5 to GPT-6, the o-series, and its embeddings, moderation, image and audio models. (Ratios, units and
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
 * gpt-4.1-mini 1.75, gpt-4.1-nano 2, o3 1.75, o4-mini 1.818, gpt-5 to 5.4 2, gpt-5-mini 1.8, gpt-5.5 2.5, gpt-5.6
 * (Sol, Terra, Luna) 2 again, GPT-6 (Astra, Sol, Terra, Luna, 6 to 6.2) 2 (each GPT-6 model page). A family's ratio
 * is its dearest model's: no request is billed below its price.
 */

/** GPT-5's image tiles and document bounds in its 400,000-token window, and the same in the 1,050,000 of GPT-5.4 and later. */
const OPENAI_GPT5_TILES: MediaFacts = { image: { tiles: [70, 140] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 400_000 };
const OPENAI_GPT5_1M: MediaFacts = { ...OPENAI_GPT5_TILES, context: 1_050_000 };
/**
 * GPT-5.4 and later (1,050,000-token window): a request of more than 272K input tokens (cached ones included) pays
 * twice the input prices and 1.5 times the output prices for all of its tokens. 272K is read as 272,000, GPT-5's own
 * input limit; were OpenAI to mean 272 x 1,024, the tokens between would be billed above their price, never below.
 */
const OPENAI_LONG_CONTEXT: LongContext = { above: 272_000, input: 2, output: 1.5 };
/** GPT-5.6's prompt cache: reads at 10 % of the input price, writes at 1.25 times it (one write price, no 1-hour class). */
const OPENAI_GPT56_CACHE: CacheRatios = { read: 0.1, write: 1.25, write1h: 1.25 };
/**
 * GPT-6's prompt cache (OpenAI's GPT-6 model pages, read 2026-12-07): reads at 10 % of the input price on GPT-6 Astra,
 * Sol and Luna and at 5 % from GPT-6.1 on (6.1 Terra's page, and 6.1 Sol's as w3cschool.cn copies it: "5% of the
 * uncached input rate"; 6.2 Sol US$0.10 against 2; 6.2 Astra US$0.40 against 8), writes at 1.25 times the input price
 * (the pages of 6 Sol, 6 Luna, 6.1 Terra and 6.2 Sol; the same for the others where their write price is known). The
 * pages of GPT-6.1 Terra and GPT-6.2 Sol price a 12-hour write apart, at 2.5 times the input price (US$2.50 and US$5 per
 * 1M against 1 and 2), held here as the longer write class (`write1h`); the others name one write price. Responses
 * reports the 12-hour writes apart (usage.input_tokens_details.cache_write_tokens_details.ttl_12h_tokens), read into
 * that class; writes said as one number (Chat Completions) are of that class when the request asked for 12-hour writes
 * (billing/usage.ts `writesAsAsked`, applied by the meter).
 */
const OPENAI_GPT6_CACHE: CacheRatios = { read: 0.1, write: 1.25, write1h: 1.25 };
const OPENAI_GPT61_CACHE: CacheRatios = { read: 0.05, write: 1.25, write1h: 1.25 };
const OPENAI_GPT61_12H_CACHE: CacheRatios = { read: 0.05, write: 1.25, write1h: 2.5 };

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
    media: OPENAI_GPT5_TILES,
    variants: [
      // GPT-5.6 (OpenAI's model pages for gpt-5.6-sol, -terra and -luna on developers.openai.com, and its Fast mode
      // page openai.com/api-fast-mode, read 2026-12-07): Fast mode twice every price, long-context columns too (Terra
      // US$4 / 0.40 / 24 against 2 / 0.20 / 12; above 272K US$8 / 0.80 / 36 against 4 / 0.40 / 18); cache writes 1.25
      // times the uncached input price.
      { match: /^gpt-5\.6(-|$)/, fastMode: 2, cache: OPENAI_GPT56_CACHE },
      // Fast mode of GPT-5.5: 2.5 times (GPT-5.5 US$12.50 / 75 against 5 / 30); a later generation not yet known here
      // is priced so too, the dearest ratio.
      { match: /^gpt-5\.([5-9]|\d{2})/, fastMode: 2.5 },
      // The chat models (gpt-5.x-chat-latest, ChatGPT's Instant): 16,384 output tokens, 128K window (OpenAI's page for
      // gpt-5.3-chat-latest, read 2026-12-07; the same for gpt-5.2-chat-latest on docs.oxen.ai).
      { match: /^gpt-5(\.\d+)?-chat/, outputLimit: 16_384 },
      { match: /^gpt-5(\.\d+)?-mini/, media: OPENAI_MINI_PATCHES },
      { match: /^gpt-5(\.\d+)?-nano/, media: OPENAI_NANO_PATCHES },
      // GPT-5.4 and later: the 1,050,000-token window and its long-context prices (OpenAI's GPT-5.6 model pages: "Prompts
      // with >272K input tokens are priced at 2x input and 1.5x output for the full request"; GPT-5.4 and 5.5 and their
      // Pro the same, as OpenAI's Fast mode page marks them "excludes long context" and its pricing page is copied in
      // simonw/llm-prices, e.g. GPT-5.5 above 272K US$10 / 1 / 45 against 5 / 0.50 / 30). A 400K-window model of these
      // generations (5.4 mini and nano) cannot be sent more than 272K input tokens.
      { match: /^gpt-5\.([4-9]|\d{2})/, longContext: OPENAI_LONG_CONTEXT, media: OPENAI_GPT5_1M },
    ],
    models: {
      'gpt-5': { ratio: 0.625, completion: 8 },
      'gpt-5-mini': { ratio: 0.125, completion: 8 },
      'gpt-5-nano': { ratio: 0.025, completion: 8 },
      // Chat Completions' search model: GPT-5's token prices, US$10 per 1,000 searches (the family's), one an answer.
      'gpt-5-search-api': { ratio: 0.625, completion: 8 },
      // OpenAI's own pages, read 2026-12-07 (US$ per 1M input / cached input / output; 128,000 output tokens unless the
      // chat variant says otherwise): gpt-5.1 US$1.25 / 0.125 / 10 (its model page, snapshot gpt-5.1-2025-11-13);
      // gpt-5.4 US$2.50 / 15 and gpt-5.4-mini 0.75 / 4.50 (developers.openai.com/docs/models), gpt-5.4-nano 0.20 / 0.02
      // / 1.25 (its model page, snapshot gpt-5.4-nano-2026-03-17); gpt-5.3-chat-latest 1.75 / 0.175 / 14 (its model
      // page, which marks it shut down). Cached input at the family's 10 %: Fast mode's cached column
      // (openai.com/api-fast-mode) is 10 % of its input column for 5.4 and 5.4 mini. Snapshot gpt-5.4-2026-03-05 as
      // docs.oxen.ai names its model (OpenAI's page for it was not found).
      'gpt-5.1': { ratio: 0.625, completion: 8, aliases: ['gpt-5.1-2025-11-13'] },
      'gpt-5.3-chat-latest': { ratio: 0.875, completion: 8 },
      // The chat models of 5.1 and 5.2 (ChatGPT's GPT-5.1 and GPT-5.2 Instant): gpt-5.1-chat-latest US$1.25 / 0.125 / 10,
      // gpt-5.2-chat-latest US$1.75 / 0.175 / 14, each its generation's price, 16,384 output tokens (the chat variant).
      // Not read on a page of OpenAI's own here: OpenAI's pricing page as copied by models.dev
      // (anomalyco/models.dev, providers/openai/models/gpt-5.1-chat-latest.toml and gpt-5.2-chat-latest.toml, as of
      // 2026-07-02, 16,384 output tokens too); for 5.2 also ndurner.github.io's GPT-5.2 post (2025-12-14, quoting Simon
      // Willison: gpt-5.2-chat priced as GPT-5.2).
      'gpt-5.1-chat-latest': { ratio: 0.625, completion: 8 },
      'gpt-5.2-chat-latest': { ratio: 0.875, completion: 8 },
      'gpt-5.4': { ratio: 1.25, completion: 6, aliases: ['gpt-5.4-2026-03-05'] },
      'gpt-5.4-mini': { ratio: 0.375, completion: 6 },
      'gpt-5.4-nano': { ratio: 0.1, completion: 6.25, aliases: ['gpt-5.4-nano-2026-03-17'] },
      // GPT-5.5 (developers.openai.com/docs/models, read 2026-12-07): US$5 / 30 per 1M, cached input US$0.50 (Fast
      // mode's US$1.25 at 2.5 times; vercel.com's GPT-5.5 page the same), 128,000 output tokens. Snapshot
      // gpt-5.5-2026-04-23 as docs.oxen.ai and docs.aimlapi.com name it.
      'gpt-5.5': { ratio: 2.5, completion: 6, aliases: ['gpt-5.5-2026-04-23'] },
      // GPT-5.6, OpenAI's model pages read 2026-12-07: Terra US$2 / 0.20 / 12 and Luna US$0.20 / 0.02 / 1.20 (cut on
      // 2026-07-30), 128,000 output tokens each. Sol's page lists the promotional US$4 / 0.40 / 20 "at least until
      // 2026-11-21"; it is priced at its list price, US$5 / 0.50 / 30 (its launch price, and the price gateways that
      // resell it report restored on 2026-12-01, e.g. docs.laozhang.ai): a request is never billed below its price. The
      // gpt-5.6 alias routes to Sol (Sol's page). Dated snapshots: none on these pages.
      'gpt-5.6-sol': { ratio: 2.5, completion: 6, aliases: ['gpt-5.6'] },
      'gpt-5.6-terra': { ratio: 1, completion: 6 },
      'gpt-5.6-luna': { ratio: 0.1, completion: 6 },
      // Not read on a page of OpenAI's own here; each price is OpenAI's pricing page as copied by at least two others
      // (data/model-prices.json of deinspanjer/codex-cost-meter, "source: developers.openai.com/api/docs/pricing", as of
      // 2026-08-06; data/openai.json of simonw/llm-prices; GitHub's Copilot models-and-pricing table) and, for 5.2 and
      // 5.1 Codex, OpenAI's Fast mode page at its 2 times (GPT-5.2 US$3.50 / 0.35 / 28, GPT-5.1 codex US$2.50 / 0.25 /
      // 20); gpt-5.3-codex also OpenAI's Codex rate card (43.75 / 4.375 / 350 credits at 25 to the US$, as quoted in the
      // codex-ops crate). gpt-5.2 and the Codex models US$1.75 / 0.175 / 14 (5.2, 5.2-codex, 5.3-codex), US$1.25 / 0.125
      // / 10 (5.1-codex, 5.1-codex-max), US$0.25 / 0.025 / 2 (5.1-codex-mini). 128,000 output tokens: GPT-5.2-Codex's
      // model page (platform.openai.com, through a reader's copy), 5.2 and 5.3-Codex per vercel.com, 5.1-Codex and -Max
      // per polza.ai; 5.1-Codex-Mini's was not found (the family's 128,000 applies). Snapshot gpt-5.2-2025-12-11 as
      // docs.oxen.ai names its model.
      'gpt-5.2': { ratio: 0.875, completion: 8, aliases: ['gpt-5.2-2025-12-11'] },
      'gpt-5.1-codex': { ratio: 0.625, completion: 8 },
      'gpt-5.1-codex-max': { ratio: 0.625, completion: 8 },
      'gpt-5.1-codex-mini': { ratio: 0.125, completion: 8 },
      'gpt-5.2-codex': { ratio: 0.875, completion: 8 },
      'gpt-5.3-codex': { ratio: 0.875, completion: 8 },
      // The Pro models, from the same copies of OpenAI's pricing page: gpt-5.2-pro US$21 / 168, gpt-5.4-pro and
      // gpt-5.5-pro US$30 / 180 (above 272K US$60 / 270: the long-context variant), no cached-input price, so a cached
      // token is billed as input. 128,000 output tokens (vercel.com and docs.oxen.ai for 5.5 Pro, getmaxim.ai for 5.4 Pro,
      // withceleste/celeste-python for 5.2 Pro). Snapshot gpt-5.5-pro-2026-04-23 as docs.oxen.ai names it.
      'gpt-5.2-pro': { ratio: 10.5, completion: 8, cacheRead: 1 },
      'gpt-5.4-pro': { ratio: 15, completion: 6, cacheRead: 1 },
      'gpt-5.5-pro': { ratio: 15, completion: 6, cacheRead: 1, aliases: ['gpt-5.5-pro-2026-04-23'] },
    },
  },
  {
    // GPT-6 (OpenAI's models page, developers.openai.com/api/docs/models, and each model's page under it, read
    // 2026-12-07): the ids gpt-6-astra, gpt-6-sol, gpt-6-luna, gpt-6.1-sol, gpt-6.1-terra, gpt-6.2-astra and
    // gpt-6.2-sol; there is no gpt-6, gpt-6-mini, -nano, -pro or -codex in OpenAI's docs. Every one: 1,050,000-token
    // window (922,000 input), 128,000 output tokens; above 272K input tokens the whole request pays twice the input and
    // cache prices and 1.5 times the output price; Fast mode twice the applicable price (each page read, and LiteLLM's
    // GPT-6 Astra launch post; GPT-6.2 Astra's page was not read and has its family's); the Responses API's web search
    // at the tool's US$10 per 1,000 calls. Not billed here: Ultrafast (service_tier "ultrafast": 6 times on GPT-6.1 Sol, 3
    // times on GPT-6.2 Sol until 2027-02-28 and 6 times after), which the relay does not mark, and regional processing
    // (10 % more), which it does not see. Images: GPT-5's tiles are kept (GPT-6's image formula was not read on an OpenAI
    // page).
    family: 'OpenAI GPT-6',
    match: /^gpt-6/,
    webSearch: OPENAI_WEB_SEARCH,
    fastMode: 2,
    cache: OPENAI_GPT6_CACHE,
    outputLimit: 128_000,
    media: OPENAI_GPT5_1M,
    longContext: OPENAI_LONG_CONTEXT,
    variants: [
      { match: /^gpt-6\.(1-terra|2-sol)/, cache: OPENAI_GPT61_12H_CACHE },
      { match: /^gpt-6\.\d/, cache: OPENAI_GPT61_CACHE },
    ],
    models: {
      // US$ per 1M input / cached input / cache writes / output. OpenAI's pages: gpt-6-sol US$2 / 0.20 / 2.50 / 10
      // (zh-Hans/api/docs/models/gpt-6-sol, superseded by 6.1 Sol but served), gpt-6-luna US$0.10 / 0.01 / 0.125 / 0.50
      // (ja-JP/api/docs/models/gpt-6-luna), gpt-6.1-terra US$1 / 0.05 / 1.25 / 5 (zh-Hans/api/docs/models/gpt-6.1-terra),
      // gpt-6.2-sol US$2 / 0.10 / 2.50 / 10 (api/docs/models/gpt-6.2-sol). Input and output of the rest on OpenAI's models
      // page: gpt-6-astra US$10 / 50, gpt-6.1-sol US$2 / 10, gpt-6.2-astra US$8 / 40; their cached prices not read on a
      // page of OpenAI's own: gpt-6-astra US$1 (cache writes 12.50; LiteLLM's launch post, BerriAI/litellm discussion
      // #39633, and prefect12/codex-token-meter v0.2.22, both citing OpenAI's gpt-6-astra page), gpt-6.1-sol US$0.10
      // (cache writes 2.50; w3cschool.cn's copy of OpenAI's gpt-6.1-sol page, docs.litellm.ai's GPT-6.1 Sol post),
      // gpt-6.2-astra US$0.40 (akiiwa-games/AgentCompass-Router v0.6.8 and ivanusto/mitosis-orchestrator v2.7.7, "vendor
      // list prices"; its cache writes at the family's 1.25 times, not read anywhere). Snapshot gpt-6.1-sol-2026-09-29 as
      // docs.laozhang.ai reports Chat Completions answering (OpenAI's page names gpt-6.1-sol alone); no others found.
      'gpt-6-astra': { ratio: 5, completion: 5 },
      'gpt-6-sol': { ratio: 1, completion: 5 },
      'gpt-6-luna': { ratio: 0.05, completion: 5 },
      'gpt-6.1-sol': { ratio: 1, completion: 5, cacheRead: 0.05, aliases: ['gpt-6.1-sol-2026-09-29'] },
      'gpt-6.1-terra': { ratio: 0.5, completion: 5, cacheRead: 0.05 },
      'gpt-6.2-astra': { ratio: 4, completion: 5, cacheRead: 0.05 },
      'gpt-6.2-sol': { ratio: 1, completion: 5, cacheRead: 0.05 },
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
