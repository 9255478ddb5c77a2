/**
 * Tools a provider runs itself and bills per call beside the tokens (web searches apart: `Usage.web_searches`).
 * OpenAI's Responses API (platform.openai.com/docs/pricing, "Built-in tools"): file search US$2.50 per 1,000 calls;
 * code interpreter US$0.03 per container (1 GB, the default); the image generation tool per image as GPT Image 1
 * bills it, by quality and size: low US$0.011 (1024 x 1024) / 0.016 (1024 x 1536, 1536 x 1024), medium 0.042 / 0.063,
 * high 0.167 / 0.25; the older web_search_preview tool on a model that does not reason US$25 per 1,000 calls (on
 * the others it is a web search like any, `WebSearchPrice`).
 *
 * A call is billed under a price key: `web_search_preview`, `file_search`, `code_interpreter` (one per container an answer ran code in),
 * `image_generation:<quality>:<size>`. `ToolCallPrice` (US$ per 1,000, by key) overrides these defaults; an image
 * whose quality or size is not a key ('auto', a size the table does not know) costs the dearest image, so no image
 * is ever billed below its price.
 */
export const TOOL_CALL_PRICES: Readonly<Record<string, number>> = Object.freeze({
  // The Responses API's older web search tool on a model that does not reason (gpt-4o, gpt-4.1).
  web_search_preview: 25,
  file_search: 2.5,
  code_interpreter: 30,
  'image_generation:low:1024x1024': 11,
  'image_generation:low:1024x1536': 16,
  'image_generation:low:1536x1024': 16,
  'image_generation:medium:1024x1024': 42,
  'image_generation:medium:1024x1536': 63,
  'image_generation:medium:1536x1024': 63,
  'image_generation:high:1024x1024': 167,
  'image_generation:high:1024x1536': 250,
  'image_generation:high:1536x1024': 250,
});

/** The price of one call of `key`, US$ per 1,000: the admin's, else the default; an unknown image costs the dearest image. */
export function toolCallPrice(key: string, own: Record<string, number>): number {
  const set = Object.prototype.hasOwnProperty.call(own, key) ? own[key] : undefined;
  if (set !== undefined) return set;
  if (Object.prototype.hasOwnProperty.call(TOOL_CALL_PRICES, key)) return TOOL_CALL_PRICES[key];
  if (key.startsWith('image_generation:')) return dearestImage(own);
  return 0;
}

function dearestImage(own: Record<string, number>): number {
  let most = 0;
  for (const key of Object.keys(TOOL_CALL_PRICES)) if (key.startsWith('image_generation:')) most = Math.max(most, toolCallPrice(key, own));
  return most;
}

const str = (value: unknown) => (typeof value === 'string' && value ? value : 'auto');
const isItem = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The billed calls of a Responses answer's output items: file_search_call items, the distinct containers of its
 * code_interpreter_call items, its image_generation_call items that produced an image (by their quality and size).
 * Undefined when there are none.
 */
export function toolCallsOf(output: unknown): Record<string, number> | undefined {
  if (!Array.isArray(output)) return undefined;
  let calls: Record<string, number> | undefined;
  const add = (key: string) => ((calls ??= {})[key] = (calls[key] ?? 0) + 1);
  const containers = new Set<string>();
  for (const item of output) {
    if (!isItem(item)) continue;
    if (item.type === 'file_search_call') add('file_search');
    else if (item.type === 'code_interpreter_call') {
      const container = typeof item.container_id === 'string' ? item.container_id : `#${containers.size}`;
      if (!containers.has(container)) add('code_interpreter');
      containers.add(container);
    } else if (item.type === 'image_generation_call' && item.status !== 'failed') add(`image_generation:${str(item.quality)}:${str(item.size)}`);
  }
  return calls;
}

/** The calls of `calls` in words for a log row, e.g. `file_search 2 次`. */
export function describeToolCalls(calls: Record<string, number>, quotaOf: (key: string) => number): string {
  const round = (quota: number) => Math.round(quota * 100) / 100;
  return Object.entries(calls)
    .map(([key, count]) => ` + 托管工具 ${key} ${count} 次 × ${round(quotaOf(key))} 额度`)
    .join('');
}
