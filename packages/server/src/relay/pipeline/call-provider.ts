import { parseJsonObject } from '@model-relay/contract';
import type { ChannelRow } from '../../storage/schema.js';
import { CredentialError, type CredentialResolver } from '../credentials/credential-resolver.js';
import type { ChannelTarget, ProviderAdapter, UpstreamRequest } from '../providers/types.js';
import { sendUpstream, type UpstreamResponse } from '../transport/send-upstream.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';
import type { CancelSignal } from '../transport/cancel.js';

/** What calling a provider needs: the upstream connection pools and the credential resolver. */
export interface ProviderCallDeps {
  pools: UpstreamPools;
  credentials: CredentialResolver;
}

/** The upstream could not be reached (connection refused, timed out, or the call aborted): `cause` says how. */
export class UpstreamUnreachable extends Error {
  constructor(readonly cause: unknown) {
    super((cause as Error)?.message ?? String(cause));
  }
}

/** What an adapter is told about a channel. */
export function targetOf(channel: ChannelRow): ChannelTarget {
  return { type: channel.type, baseUrl: channel.base_url, key: channel.key, other: channel.other, config: parseJsonObject(channel.config) ?? {} };
}

/**
 * One call to a provider, the same for the relay (attempt-channels.ts) and the channel test
 * (channel-health/test-channel.ts): the channel's credentials resolved (cached; `target.credentials` is set), the
 * request built for them, signed when the provider's scheme signs requests, and sent. Throws CredentialError when
 * the credentials cannot be had, UpstreamUnreachable when the upstream cannot be reached, and whatever `build`
 * throws; an upstream that answers (any status) is the response.
 */
export async function callProvider(
  deps: ProviderCallDeps,
  provider: ProviderAdapter,
  target: ChannelTarget,
  build: () => UpstreamRequest | Promise<UpstreamRequest>,
  signal: CancelSignal,
): Promise<UpstreamResponse> {
  if (provider.credentials) {
    try {
      target.credentials = await deps.credentials.resolve(provider.credentials, target);
    } catch (error) {
      throw error instanceof CredentialError ? error : new CredentialError((error as Error)?.message ?? String(error));
    }
  }
  const built = build();
  // A body built on the event loop stays synchronous; a large one is built on a body worker.
  let request = built instanceof Promise ? await built : built;
  if (provider.credentials && target.credentials) request = await deps.credentials.sign(provider.credentials, request, target.credentials);
  try {
    return await sendUpstream(deps.pools, request, signal);
  } catch (error) {
    throw new UpstreamUnreachable(error);
  }
}
