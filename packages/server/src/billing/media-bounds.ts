import { modelFacts, type ImageFormula, type MediaFacts } from './model-catalogue.js';

/**
 * The most prompt tokens a provider bills for media it is shown, per model family (the model catalogue's `media`), from
 * the providers' documented formulas. A reservation must bound what the upstream can bill, so each bound errs high: an
 * image of known size is priced by its formula; one of unknown size (a URL, a file id) at the largest the provider
 * takes; audio and video by their bytes at a rate above any provider's; a document by its pages, or the most pages the
 * provider reads; anything of unknown length at most the model's context window.
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

type Formula = (w: number, h: number, detail: unknown) => number;
const formulaOf = (image: ImageFormula): Formula => {
  if (image === 'claude') return claude;
  if (image === 'gemini') return gemini;
  if (image === 'generic') return generic;
  return 'tiles' in image ? tiled(...image.tiles) : patched(image.patches);
};

/** A model of no family the catalogue gives media facts (billing/model-catalogue.ts). */
const OTHER: MediaFacts = { image: 'generic', largest: [4096, 4096], page: 6_000, pages: 1_000, context: 1_048_576 };

/** Decoded bytes per token at most: audio (Gemini's 32 tokens a second at 4 kbps) and video (~300 a second at 20 kbps). */
const AUDIO_BYTES_PER_TOKEN = 16;
const VIDEO_BYTES_PER_TOKEN = 8;

const mediaOf = (model: string): MediaFacts => modelFacts(model).media ?? OTHER;

/** The largest context window of the model's family (1M tokens when the family is unknown). */
export const contextWindowOf = (model: string): number => mediaOf(model).context;

export function mediaBoundsFor(model: string): MediaBounds {
  const family = mediaOf(model);
  const within = (tokens: number) => Math.min(tokens, family.context);
  return {
    image(size, detail) {
      const [w, h] = size && size.width > 0 && size.height > 0 ? [size.width, size.height] : family.largest;
      return within(formulaOf(family.image)(w, h, size && size.width > 0 ? detail : undefined));
    },
    document: (pages) => within(family.page * Math.min(pages ?? family.pages, family.pages)),
    audio: (bytes) => (bytes === undefined ? family.context : within(Math.ceil(bytes / AUDIO_BYTES_PER_TOKEN) + 100)),
    video: (bytes) => (bytes === undefined ? family.context : within(Math.ceil(bytes / VIDEO_BYTES_PER_TOKEN) + 300)),
  };
}
