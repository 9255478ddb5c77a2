import { canonicalModelName } from './model-name.js';

/**
 * The most prompt tokens a provider bills for media it is shown, per model family, from the providers' documented
 * formulas. A reservation must bound what the upstream can bill, so each bound errs high: an image of known size
 * is priced by its formula; one of unknown size (a URL, a file id) at the largest the provider takes; audio and
 * video by their bytes at a rate above any provider's; a document by its pages, or the most pages the provider
 * reads; anything of unknown length at most the model's context window.
 */
export interface MediaBounds {
  /** An image of this pixel size (undefined: unknown, the largest the provider takes); `detail` is OpenAI's. */
  image(size: { width: number; height: number } | undefined, detail?: unknown): number;
  /** A PDF of this many pages (undefined: unknown). */
  document(pages: number | undefined): number;
  /** Audio or video of this many bytes once decoded (undefined: unknown length). */
  audio(bytes: number | undefined): number;
  video(bytes: number | undefined): number;
}

/** OpenAI's tile formula: fit in 2048 x 2048, shortest side down to 768, then `base + tile x` 512-pixel tiles. */
const tiled = (base: number, tile: number) => (w: number, h: number, detail: unknown) => {
  if (detail === 'low') return base;
  let scale = Math.min(1, 2048 / Math.max(w, h));
  scale *= Math.min(1, 768 / (Math.min(w, h) * scale));
  return base + tile * Math.ceil((w * scale) / 512) * Math.ceil((h * scale) / 512);
};
/** OpenAI's patch formula: 32-pixel patches, at most 1,536 (larger images are scaled down), times a multiplier. */
const patched = (multiplier: number) => (w: number, h: number) => Math.ceil(Math.min(1536, Math.ceil(w / 32) * Math.ceil(h / 32)) * multiplier);
/** Claude: about width x height / 750, a larger image first scaled down to ~1,600 tokens (a tenth added for rounding). */
const claude = (w: number, h: number) => Math.ceil(Math.min(1_600, (w * h) / 750) * 1.1);
/** Gemini: 258 tokens up to 384 x 384, else 258 per 768 x 768 tile of the image scaled into 3072 x 3072 (Gemini 3: at most 1,120). */
const gemini = (w: number, h: number) => {
  if (w <= 384 && h <= 384) return 258;
  const scale = Math.min(1, 3072 / Math.max(w, h));
  return Math.max(1120, 258 * Math.ceil((w * scale) / 768) * Math.ceil((h * scale) / 768));
};
/** Other vision models: 28 x 28-pixel patches (Qwen-VL) up to 16,384, and never less than 2,000 (tiled models such as Llama's). */
const generic = (w: number, h: number) => Math.min(16_384, Math.max(2_000, Math.ceil((w * h) / 784) + 2));

interface Family {
  pattern: RegExp;
  image: (w: number, h: number, detail: unknown) => number;
  /** The image size assumed when it is not known: the size for which the formula is largest. */
  largest: [number, number];
  /** Tokens per PDF page (its text and its picture) and the most pages read. */
  page: number;
  pages: number;
  /** The largest context window of the family: nothing of unknown length can cost more. */
  context: number;
}

const OPENAI_LARGEST: [number, number] = [2048, 768];
const FAMILIES: Family[] = [
  { pattern: /^(gpt-4\.1-mini|gpt-5-mini|gpt-5\.\d+-mini)/, image: patched(1.62), largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 },
  { pattern: /^(gpt-4\.1-nano|gpt-5-nano|gpt-5\.\d+-nano)/, image: patched(2.46), largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 },
  { pattern: /^o4-mini/, image: patched(1.72), largest: [2048, 2048], page: 6_000, pages: 100, context: 200_000 },
  { pattern: /^(gpt-4o-mini|chatgpt-4o-mini)/, image: tiled(2833, 5667), largest: OPENAI_LARGEST, page: 52_000, pages: 100, context: 128_000 },
  { pattern: /^gpt-5/, image: tiled(70, 140), largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 400_000 },
  { pattern: /^(o1|o3)/, image: tiled(75, 150), largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 200_000 },
  { pattern: /^(gpt-4|chatgpt-4o)/, image: tiled(85, 170), largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 1_047_576 },
  { pattern: /^claude/, image: claude, largest: [1568, 1568], page: 6_000, pages: 100, context: 1_000_000 },
  { pattern: /^gemini/, image: gemini, largest: [3072, 3072], page: 1_200, pages: 1_000, context: 2_097_152 },
];
const OTHER: Family = { pattern: /.*/, image: generic, largest: [4096, 4096], page: 6_000, pages: 1_000, context: 1_048_576 };

/** Decoded bytes per token at most: audio (Gemini's 32 tokens a second at 4 kbps) and video (~300 a second at 20 kbps). */
const AUDIO_BYTES_PER_TOKEN = 16;
const VIDEO_BYTES_PER_TOKEN = 8;

const familyOf = (model: string) => {
  const name = canonicalModelName(model);
  return FAMILIES.find((f) => f.pattern.test(name)) ?? OTHER;
};

/** The largest context window of the model's family (1M tokens when the family is unknown). */
export const contextWindowOf = (model: string): number => familyOf(model).context;

export function mediaBoundsFor(model: string): MediaBounds {
  const family = familyOf(model);
  const within = (tokens: number) => Math.min(tokens, family.context);
  return {
    image(size, detail) {
      const [w, h] = size && size.width > 0 && size.height > 0 ? [size.width, size.height] : family.largest;
      return within(family.image(w, h, size && size.width > 0 ? detail : undefined));
    },
    document: (pages) => within(family.page * Math.min(pages ?? family.pages, family.pages)),
    audio: (bytes) => (bytes === undefined ? family.context : within(Math.ceil(bytes / AUDIO_BYTES_PER_TOKEN) + 100)),
    video: (bytes) => (bytes === undefined ? family.context : within(Math.ceil(bytes / VIDEO_BYTES_PER_TOKEN) + 300)),
  };
}
