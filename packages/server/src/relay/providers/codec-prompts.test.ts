import { describe, expect, it } from 'vitest';
import type { ChannelTarget, VendorCodec } from './types.js';
import { ernieChatBody } from './baidu/ernie-request.js';
import { ernieCodec } from './baidu/ernie-answer.js';
import { cohereChatBody } from './cohere/chat-body.js';
import { cohereCodec } from './cohere/codec.js';
import { cozeAdapter } from './coze/adapter.js';
import { hunyuanChatBody } from './hunyuan/hunyuan-body.js';
import { hunyuanCodec } from './hunyuan/hunyuan-codec.js';
import { chatBody as ollamaChatBody, ollamaAdapter } from './ollama/adapter.js';

/**
 * The prompt a codec vendor was sent, read back from its own request bytes (VendorCodec.prompt): what an answer whose
 * usage is missing or implausibly low is counted from, so that a stream need not keep the parsed client body. The
 * vendor bodies here are the ones the adapters build from one OpenAI chat body.
 */
const SYSTEM = 'You answer in one sentence.';
const QUESTION = 'Why is the sea blue at noon?';
const EARLIER = 'It reflects the sky.';
const IMAGE_DATA = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const text = (withImage: string | undefined) => (withImage ? [{ type: 'text', text: QUESTION }, { type: 'image_url', image_url: { url: withImage } }] : QUESTION);
const openAi = (image?: string) => ({
  model: 'm',
  messages: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Tell me about the sea.' },
    { role: 'assistant', content: EARLIER },
    { role: 'user', content: text(image) },
  ],
});

/** The codec's reading of the body as sent (through its JSON bytes, as the pipeline reads it). */
const readBack = (codec: VendorCodec | undefined, sent: Record<string, unknown>) => codec!.prompt!(JSON.parse(JSON.stringify(sent)) as Record<string, unknown>);

function expectPrompt(prompt: string, { system = true }: { system?: boolean } = {}) {
  if (system) expect(prompt).toContain(SYSTEM);
  expect(prompt).toContain(QUESTION);
  expect(prompt).toContain(EARLIER);
  expect(prompt).not.toContain('iVBORw0KGgo');
  expect(prompt).not.toContain('example.com');
}

describe('codec vendors: the prompt is read back from what the vendor was sent', () => {
  it('Ollama /api/chat: messages, without the base64 images', () => {
    const sent = ollamaChatBody(openAi(`data:image/png;base64,${IMAGE_DATA}`), 'llama3.2', true);
    expect(JSON.stringify(sent)).toContain(IMAGE_DATA);
    const channel: ChannelTarget = { type: 30, key: '', baseUrl: 'http://127.0.0.1:11434' } as ChannelTarget;
    expectPrompt(readBack(ollamaAdapter.codec!(channel, 'llama3.2', {}, 'chat'), sent));
  });

  it('ERNIE: the system field and the messages', () => {
    const sent = ernieChatBody(openAi(), 'ernie-4.0-8k', true);
    expect(sent.system).toBe(SYSTEM);
    expectPrompt(readBack(ernieCodec('ernie-4.0-8k'), sent));
  });

  it('Hunyuan: Messages, Contents without their ImageUrl parts', () => {
    const sent = hunyuanChatBody(openAi('https://example.com/sea.png'), 'hunyuan-vision', true);
    expect(JSON.stringify(sent)).toContain('example.com');
    expectPrompt(readBack(hunyuanCodec('hunyuan-vision'), sent));
  });

  it('Cohere v2 chat: messages, without their image_url parts', () => {
    const sent = cohereChatBody(openAi(`data:image/png;base64,${IMAGE_DATA}`), true);
    expect(JSON.stringify(sent)).toContain(IMAGE_DATA);
    expectPrompt(readBack(cohereCodec('command-a-vision'), sent));
  });

  it('Coze: additional messages, an object_string read for its text and not its file URLs', () => {
    const channel = { type: 49, key: 'pat_x', baseUrl: '', config: { user_id: 'u' }, other: '' } as unknown as ChannelTarget;
    const built = cozeAdapter.build({ channel, model: 'bot-7342', body: openAi('https://example.com/sea.png'), stream: true, endpoint: 'chat', path: '/v1/chat/completions' } as never);
    const sent = JSON.parse(String(built.body)) as Record<string, unknown>;
    expect(String(built.body)).toContain('object_string');
    // Coze leaves the system prompt out (the bot's persona is its own): it is not counted either.
    expectPrompt(readBack(cozeAdapter.codec!(channel, 'bot-7342', {}, 'chat'), sent), { system: false });
  });
});
