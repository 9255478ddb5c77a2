// The three paths a run measures side by side, each as direct / gateway / Portkey targets of the same shape:
// { url, headers, body, streamBody, holdBody? }. Roles: direct (the mock), bare (bare-passthrough.mjs in front of
// it), gateway, portkey.
import { CLAUDE_HOLD_MODEL, CLAUDE_MODEL, OPENAI_HOLD_MODEL } from './database.mjs';

const json = { 'content-type': 'application/json' };
const question = [{ role: 'user', content: 'Hello there, how are you?' }];
const chat = (model, extra = {}) => JSON.stringify({ model, messages: question, ...extra });
const messages = (model, extra = {}) => JSON.stringify({ model, max_tokens: 256, messages: question, ...extra });
const ANTHROPIC_VERSION = '2023-06-01';

export const PATHS = {
  openai: { title: 'OpenAI pass-through', flow: 'OpenAI chat client → gateway → OpenAI-format mock (channel type 1); Portkey with `x-portkey-provider: openai` and the mock as custom host' },
  translated: { title: 'Translated', flow: `OpenAI chat client (POST /v1/chat/completions) → gateway → Anthropic-format mock (POST /v1/messages, channel type 14, model ${CLAUDE_MODEL}); Portkey with \`x-portkey-provider: anthropic\` and \`x-portkey-custom-host\` at the mock, translating OpenAI chat itself` },
  anthropic: { title: 'Anthropic pass-through', flow: 'Anthropic client (POST /v1/messages, x-api-key, anthropic-version) → gateway → Anthropic-format mock (channel type 14); Portkey\'s own /v1/messages with the same provider and custom host' },
};

/**
 * The targets of every path. `direct` is the mock the gateway calls, called with what the gateway sends it: the
 * translated and the Anthropic paths share one (the Anthropic mock, measured once per phase).
 */
export function targetsOf({ openaiMock, anthropicMock, gateway, key, portkey, bareOpenai, bareAnthropic }) {
  const openaiBodies = { body: chat('gpt-4o-mini'), streamBody: chat('gpt-4o-mini', { stream: true }) };
  const claudeChat = { body: chat(CLAUDE_MODEL), streamBody: chat(CLAUDE_MODEL, { stream: true }) };
  const claudeMessages = { body: messages(CLAUDE_MODEL), streamBody: messages(CLAUDE_MODEL, { stream: true }) };
  const anthropicDirect = { id: 'direct-anthropic', url: `${anthropicMock}/v1/messages`, headers: { ...json, 'x-api-key': 'sk-ant-bench', 'anthropic-version': ANTHROPIC_VERSION }, ...claudeMessages };
  // The bare pass-through (bare-passthrough.mjs) in front of the same mock, with the body the gateway sends it:
  // the transport's own limit. The translated and the Anthropic paths share one, as they share the direct target.
  const bareAnthropicTarget = bareAnthropic && { ...anthropicDirect, id: 'bare-anthropic', url: `${bareAnthropic}/v1/messages` };
  const portkeyAnthropic = { 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${anthropicMock}/v1` };
  return {
    openai: {
      direct: { id: 'direct-openai', url: `${openaiMock}/v1/chat/completions`, headers: json, ...openaiBodies },
      bare: bareOpenai && { id: 'bare-openai', url: `${bareOpenai}/v1/chat/completions`, headers: json, ...openaiBodies },
      gateway: {
        id: 'gateway-openai', url: `${gateway}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${key}` }, ...openaiBodies,
        holdBody: chat(OPENAI_HOLD_MODEL, { stream: true }),
      },
      portkey: portkey && { id: 'portkey-openai', url: `${portkey}/v1/chat/completions`, headers: { ...json, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${openaiMock}/v1`, authorization: 'Bearer sk-test' }, ...openaiBodies },
    },
    translated: {
      direct: anthropicDirect,
      bare: bareAnthropicTarget,
      gateway: {
        id: 'gateway-translated', url: `${gateway}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${key}` }, ...claudeChat,
        holdBody: chat(CLAUDE_HOLD_MODEL, { stream: true }),
      },
      portkey: portkey && { id: 'portkey-translated', url: `${portkey}/v1/chat/completions`, headers: { ...json, ...portkeyAnthropic, authorization: 'Bearer sk-ant-bench' }, ...claudeChat },
    },
    anthropic: {
      direct: anthropicDirect,
      bare: bareAnthropicTarget,
      gateway: {
        id: 'gateway-anthropic', url: `${gateway}/v1/messages`, headers: { ...json, 'x-api-key': key, 'anthropic-version': ANTHROPIC_VERSION }, ...claudeMessages,
        holdBody: messages(CLAUDE_HOLD_MODEL, { stream: true }),
      },
      portkey: portkey && { id: 'portkey-anthropic', url: `${portkey}/v1/messages`, headers: { ...json, ...portkeyAnthropic, 'x-api-key': 'sk-ant-bench', 'anthropic-version': ANTHROPIC_VERSION }, ...claudeMessages },
    },
  };
}
