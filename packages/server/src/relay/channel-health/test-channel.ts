import { ChannelStatus, providerInfo, splitList } from '@model-relay/contract';
import type { Notifier } from '../../notify/notifier.js';
import type { OptionStore } from '../../options/option-store.js';
import type { RelayStore } from '../../storage/repositories/relay-store.js';
import type { ChannelRow } from '../../storage/schema.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';
import { CredentialError, type CredentialResolver } from '../credentials/credential-resolver.js';
import { callProvider, targetOf, UpstreamUnreachable } from '../pipeline/call-provider.js';
import { mapModel } from '../pipeline/map-model.js';
import { emptyRequest, textOf, type ChatResponse } from '../canonical.js';
import { dialectOf } from '../dialects/registry.js';
import { buildUpstream, type UpstreamSpec } from '../pipeline/build-upstream.js';
import { readAnswer } from '../pipeline/read-answer.js';
import { adapterFor } from '../providers/registry.js';
import { isChatModel, notChatModelMessage } from './test-model.js';

export interface ChannelTestResult {
  success: boolean;
  message: string;
  /** seconds */
  time: number;
  model: string;
}

export interface ChannelHealthDeps {
  store: RelayStore;
  options: OptionStore;
  pools: UpstreamPools;
  notifier: Notifier;
  credentials: CredentialResolver;
}

/**
 * The model a test uses: the one asked for, else the channel's first chat model, else (a channel without
 * models) a common chat model. A channel that lists only non-chat models gives its first one, which the
 * test then refuses.
 */
export function testModelOf(channel: ChannelRow, requested?: string): string {
  if (requested) return requested;
  const models = splitList(channel.models ?? '');
  return models.find(isChatModel) ?? models[0] ?? 'gpt-4o-mini';
}

/**
 * Sends one tiny chat request to the channel (no billing), stores response_time and test_time, and applies
 * the automatic rules: a failure that means a dead key, or an answer slower than ChannelDisableThreshold
 * seconds, disables it (AutomaticDisableChannelEnabled); a success re-enables a channel the program had
 * disabled (AutomaticEnableChannelEnabled). Each automatic change leaves a system log for the super admin.
 */
export async function testChannel(deps: ChannelHealthDeps, channel: ChannelRow, requestedModel?: string): Promise<ChannelTestResult> {
  const model = testModelOf(channel, requestedModel);
  // The test is one chat completion: a non-chat model would fail upstream and count against the channel.
  if (!isChatModel(model)) return { success: false, message: notChatModelMessage(model), time: 0, model };
  const provider = adapterFor(channel.type);
  if (!provider) return { success: false, message: providerInfo(channel.type).retired ?? `渠道类型 ${channel.type} 暂不支持测试`, time: 0, model };
  const target = targetOf(channel);
  const upstreamModel = mapModel(channel, model);
  const dialect = dialectOf(provider.dialects(target, upstreamModel)[0]);
  if (!dialect) return { success: false, message: `渠道类型 ${channel.type} 暂不支持测试`, time: 0, model };
  // The smallest real question, in the channel's own dialect, without billing.
  const question = { ...emptyRequest(upstreamModel), messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }], maxOutputTokens: 5 };
  const started = performance.now();
  let success = false;
  let message: string;
  let deadKey = false;
  try {
    // Built the way the relay builds a request for this channel (same URL, same output cap), in its own dialect, and
    // called the way the relay calls it: credentials resolved -> built -> signed -> sent (pipeline/call-provider.ts).
    const spec: UpstreamSpec = { endpoint: 'chat', client: dialect.name, upstream: dialect.name, target, model: upstreamModel, stream: false, path: '/v1/chat/completions', generates: true, allowance: 5, clientLimit: 5 };
    const response = await callProvider(deps, provider, target, () => buildUpstream(dialect.buildRequest(question), spec), AbortSignal.timeout(60_000));
    if (response.status >= 400) {
      const verdict = provider.classifyError(response.status, await response.body.text());
      message = verdict.message;
      deadKey = verdict.disableChannel;
    } else {
      const answer = await readAnswer(response, dialect, provider.codec?.(target, upstreamModel));
      success = answer.ok;
      if (answer.ok) message = replyText(answer.answer);
      else {
        const verdict = provider.classifyError(answer.status, answer.message);
        message = verdict.message;
        deadKey = verdict.disableChannel;
      }
    }
  } catch (thrown) {
    const error = thrown instanceof UpstreamUnreachable ? thrown.cause : thrown;
    message =
      error instanceof CredentialError ? `渠道凭证无效或无法获取访问令牌：${error.message}` : /timeout|abort/i.test(String((error as Error).name)) ? '请求超时' : '请求失败：无法连接上游服务';
  }
  const elapsedMs = Math.round(performance.now() - started);
  const time = elapsedMs / 1000;
  await deps.store.recordTest(channel.id, elapsedMs, Math.floor(Date.now() / 1000), success ? '' : message || '测试失败');

  const tooSlow = success && time > deps.options.number('ChannelDisableThreshold');
  if ((!success && deadKey) || tooSlow) {
    if (deps.options.bool('AutomaticDisableChannelEnabled') && channel.status === ChannelStatus.Enabled) {
      await deps.store.setChannelStatus(channel.id, ChannelStatus.AutoDisabled);
      await deps.notifier.notifyRoot('渠道已被禁用', `渠道「${channel.name}」（#${channel.id}）已被自动禁用，原因：${tooSlow ? `响应时间 ${time.toFixed(2)}s 超过阈值` : message}`);
    }
  } else if (success && channel.status === ChannelStatus.AutoDisabled && deps.options.bool('AutomaticEnableChannelEnabled')) {
    await deps.store.setChannelStatus(channel.id, ChannelStatus.Enabled);
    await deps.notifier.notifyRoot('渠道已被启用', `渠道「${channel.name}」（#${channel.id}）测试成功，已被自动启用`);
  }
  return { success, message, time, model };
}

function replyText(answer: ChatResponse): string {
  return textOf(answer.content);
}
