import { createHash } from 'node:crypto';
import type { ChannelTarget, CredentialKind, ResolvedCredentials, UpstreamRequest } from '../providers/types.js';

/**
 * One kind of credential: how a channel's stored secret becomes what a request needs (possibly with I/O, such as
 * exchanging a service account's signed JWT for an access token), how long that stays good, and, for schemes
 * that sign each request (AWS SigV4), the signing.
 */
export interface CredentialSource {
  resolve(channel: ChannelTarget): Promise<{ credentials: ResolvedCredentials; expiresAt: number }>;
  sign?(request: UpstreamRequest, credentials: ResolvedCredentials): Promise<UpstreamRequest>;
}

/** A credential that could not be had: the channel's secret is malformed, or its issuer refused or was unreachable. */
export class CredentialError extends Error {}

/** Resolved credentials are reused until a minute before they expire, so no request starts with a dying token. */
const REFRESH_MARGIN_MS = 60_000;
const MAX_ENTRIES = 1_000;

/**
 * Resolves credentials before a provider adapter builds its request and signs the request after, so adapters
 * stay pure. Results are cached per channel secret until they expire (a changed key or config is a new entry),
 * and concurrent requests for the same secret share one resolution (one token exchange, not one per request).
 */
export class CredentialResolver {
  private readonly cache = new Map<string, { credentials: ResolvedCredentials; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<ResolvedCredentials>>();

  constructor(
    private readonly sources: Partial<Record<CredentialKind, CredentialSource>>,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(kind: CredentialKind, channel: ChannelTarget): Promise<ResolvedCredentials> {
    const source = this.sources[kind];
    if (!source) throw new CredentialError(`不支持的凭证类型：${kind}`);
    const id = cacheId(kind, channel);
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt - REFRESH_MARGIN_MS > this.now()) return cached.credentials;
    let pending = this.pending.get(id);
    if (!pending) {
      pending = source.resolve(channel).then(
        (entry) => {
          if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
          this.cache.set(id, entry);
          return entry.credentials;
        },
        (error: unknown) => {
          throw error instanceof CredentialError ? error : new CredentialError((error as Error).message);
        },
      );
      pending.finally(() => this.pending.delete(id)).catch(() => undefined);
      this.pending.set(id, pending);
    }
    return pending;
  }

  /**
   * Drops what is cached for a channel: its upstream refused the credentials (401), e.g. a token revoked before
   * it expired, so the next request resolves them again instead of failing until the expiry.
   */
  forget(kind: CredentialKind, channel: ChannelTarget): void {
    this.cache.delete(cacheId(kind, channel));
  }

  /** Signs the request when its scheme asks for it; otherwise returns it unchanged. */
  async sign(kind: CredentialKind, request: UpstreamRequest, credentials: ResolvedCredentials): Promise<UpstreamRequest> {
    const source = this.sources[kind];
    if (!request.sign || !source?.sign) return request;
    return source.sign(request, credentials);
  }
}

const cacheId = (kind: CredentialKind, channel: ChannelTarget) =>
  `${kind}:${createHash('sha256').update(channel.key).update('\0').update(JSON.stringify(channel.config)).update('\0').update(channel.baseUrl).digest('base64url')}`;
