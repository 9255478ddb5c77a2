import type { RelayRequest } from './types.js';
import { ChannelStatus, type LogAttempt } from '@model-relay/contract';
import type { ChannelRow } from '../../storage/schema.js';
import type { ProviderAdapter } from '../providers/types.js';
import { openAiErrorType, RelayError, upstreamErrorDetail } from '../relay-error.js';
import type { RelayDeps } from './types.js';

/**
 * A channel that failed, for attempt-channels.ts: its upstream's error judged (retry? disable the channel?) and made
 * into the error the client may get, and the attempt recorded for the log row.
 */

/** A channel's failure: the error the client may get, and whether another channel may be tried. */
export type Failure = RelayError & { retry: boolean };

/** A failure another channel may take over, whatever the reason. */
export const retryable = (error: RelayError): Failure => Object.assign(error, { retry: true });

/** Records why a channel was left (status 0: it was never reached) and hands the failure on. */
export function left(attempts: LogAttempt[], channel: ChannelRow, status: number, failure: Failure): Failure {
  attempts.push({ channel_id: channel.id, channel_name: channel.name, status, reason: failure.message.slice(0, 300) });
  return failure;
}

/** What an upstream answered when it failed. `passThrough`: it speaks the client's dialect (a vendor whose answers a codec rewrites does not). */
interface UpstreamError {
  status: number;
  body: string;
  contentType: string;
  retryAfter?: string | string[];
  passThrough: boolean;
}

/**
 * An upstream error: classified by its provider, perhaps disabling the channel, and kept for the client. A client
 * of the provider's own dialect gets the provider's error as it was sent (status, type, code, param, message),
 * with the channel's key and address taken out; any other gets the nearest kind of its own dialect, by status.
 * A rejected channel credential (401) is the gateway's fault, not the client's: 502, never the upstream's 401,
 * which would tell the client its own key is wrong.
 */
export async function classifyUpstreamError(deps: RelayDeps, provider: ProviderAdapter, channel: ChannelRow, upstream: UpstreamError, request: RelayRequest): Promise<Failure> {
  const { status, body } = upstream;
  const verdict = provider.classifyError(status, body);
  request.log.warn({ channel: channel.id, status, message: verdict.message }, 'upstream failure');
  if (verdict.disableChannel && deps.options.bool('AutomaticDisableChannelEnabled')) await disableChannel(deps, channel, verdict.message);
  if (status === 401) return Object.assign(new RelayError(502, `上游拒绝了渠道的凭证：${verdict.message}`, 'upstream_error', 'upstream_error'), { retry: verdict.retry });
  const detail = upstreamErrorDetail(body);
  const retryAfter = typeof upstream.retryAfter === 'string' ? { 'retry-after': upstream.retryAfter } : undefined;
  const error = Object.assign(new RelayError(status, scrub(verdict.message, channel), openAiErrorType(status), detail.code, retryAfter), { retry: verdict.retry });
  error.param = detail.param;
  if (upstream.passThrough && body) error.upstream = { status, body: scrub(body, channel), contentType: upstream.contentType || 'application/json' };
  return error;
}

/** An upstream's text with the channel's key (each of its parts) and its address taken out. */
function scrub(text: string, channel: ChannelRow): string {
  let out = text;
  for (const secret of channel.key.split(/[|\n,]/).map((part) => part.trim())) if (secret.length >= 8) out = out.split(secret).join('***');
  if (channel.base_url) {
    try {
      const host = new URL(channel.base_url).host;
      if (host) out = out.split(host).join('***');
    } catch {
      // not a URL: nothing to hide
    }
  }
  return out;
}

/** Auto-disable (AutomaticDisableChannelEnabled): status 3 plus a system log the super admin sees. */
async function disableChannel(deps: RelayDeps, channel: ChannelRow, reason: string): Promise<void> {
  if (channel.status !== ChannelStatus.Enabled) return;
  await deps.store.setChannelStatus(channel.id, ChannelStatus.AutoDisabled);
  await deps.notifier.notifyRoot('渠道已被禁用', `渠道「${channel.name}」（#${channel.id}）已被自动禁用，原因：${reason}`);
}
