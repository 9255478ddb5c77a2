import { cacheReads, type ModelFamily } from './types.js';

/**
 * Anthropic Claude and Google Gemini. (Ratios, units and where each price was read: billing/model-catalogue.ts and
 * the comment on each family.)
 */

export const ANTHROPIC_GOOGLE_FAMILIES: ModelFamily[] = [
  {
    // Every Claude model reads its cache at 10 % and writes it at 125 % (5 min) and 200 % (1 h).
    family: 'Anthropic Claude',
    match: /^claude/,
    cache: { read: 0.1, write: 1.25, write1h: 2 },
    // The web search tool: US$10 per 1,000 searches, its results billed as input tokens besides (Anthropic's pricing).
    webSearch: 10,
    // Fast mode (`speed: "fast"`, Opus 4.6 and later): 6 times every standard price (Anthropic's fast-mode pricing
    // for Opus 4.6 and 4.7; set FastModeRatio for a model priced otherwise).
    fastMode: 6,
    // Data residency: inference kept in the US (`inference_geo: "us"`) is priced 1.1 times (Claude's data residency
    // pricing, as the Claude Platform on AWS guide states it).
    regionalInference: 1.1,
    // The 1M-token context window: a request of more than 200K input tokens pays twice the input prices and 1.5 times
    // the output prices (Anthropic's long-context pricing; a model without that window cannot get there).
    longContext: { above: 200_000, input: 2, output: 1.5 },
    outputLimit: 8_192,
    // About width x height / 750 tokens an image, a larger one first scaled down to 1568 pixels a side.
    media: { image: 'claude', largest: [1568, 1568], page: 6_000, pages: 100, context: 1_000_000 },
    variants: [
      { match: /^claude-3-(opus|sonnet|haiku)/, outputLimit: 4_096 },
      { match: /^claude-3-5/, outputLimit: 8_192 },
      { match: /^claude-(opus-4-1|opus-4-2|opus-4-0|opus-4$|opus-4-2025)/, outputLimit: 32_000 },
      // Haiku 5.5 is priced in two bands: a request whose prompt (cache reads and writes included) is above 100K
      // tokens pays five times every price of the request, its output too (US$0.50 / 2.50 per 1M against 0.10 / 0.50).
      { match: /^claude-haiku-5/, outputLimit: 128_000, longContext: { above: 100_000, input: 5, output: 5 } },
      // 128K: Opus 4.6 to 4.8, Sonnet 4.6 and the 5 generation (each model's page on platform.claude.com; Opus 4.7
      // also on Bedrock's model card). The relay sends it upstream for a translated request that set no limit.
      { match: /^claude-(opus-4-[6-9]|sonnet-4-6|opus-5|sonnet-5|fable|mythos)/, outputLimit: 128_000 },
      { match: /^claude-(3-7|sonnet-4|haiku-4|opus-4)/, outputLimit: 64_000 },
    ],
    models: {
      'claude-3-haiku-20240307': { ratio: 0.125, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-3-5-haiku-20241022': { ratio: 0.4, completion: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
      'claude-3-5-sonnet-20241022': { ratio: 1.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-3-7-sonnet-20250219': { ratio: 1.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
      'claude-3-opus-20240229': { ratio: 7.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-sonnet-4-20250514': { ratio: 1.5, completion: 5 },
      'claude-sonnet-4-5-20250929': { ratio: 1.5, completion: 5 },
      'claude-opus-4-20250514': { ratio: 7.5, completion: 5 },
      'claude-opus-4-1-20250805': { ratio: 7.5, completion: 5 },
      'claude-haiku-4-5-20251001': { ratio: 0.5, completion: 5 },
      // Anthropic's price list (platform.claude.com pricing): Opus 4.5 to 5 US$5 / 25 per 1M (fast mode on 4.6 US$30 /
      // 150, six times), Sonnet 4.6 US$3 / 15, Fable 5 and Mythos 5 US$10 / 50 (their 5.1: cache hits US$0.25).
      'claude-opus-4-5-20251101': { ratio: 2.5, completion: 5 },
      'claude-opus-4-6': { ratio: 2.5, completion: 5 },
      'claude-opus-4-7': { ratio: 2.5, completion: 5 },
      'claude-opus-4-8': { ratio: 2.5, completion: 5 },
      'claude-opus-5': { ratio: 2.5, completion: 5 },
      'claude-sonnet-4-6': { ratio: 1.5, completion: 5 },
      'claude-fable-5': { ratio: 5, completion: 5 },
      'claude-mythos-5': { ratio: 5, completion: 5 },
      'claude-fable-5-1': { ratio: 5, completion: 5, cacheRead: 0.025 },
      'claude-mythos-5-1': { ratio: 5, completion: 5, cacheRead: 0.025 },
      // The lineup after them (each model's page on platform.claude.com; the cache-hit prices as price trackers quote
      // Anthropic's price list, checked 2026-12): Opus 5.5 US$4 / 20 (cache hits US$0.20), Sonnet 5 and 5.5
      // US$2 / 10 (cache hits US$0.20; 5.5's cut to US$0.10 on 2026-10-07), Haiku 5.5 US$0.10 / 0.50 up to a
      // 100K-token prompt (the band above is its variant's long-context price), Fable 5.2 and Mythos 5.2 US$8 / 40
      // (cache hits US$0.20). Cache writes at the family's 1.25 and 2 times.
      'claude-opus-5-5': { ratio: 2, completion: 5, cacheRead: 0.05 },
      'claude-sonnet-5': { ratio: 1, completion: 5 },
      'claude-sonnet-5-5': { ratio: 1, completion: 5, cacheRead: 0.05 },
      'claude-haiku-5-5': { ratio: 0.05, completion: 5 },
      'claude-fable-5-2': { ratio: 4, completion: 5, cacheRead: 0.025 },
      'claude-mythos-5-2': { ratio: 4, completion: 5, cacheRead: 0.025 },
      // OpenRouter's own model page (openrouter.ai/anthropic/claude-3.5-sonnet), read 2026-11-23: US$3 / 15 per 1M.
      'anthropic/claude-3.5-sonnet': { ratio: 1.5, completion: 5 },
    },
  },
  {
    family: 'Google Gemini',
    match: /^gemini/,
    cache: cacheReads(0.25),
    // Grounding with Google Search: US$35 per 1,000 grounded prompts (Gemini API pricing, 2.x models).
    webSearch: 35,
    outputLimit: 65_536,
    // 258 tokens an image up to 384 x 384, else 258 a 768 x 768 tile of the image scaled into 3072 x 3072.
    media: { image: 'gemini', largest: [3072, 3072], page: 1_200, pages: 1_000, context: 2_097_152 },
    variants: [
      // Gemini 1.x, 2.0 and the first gemini-pro (and -vision); not gemini-pro-latest, an alias of the newest Pro.
      { match: /^gemini-(1\.|2\.0|pro(-vision)?$)/, outputLimit: 8_192 },
      // Gemini 3 bills grounding per search query: US$14 per 1,000. Gemini 4 is listed at the same US$14 a query by
      // price trackers (iyulab/TokenMeter's releases), but the Gemini dialect counts a query per search only for a
      // gemini-3 model (relay/dialects/gemini/model-parts.ts, searchesOf) and one per grounded prompt else: Gemini 4
      // keeps the family's per-prompt price until both change together.
      { match: /^gemini-3/, webSearch: 14 },
      // Long prompts (Gemini API price list): 2.5 Pro and 3 Pro above 200K input tokens US$2.50 / 15 against 1.25 / 10
      // (3 Pro and 3.1 Pro: 4 / 18 against 2 / 12, cache hits 0.40 against 0.20, the input's factor); 1.5 Pro and
      // Flash above 128K twice every price. The Gemini 3 Flash, Flash-Lite and Gemini 4 models have one price at any
      // prompt size (their price rows have no second band).
      { match: /^gemini-(3(\.\d+)?-pro|2\.5-pro)/, longContext: { above: 200_000, input: 2, output: 1.5 } },
      { match: /^gemini-1\.5/, longContext: { above: 128_000, input: 2, output: 2 } },
      // The image models (Gemini API price list, per 1M tokens; an image of up to 1024 x 1024 is 1,290 tokens on 2.5,
      // 1,120 on 3): 2.5 Flash Image US$0.30 input, 2.50 text and 30 image output; 3 Pro Image US$2, 12 and 120;
      // 3.1 Flash Image US$0.50, 3 and 60.
      { match: /^gemini-2\.5-flash-image/, imageOutput: 100 },
      { match: /^gemini-3-pro-image/, imageOutput: 60 },
      { match: /^gemini-3\.1-flash-image/, imageOutput: 120 },
      // Audio input, Gemini API price list (per 1M): 2.5 Flash US$1.00 against 0.30 for text, 2.5 Flash-Lite 0.30
      // against 0.10, 2.0 Flash 0.70 against 0.10; 2.5 Pro and 2.0 Flash-Lite price every input alike.
      // Gemini 3 Flash Preview US$1.00 against 0.50, 3.1 Flash-Lite 0.50 against 0.25 (models.dev's google entries, which
      // cite ai.google.dev/gemini-api/docs/pricing; yoagent's v0.27.6 release the same); 3.5 Flash, 3.5 Flash-Lite,
      // 3.6 to 3.8 Flash, 3.1 Pro and Gemini 4 price audio as text.
      { match: /^gemini-3-flash-preview/, audio: { input: 2 } },
      { match: /^gemini-3\.1-flash-lite(-preview)?$/, audio: { input: 2 } },
      { match: /^gemini-2\.5-flash-lite/, audio: { input: 3 } },
      { match: /^gemini-2\.5-flash/, audio: { input: 3.333 } },
      { match: /^gemini-2\.0-flash-lite/, audio: { input: 1 } },
      { match: /^gemini-2\.0-flash/, audio: { input: 7 } },
    ],
    models: {
      'gemini-1.5-flash': { ratio: 0.0375, completion: 4, cacheRead: 0.25 },
      'gemini-1.5-pro': { ratio: 0.625, completion: 4, cacheRead: 0.25 },
      'gemini-2.0-flash': { ratio: 0.05, completion: 4, cacheRead: 0.25 },
      'gemini-2.5-pro': { ratio: 0.625, completion: 8 },
      'gemini-2.5-flash': { ratio: 0.15, completion: 8.333 },
      'gemini-2.5-flash-lite': { ratio: 0.05, completion: 4 },
      'gemini-2.5-flash-image': { ratio: 0.15, completion: 8.333, aliases: ['gemini-2.5-flash-image-preview'] },
      // Gemini 3 and later text models, US$ per 1M tokens (output includes thinking tokens, which Gemini bills as output);
      // cache hits are 10 % of the input price on Gemini 3 and 5 % on Gemini 4 (implicit caching only). Every one's
      // output limit is 65,536 tokens, the family's (each model's page on ai.google.dev/gemini-api/docs/models and the
      // developer guides on docs.cloud.google.com, read 2026-12-07). Google's pricing page itself could not be read
      // here: where a price is not on another Google page it is the pricing page as transcribed by others, named.
      //
      // 3.1 Pro Preview: US$2 / 12 up to a 200K prompt, cache hits 0.20 (above: the long-context variant). The Gemini
      // API pricing page as transcribed on 2026-09-20 and 2026-10-07 (api-evangelist's gemini and deepmind
      // plans-pricing.yml); cache hits models.dev's entry, which cites that page. -customtools is the same model's
      // endpoint for agents (its model page). 3 Pro Preview was shut down on 2026-03-09 and Google routes it to 3.1 Pro
      // Preview (ai.google.dev/gemini-api/docs/deprecations); same prices.
      'gemini-3.1-pro-preview': { ratio: 1, completion: 6, cacheRead: 0.1, aliases: ['gemini-3.1-pro-preview-customtools', 'gemini-3-pro-preview'] },
      // 3 Flash Preview US$0.50 / 3, cache hits 0.05; 3.1 Flash-Lite (GA 2026-05-07, its -preview name priced alike)
      // US$0.25 / 1.50, cache hits 0.025: models.dev's entries citing Google's pricing page, with
      // yoagent's v0.27.6 release ("from Google's pricing page") and getmaxim.ai alike. Audio: the variants above.
      'gemini-3-flash-preview': { ratio: 0.25, completion: 6, cacheRead: 0.1 },
      'gemini-3.1-flash-lite': { ratio: 0.125, completion: 6, cacheRead: 0.1, aliases: ['gemini-3.1-flash-lite-preview'] },
      // 3.5 Flash US$1.50 / 9 (the pricing page as transcribed 2026-10-07, above), cache hits 0.15 (models.dev). Its
      // model page calls it deprecated and routed to 3.6 Flash; it is billed at its own listed price until its row goes.
      'gemini-3.5-flash': { ratio: 0.75, completion: 6, cacheRead: 0.1 },
      // 3.5 Flash-Lite US$0.30 / 2.50, audio alike (ai.google.dev/gemini-api/docs/whats-new-gemini-3.6; the pricing page
      // as transcribed 2026-10-07), cache hits 0.03 (models.dev's entry, citing Google's pricing page).
      'gemini-3.5-flash-lite': { ratio: 0.15, completion: 8.333, cacheRead: 0.1 },
      // 3.6, 3.7 and 3.8 Flash: list price US$1.50 / 7.50, cache hits 0.15 (3.6: whats-new-gemini-3.6 on ai.google.dev;
      // 3.8: the pricing page as transcribed, "$0.75 through December 31, 2026", "$1.50 starting January 1, 2027", output
      // 3.75 then 7.50). All three are sold at half that until 2026-12-31 (US$0.75 / 3.75, cache hits 0.075; for 3.7
      // LiteLLM's launch post says until 2027-12-31). They are priced at the list price: a request is never billed
      // below its price once the introductory one ends (set ModelRatio 0.375 for the weeks it still runs).
      'gemini-3.6-flash': { ratio: 0.75, completion: 5, cacheRead: 0.1 },
      'gemini-3.7-flash': { ratio: 0.75, completion: 5, cacheRead: 0.1 },
      'gemini-3.8-flash': { ratio: 0.75, completion: 5, cacheRead: 0.1 },
      // Gemini 4: one price at any prompt size, implicit caching only. Argon US$4 / 20 since 2026-12-01 (US$2 / 10 till
      // 2026-11-30: ai.google.dev/gemini-api/docs/generate-content/latest-model), cache hits 0.20. Carbon the same
      // (apidog's and docs.laozhang.ai's Carbon pages, cedr v0.11.2), Neon US$3 / 15, cache hits 0.15, Hydrogen
      // US$1.50 / 7.50, cache hits 0.075 (docs.laozhang.ai's Neon and Hydrogen pages quoting Google's price,
      // iyulab/TokenMeter v0.17.0, LiteLLM's Hydrogen post): not read on a Google page. Each answers 65,536 output
      // tokens a request (32,768 a non-streaming REST one); a larger max_output_tokens turns on Google's long decodes,
      // several billed requests in one (ai.google.dev/gemini-api/docs/generate-content/long-decode), so the family's
      // 65,536 stays their limit.
      'gemini-4-argon': { ratio: 2, completion: 5, cacheRead: 0.05 },
      'gemini-4-carbon': { ratio: 2, completion: 5, cacheRead: 0.05 },
      'gemini-4-neon': { ratio: 1.5, completion: 5, cacheRead: 0.05 },
      'gemini-4-hydrogen': { ratio: 0.75, completion: 5, cacheRead: 0.05 },
      'gemini-3-pro-image-preview': { ratio: 1, completion: 6 },
      'gemini-3.1-flash-image-preview': { ratio: 0.25, completion: 6 },
      // Gemini's embedding model since Google retired text-embedding-004 (2026-01-14): US$0.15 per 1M input tokens
      // (Google's Gemini API price list as quoted in its "Gemini Embedding now generally available" post); no output.
      'gemini-embedding-001': { ratio: 0.075, completion: 1 },
      // OpenRouter's own model page (openrouter.ai/google/gemini-2.0-flash-001), read 2026-11-23: US$0.10 / 0.40 per 1M.
      'google/gemini-2.0-flash-001': { ratio: 0.05, completion: 4 },
    },
  },
];
