import { ChannelType } from '@model-relay/contract';
import { asArray, asNumber, asString, isRecord, newId, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import { RelayError } from '../../relay-error.js';
import { textOfContent } from '../message-text.js';
import { chunkFrame, usageFrame, usageOf, type ChunkContext } from '../openai-chunks.js';
import type { BuildInput, ChannelTarget, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';
import { flatMap } from '../../../lib/arrays.js';
import { collectText, NO_MEDIA } from '../../dialects/media.js';

/** coze.com; a channel of Coze China (扣子) names https://api.coze.cn as its base URL. */
const DEFAULT_BASE = 'https://api.coze.com';
/** Coze wants a user id per conversation partner; a channel without one (config.user_id) speaks as this one. */
export const DEFAULT_USER_ID = 'model-relay';

/**
 * Coze (type 34): a published bot answers as a model, https://www.coze.com/open/docs/developer_guides/chat_v3
 * (扣子: https://www.coze.cn/open/docs/developer_guides/chat_v3). The model name is the bot id, with one-api's
 * `bot-` prefix (`bot-7342...`) or mapped to it; the key is a personal access token (Bearer).
 *
 * Always a stream: Coze's non-stream v3 chat only starts the chat and must be polled, so the gateway asks for the
 * stream and the core collects it for a client that wants one answer. The conversation goes in
 * `additional_messages` (user and assistant turns; a system prompt is left out: the bot's persona is its own),
 * with nothing saved to Coze's history. The bot's own plugins, knowledge recalls and follow-up suggestions arrive
 * as other message types and are not part of the answer; client tools are not offered to a bot.
 */
export const cozeAdapter: ProviderAdapter = {
  id: 'coze',
  channelTypes: [ChannelType.Coze],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body) || input.endpoint !== 'chat') throw new RelayError(501, 'Coze 渠道仅支持对话接口', 'upstream_error');
    const botId = input.model.replace(/^bot-/, '').trim();
    if (!botId) throw new RelayError(400, 'Coze 渠道的模型名应为智能体 ID（bot-<Bot ID>）');
    const body = {
      bot_id: botId,
      user_id: userIdOf(input.channel),
      stream: true,
      auto_save_history: false,
      additional_messages: cozeMessages(input.body.messages),
    };
    return {
      url: `${input.channel.baseUrl || DEFAULT_BASE}/v3/chat`,
      method: 'POST',
      headers: { authorization: `Bearer ${input.channel.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
    };
  },

  codec: (_channel, model) => ({ answer: cozeJsonAnswer, stream: () => cozeStreamReader(model), prompt: cozePrompt }),
  classifyError: classifyCozeError,
};

function userIdOf(channel: ChannelTarget): string {
  const configured = channel.config.user_id;
  return typeof configured === 'string' && configured.trim() ? configured.trim() : DEFAULT_USER_ID;
}

/** Images go by URL (`file_url`): not text. */
const FILE_URLS = new Set(['file_url']);

/** The prompt Coze's chat was sent: its additional messages, an `object_string`'s text objects read out of it. */
function cozePrompt(sent: Record<string, unknown>): string {
  return asArray(sent.additional_messages)
    .map((message) => {
      if (!isRecord(message)) return '';
      if (message.content_type !== 'object_string' || typeof message.content !== 'string') return collectText([message.role, message.content], NO_MEDIA);
      let objects: unknown;
      try {
        objects = JSON.parse(message.content);
      } catch {
        objects = message.content;
      }
      return collectText([message.role, objects], NO_MEDIA, FILE_URLS);
    })
    .join('\n');
}

/** OpenAI messages as Coze's: text, or `object_string` when images (by URL: Coze fetches them) come with it. */
function cozeMessages(messages: unknown): Array<{ role: string; content: string; content_type: string }> {
  const out: Array<{ role: string; content: string; content_type: string }> = [];
  for (const message of asArray(messages)) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) continue;
    const images = flatMap(asArray(message.content), (part) => (isRecord(part) && part.type === 'image_url' && isRecord(part.image_url) ? [asString(part.image_url.url) ?? ''] : []));
    const text = textOfContent(message.content);
    if (images.length > 0 && message.role === 'user') {
      if (images.some((url) => !/^https?:\/\//i.test(url))) throw new RelayError(400, 'Coze 渠道的图片须为 http(s) 链接，不支持 base64 图片');
      const objects = [...(text ? [{ type: 'text', text }] : []), ...images.map((url) => ({ type: 'image', file_url: url }))];
      out.push({ role: 'user', content: JSON.stringify(objects), content_type: 'object_string' });
    } else if (text) out.push({ role: message.role, content: text, content_type: 'text' });
  }
  if (out.at(-1)?.role !== 'user') throw new RelayError(400, 'Coze 渠道的对话须以用户消息结尾');
  return out;
}

/**
 * Coze's error codes (https://www.coze.com/open/docs/developer_guides/coze_error_codes): 4100 the token is invalid,
 * 4101 it lacks the permission (both: this channel's key is dead), 4013 too many requests; 5000 and up are Coze's own
 * faults. The code is carried over as the HTTP status it means.
 */
function statusOfCode(code: number): number {
  if (code === 4100 || code === 4101) return 401;
  if (code === 4013) return 429;
  if (code >= 5000) return 500;
  return 400;
}

/** A JSON answer to a stream request is an error `{code, msg}` (sent with status 200), never an answer. */
function cozeJsonAnswer(json: Record<string, unknown>): Record<string, unknown> {
  const code = asNumber(json.code) ?? 0;
  const message = asString(json.msg) || 'Coze 返回了非流式响应';
  throw new VendorAnswerError(`Coze 错误 ${code}：${message}`, code ? statusOfCode(code) : 502);
}

/** Coze's chat events (https://www.coze.com/open/docs/developer_guides/chat_v3#streaming-response) as OpenAI chunks. */
function cozeStreamReader(model: string): (frame: Frame) => Frame[] {
  const context: ChunkContext = { id: newId('chatcmpl-'), model, created: nowSeconds() };
  let started = false;
  /** Answer messages whose text came in deltas (their `completed` event repeats it). */
  const streamed = new Set<string>();
  const start = (): Frame[] => {
    if (started) return [];
    started = true;
    return [chunkFrame(context, { role: 'assistant', content: '' })];
  };
  return (frame) => {
    const event = frame.event;
    if (event === 'done') return [{ data: '[DONE]' }];
    const data = parseEvent(frame.data);
    if (!data) return [];
    switch (event) {
      case 'conversation.chat.created':
        return start();
      case 'conversation.message.delta':
      case 'conversation.message.completed': {
        if (data.type !== 'answer' || data.content_type !== 'text') return [];
        const id = asString(data.id) ?? '';
        const text = asString(data.content) ?? '';
        if (event === 'conversation.message.delta') streamed.add(id);
        else if (streamed.has(id)) return [];
        return text ? [...start(), chunkFrame(context, { content: text })] : [];
      }
      case 'conversation.chat.completed': {
        const usage = isRecord(data.usage) ? data.usage : {};
        const input = asNumber(usage.input_count) ?? 0;
        const output = asNumber(usage.output_count) ?? 0;
        return [...start(), chunkFrame(context, {}, 'stop'), usageFrame(context, usageOf(input, output))];
      }
      case 'conversation.chat.failed': {
        const error = isRecord(data.last_error) ? data.last_error : {};
        const code = asNumber(error.code) ?? 0;
        throw new VendorAnswerError(`Coze 对话失败 ${code}：${asString(error.msg) || '未知错误'}`, code ? statusOfCode(code) : 502);
      }
      case 'conversation.chat.requires_action':
        throw new VendorAnswerError('Coze 智能体需要调用端插件的执行结果（requires_action），网关无法提供', 400);
      case 'error': {
        const code = asNumber(data.code) ?? 0;
        throw new VendorAnswerError(`Coze 错误 ${code}：${asString(data.msg) || '未知错误'}`, code ? statusOfCode(code) : 502);
      }
      default:
        return [];
    }
  };
}

/** Coze's HTTP errors carry the same `{code, msg}`: the code tells a dead token from a passing fault. */
export function classifyCozeError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const code = asNumber(parsed?.code) ?? 0;
  const inner = isRecord(parsed?.error) ? asString(parsed.error.message) : undefined;
  const message = (code ? `Coze 错误 ${code}：${asString(parsed?.msg) ?? ''}` : inner) || body.trim().slice(0, 300) || `upstream returned HTTP ${status}`;
  const meaning = code ? statusOfCode(code) : status;
  const deadKey = status === 401 || status === 403 || meaning === 401;
  const retry = deadKey || status === 429 || meaning === 429 || status >= 500 || meaning >= 500 || status === 408;
  return { retry, disableChannel: deadKey, message };
}
