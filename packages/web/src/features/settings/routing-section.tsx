import { GROUP_MODEL_FALLBACKS_INVALID, MODEL_FALLBACKS_INVALID, parseGroupModelFallbacks, parseModelFallbacks } from '@model-relay/contract';
import { Typography } from 'antd';
import { useMemo } from 'react';
import { OptionSection } from './option-section';
import { ratioForEditing } from './ratio-json';
import type { OptionMap } from './use-options';

/**
 * 会话粘性与模型回退 (运营设置): how long an agent session stays on its channel (so the provider's prompt cache keeps
 * hitting), the header that names a session, and the models tried when no channel can serve the one asked for,
 * globally and per group (JSON, checked with the contract's parsers before it is sent).
 */
export function RoutingSection({ options, saveMany }: { options: OptionMap; saveMany: (entries: Array<[string, string]>) => Promise<boolean> }) {
  const shown = useMemo(
    () => ({ ...options, ModelFallbacks: ratioForEditing(options.ModelFallbacks), GroupModelFallbacks: ratioForEditing(options.GroupModelFallbacks) }),
    [options],
  );
  return (
    <OptionSection
      title="会话粘性与模型回退"
      options={shown}
      saveMany={saveMany}
      fields={[
        { key: 'SessionAffinityMinutes', label: '会话粘性时长（分钟，0 为关闭）', kind: 'integer', span: 8 },
        { key: 'SessionAffinityHeader', label: '会话请求头（可选）', kind: 'text', placeholder: 'x-session-id', span: 8 },
        {
          key: 'ModelFallbacks',
          label: '模型回退',
          kind: 'textarea',
          placeholder: '{"gpt-4o": ["gpt-4o-mini", "claude-sonnet-4-5"]}',
          check: (value) => (parseModelFallbacks(value) ? undefined : MODEL_FALLBACKS_INVALID),
          normalise: (value) => (value.trim() === '' ? '{}' : value),
        },
        {
          key: 'GroupModelFallbacks',
          label: '分组模型回退',
          kind: 'textarea',
          placeholder: '{"vip": {"gpt-4o": ["claude-opus-4-1"]}}',
          check: (value) => (parseGroupModelFallbacks(value) ? undefined : GROUP_MODEL_FALLBACKS_INVALID),
          normalise: (value) => (value.trim() === '' ? '{}' : value),
        },
      ]}
      extra={
        <Typography.Paragraph type="secondary" style={{ marginTop: -8 }}>
          会话粘性：同一会话（Claude Code 的 metadata.user_id、Codex 的 prompt_cache_key 或 session_id 请求头，或上面指定的请求头）的请求在此时长内发往上次应答的渠道，以便上游的提示缓存持续命中；该渠道失败或被禁用时立即改用其他渠道并粘在新渠道上。
          模型回退：某模型没有任何渠道能够应答时，依次尝试列出的模型，按实际应答的模型计费；分组里为该模型单独设置的列表优先；客户端发送请求头 X-Relay-Exact-Model: true 时从不回退。
        </Typography.Paragraph>
      }
    />
  );
}
