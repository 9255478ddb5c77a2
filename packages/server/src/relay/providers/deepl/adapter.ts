import { ChannelType } from '@model-relay/contract';
import { asArray, asNumber, asString, isRecord, newId, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import { RelayError } from '../../relay-error.js';
import { lastUserText } from '../message-text.js';
import { chatCompletion, usageOf } from '../openai-chunks.js';
import type { BuildInput, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';

/** DeepL API Free keys end in `:fx` and are served by their own host (https://developers.deepl.com/docs/getting-started/auth). */
const FREE_BASE = 'https://api-free.deepl.com';
const PRO_BASE = 'https://api.deepl.com';

/**
 * `deepl-<code>` names the target language. DeepL's bare `EN` and `PT` targets are kept only for backward
 * compatibility (https://developers.deepl.com/docs/api-reference/translate): English means American English here,
 * Portuguese Brazilian; any other code is DeepL's own (`deepl-zh-hant` → ZH-HANT, `deepl-en-gb` → EN-GB).
 */
const TARGET_ALIASES: Record<string, string> = { EN: 'EN-US', PT: 'PT-BR' };

export function targetLanguageOf(model: string): string {
  const code = /^deepl-(.+)$/i.exec(model.trim())?.[1]?.toUpperCase();
  if (!code) throw new RelayError(400, `DeepL 渠道的模型名应为 deepl-<目标语言>（例如 deepl-zh、deepl-en），收到 ${model}`);
  return TARGET_ALIASES[code] ?? code;
}

/**
 * DeepL (type 38), https://developers.deepl.com/docs/api-reference/translate: the last user message is translated
 * into the language the model names (`POST /v2/translate`, `Authorization: DeepL-Auth-Key <key>`), and the
 * translation is answered as a chat completion (to a stream client, as one streamed answer; DeepL does not stream).
 *
 * Billing rule: DeepL bills the source text's characters (Unicode code points) and says how many with
 * `show_billed_characters`. They are reported as prompt_tokens, priced per character (billing/model-catalogue.ts:
 * deepl-* at ModelRatio 12.5 = US$25 per 1M characters, DeepL API Pro's price); the translation's characters are
 * reported as completion_tokens at CompletionRatio 0, so they cost nothing yet the usage check sees an answer
 * accounted for.
 */
export const deeplAdapter: ProviderAdapter = {
  id: 'deepl',
  channelTypes: [ChannelType.DeepL],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body) || input.endpoint !== 'chat') throw new RelayError(501, 'DeepL 渠道仅支持对话接口（翻译最后一条用户消息）', 'upstream_error');
    const text = lastUserText(input.body);
    if (!text.trim()) throw new RelayError(400, 'DeepL 渠道需要一条有文字的用户消息作为待翻译文本');
    const key = input.channel.key.trim();
    const base = input.channel.baseUrl || (key.endsWith(':fx') ? FREE_BASE : PRO_BASE);
    return {
      url: `${base}/v2/translate`,
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: [text], target_lang: targetLanguageOf(input.model), show_billed_characters: true }),
    };
  },

  // DeepL is sent the last user message alone: its billed characters are weighed (and, were they missing, counted)
  // against that text, not against the client's whole conversation.
  codec: (_channel, model) => ({ answer: (json) => translationAnswer(json, model), prompt: (sent) => asArray(sent.text).map((text) => asString(text) ?? '').join('\n') }),
  classifyError: classifyDeepLError,
};

/** `{translations: [{detected_source_language, text, billed_characters}]}` as a chat completion. */
function translationAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const translations = asArray(json.translations).filter(isRecord);
  if (translations.length === 0) throw new VendorAnswerError(asString(json.message) ?? 'DeepL 返回了无法识别的响应', 502);
  const text = translations.map((t) => asString(t.text) ?? '').join('\n');
  const billed = translations.reduce((sum, t) => sum + (asNumber(t.billed_characters) ?? 0), 0);
  const reported = translations.every((t) => asNumber(t.billed_characters) !== undefined);
  return chatCompletion({ id: newId('chatcmpl-'), model, created: nowSeconds() }, text, reported ? usageOf(billed, [...text].length) : undefined);
}

/**
 * DeepL's statuses (https://developers.deepl.com/docs/best-practices/error-handling): 403 the key is wrong (or
 * used on the other plan's host), 456 the character quota is used up, both this channel's end; 429 too many
 * requests and 500/503/529 are passing; 400 and 413 are the request's fault. The body is `{"message"}` when any.
 */
export function classifyDeepLError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const said = asString(parsed?.message) ?? (isRecord(parsed?.error) ? asString(parsed.error.message) : undefined);
  const fallback = status === 456 ? 'DeepL 字符额度已用完' : status === 403 ? 'DeepL 密钥无效或与 API 域名不符' : `upstream returned HTTP ${status}`;
  const message = said || fallback;
  const dead = status === 401 || status === 403 || status === 456;
  const retry = dead || status === 429 || status === 408 || status >= 500;
  return { retry, disableChannel: dead, message };
}
