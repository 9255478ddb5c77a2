/**
 * What one generated image of the images endpoint costs against the model's base price (its ratio x 1,000 tokens),
 * by the size and quality the request asks for. OpenAI's price list: dall-e-3 standard 1024 x 1024 US$0.04 (the base),
 * standard 1024 x 1792 or 1792 x 1024 US$0.08, HD 1024 x 1024 US$0.08, HD larger US$0.12; dall-e-2 256 x 256
 * US$0.016 (the base), 512 x 512 US$0.018, 1024 x 1024 (its default) US$0.02. GPT Image models report their tokens
 * and are billed by them (ImageRatio, ImageCompletionRatio): 1 here.
 */
export function imageSizeRatio(model: string, size: unknown, quality: unknown): number {
  if (/^dall-e-3/.test(model)) {
    const large = size === '1024x1792' || size === '1792x1024';
    const hd = quality === 'hd';
    return hd && large ? 3 : hd || large ? 2 : 1;
  }
  if (/^dall-e-2/.test(model)) return size === '256x256' ? 1 : size === '512x512' ? 1.125 : 1.25;
  return 1;
}
