import { describe, expect, it } from 'vitest';
import { mediaBoundsFor } from '../../billing/media-bounds.js';
import { anthropicDialect } from './anthropic/index.js';
import { geminiDialect } from './gemini/index.js';
import { collectText, promptBoundOf } from './media.js';
import { inspectOpenAi, openAiChatDialect } from './openai-chat/index.js';
import { openAiResponsesDialect } from './openai-responses/index.js';

/** The first bytes of a PNG of this size (its signature and IHDR chunk), base64. */
export function pngOf(width: number, height: number): string {
  const bytes = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes, 0);
  bytes.writeUInt32BE(13, 8);
  bytes.write('IHDR', 12, 'latin1');
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  return bytes.toString('base64');
}

const pdfOf = (pages: number) =>
  Buffer.from(
    `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${pages} >> endobj\n` +
      Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj\n`).join('') +
      '%%EOF',
  ).toString('base64');

const chatFacts = (model: string, content: unknown, extra: Record<string, unknown> = {}) =>
  openAiChatDialect.inspect({ model, messages: [{ role: 'user', content }], ...extra }, mediaBoundsFor);

// covers issue 19 item 1: the reservation bounds the prompt as the upstream will read it
describe('the prompt bound counts text as text and media by its documented size', () => {
  it('a 300 KB text prompt that starts with "data:" is text: its bytes, not one image', () => {
    const text = `data:${'lorem ipsum '.repeat(25_000)}`;
    const facts = chatFacts('gpt-4o-mini', text);
    expect(facts.promptBound).toBeGreaterThanOrEqual(Buffer.byteLength(text));
    // In an image part too: a data URL whose bytes are not an image counts as its text.
    const disguised = chatFacts('gpt-4o-mini', [{ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from('x'.repeat(200_000)).toString('base64')}` } }]);
    expect(disguised.promptBound).toBeGreaterThan(200_000);
  });

  it('an inline image is bounded by its size through the model family formula', () => {
    const image = (w: number, h: number, detail?: string) => [{ type: 'image_url', image_url: { url: `data:image/png;base64,${pngOf(w, h)}`, ...(detail ? { detail } : {}) } }];
    const base = chatFacts('gpt-4o', '').promptBound;
    // gpt-4o: 85 + 170 per 512-pixel tile, after fitting into 2048 and the short side into 768.
    expect(chatFacts('gpt-4o', image(512, 512)).promptBound - base).toBeGreaterThanOrEqual(255);
    expect(chatFacts('gpt-4o', image(512, 512)).promptBound - base).toBeLessThan(400);
    expect(chatFacts('gpt-4o', image(4096, 1536)).promptBound - base).toBeGreaterThanOrEqual(85 + 170 * 6);
    expect(chatFacts('gpt-4o', image(4096, 4096, 'low')).promptBound - base).toBeLessThan(200);
    // gpt-4o-mini counts the same image at a multiple.
    expect(chatFacts('gpt-4o-mini', image(512, 512)).promptBound - base).toBeGreaterThanOrEqual(2833 + 5667);
    // A URL's size is unknown: the family's largest.
    expect(chatFacts('gpt-4o', [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }]).promptBound - base).toBeGreaterThanOrEqual(85 + 170 * 8);
  });

  it('Anthropic: an image by URL is an image, a PDF by URL is a document of the most pages Claude reads', () => {
    const facts = (block: unknown) => anthropicDialect.inspect({ model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: [block] }] }, mediaBoundsFor);
    const image = facts({ type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } }).promptBound;
    const document = facts({ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }).promptBound;
    expect(image).toBeGreaterThanOrEqual(1_600);
    expect(image).toBeLessThan(3_000);
    // 100 pages, each page's text and picture.
    expect(document).toBeGreaterThanOrEqual(100 * 4_600);
    // An inline PDF by its pages; a plain-text document by its text.
    expect(facts({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdfOf(3) } }).promptBound).toBeGreaterThanOrEqual(3 * 4_600);
    expect(facts({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdfOf(3) } }).promptBound).toBeLessThan(10 * 4_600);
    expect(facts({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'y'.repeat(5_000) } }).promptBound).toBeGreaterThanOrEqual(5_000);
  });

  it('Gemini: inline audio and video by their bytes, a file by URI at most the context window', () => {
    const facts = (part: unknown) => geminiDialect.inspect({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [part] }] }, mediaBoundsFor).promptBound;
    const audio = Buffer.alloc(64_000).toString('base64');
    expect(facts({ inlineData: { mimeType: 'audio/mp3', data: audio } })).toBeGreaterThanOrEqual(64_000 / 16);
    expect(facts({ inlineData: { mimeType: 'video/mp4', data: audio } })).toBeGreaterThanOrEqual(64_000 / 8);
    expect(facts({ fileData: { mimeType: 'video/mp4', fileUri: 'https://www.youtube.com/watch?v=x' } })).toBeGreaterThanOrEqual(1_000_000);
  });

  it('Responses: input_image and input_file parts', () => {
    const facts = (part: unknown) => openAiResponsesDialect.inspect({ model: 'gpt-5', input: [{ role: 'user', content: [part] }] }, mediaBoundsFor).promptBound;
    expect(facts({ type: 'input_image', image_url: `data:image/png;base64,${pngOf(1024, 1024)}` })).toBeGreaterThanOrEqual(70 + 140 * 4);
    expect(facts({ type: 'input_file', file_data: `data:application/pdf;base64,${pdfOf(2)}` })).toBeGreaterThanOrEqual(2 * 4_600);
    // Unknown pages: the most OpenAI reads, within GPT-5's context window.
    expect(facts({ type: 'input_file', file_id: 'file-abc' })).toBeGreaterThanOrEqual(400_000);
  });

  it('tools add the provider-side tool prompt; provider-run tools are flagged', () => {
    expect(chatFacts('gpt-4o', 'x', { tools: [{ type: 'function', function: { name: 'f' } }] }).promptBound - chatFacts('gpt-4o', 'x').promptBound).toBeGreaterThan(1_000);
    expect(anthropicDialect.inspect({ model: 'claude-sonnet-4-5', max_tokens: 1, messages: [], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, mediaBoundsFor).hostedTools).toBe(true);
    expect(openAiResponsesDialect.inspect({ model: 'gpt-5', input: 'x', tools: [{ type: 'namespace', name: 'n', tools: [] }, { type: 'custom', name: 'apply_patch' }] }, mediaBoundsFor).hostedTools).toBe(false);
    expect(openAiResponsesDialect.inspect({ model: 'gpt-5', input: 'x', tools: [{ type: 'web_search' }] }, mediaBoundsFor).hostedTools).toBe(true);
  });
});

// covers issue 19 item 1: the largest of every output limit the body carries
describe('the output allowance is the largest limit the body carries', () => {
  it('max_completion_tokens 1 beside max_tokens 4000 reserves 4000', () => {
    expect(inspectOpenAi({ model: 'gpt-4o', max_completion_tokens: 1, max_tokens: 4000 }, [], mediaBoundsFor).maxTokens).toBe(4000);
  });
  it('a Gemini thinking budget above maxOutputTokens, an Anthropic budget below max_tokens', () => {
    expect(geminiDialect.inspect({ contents: [], generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingBudget: 8000 } } }, mediaBoundsFor).maxTokens).toBe(8000);
    expect(anthropicDialect.inspect({ model: 'claude-sonnet-4-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [] }, mediaBoundsFor).maxTokens).toBe(4000);
  });
  it('the cap reaches every field the body carries', () => {
    const body = openAiChatDialect.rewrite({ model: 'gpt-4o', max_tokens: 4000, max_completion_tokens: 3000, messages: [] }, { model: 'gpt-4o', maxOutputTokens: 50 });
    expect(body).toMatchObject({ max_tokens: 50, max_completion_tokens: 50 });
    const gemini = geminiDialect.rewrite({ contents: [], generationConfig: { maxOutputTokens: 100, thinkingConfig: { thinkingBudget: 8000 } } }, { model: 'g', maxOutputTokens: 64 });
    expect(gemini.generationConfig).toEqual({ maxOutputTokens: 64, thinkingConfig: { thinkingBudget: 64 } });
  });
});

describe('prompt walks', () => {
  it('a body nested 10,000 deep is measured and collected without overflowing the call stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const parts = [[{ role: 'user', content: 'hello', extra: deep }]];
    expect(() => promptBoundOf(parts, mediaBoundsFor('x'), () => undefined)).not.toThrow();
    expect(collectText(parts, () => undefined)).toBe('user\nhello\nbottom');
  });
});
