import { createHash } from 'node:crypto';
import { parseGroupModelFallbacks, parseModelFallbacks } from '@model-relay/contract';
import type { IncomingHttpHeaders } from 'node:http';
import type { SharedStore } from '../../cluster/shared-store.js';
import type { OptionStore } from '../../options/option-store.js';

/**
 * Two routing rules a coding agent needs beyond weighted choice:
 *
 * Session affinity. A provider's prompt cache hits only when a session keeps reaching the same account, and caching
 * is where an agent saves most of its cost. The requests of one session (Claude Code's metadata.user_id, Codex's
 * prompt_cache_key and session header, a header the admin names) go to the channel that answered the session last,
 * while it is healthy, for SessionAffinityMinutes after its last request. A channel that fails, is disabled or no
 * longer serves the model is simply not a candidate: the session moves on at once and sticks to the new one. The
 * mark lives in the shared store, so every instance of a cluster follows it.
 *
 * Model fallbacks. When no channel can serve the model asked for (none exists, or each failed in a way another
 * channel could fix), the models an admin listed (ModelFallbacks, or the group's own list in GroupModelFallbacks) are
 * tried in order, within the key's model scope, unless the client asked for the exact model (EXACT_MODEL_HEADER).
 */

/** A client sends this header (true / 1) to be answered by the model it named or not at all. */
export const EXACT_MODEL_HEADER = 'x-relay-exact-model';

/** Session headers the agents send (Codex's `session-id`, Claude Code's `x-claude-code-session-id`) and generic ones. */
const SESSION_HEADERS = ['session-id', 'session_id', 'x-claude-code-session-id', 'x-session-id'];

/** The agent session a request belongs to: the admin's header, the body's own session field, or an agent's header. */
export function sessionOf(headers: IncomingHttpHeaders, bodySession: string | undefined, adminHeader: string): string | undefined {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' && value.trim() ? value.trim() : undefined;
  };
  return (adminHeader ? header(adminHeader) : undefined) ?? bodySession ?? SESSION_HEADERS.map(header).find(Boolean);
}

export class SessionAffinity {
  constructor(
    private readonly shared: SharedStore,
    private readonly options: OptionStore,
  ) {}

  /** The store key of a session's choice: per key and model (another key's session never steers this one). */
  scope(tokenId: number, model: string, session: string | undefined): string | undefined {
    if (!session || this.minutes() <= 0) return undefined;
    return `affinity:${tokenId}:${createHash('sha256').update(`${model}\n${session}`).digest('base64url').slice(0, 32)}`;
  }

  /** The channel the session used last, if it is still remembered. */
  async channel(scope: string | undefined): Promise<number | undefined> {
    if (!scope) return undefined;
    const value = await this.shared.get(scope).catch(() => undefined);
    const id = Number(value);
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  }

  /** Remembers (or refreshes) the channel that answered; best effort: a lost mark only costs a cache miss. */
  remember(scope: string | undefined, channelId: number): void {
    if (!scope) return;
    this.shared.set(scope, String(channelId), this.minutes() * 60).catch(() => undefined);
  }

  private minutes(): number {
    return Math.max(0, this.options.number('SessionAffinityMinutes'));
  }
}

/**
 * The models to try for a request, in order: the one asked for, then its fallbacks (the group's own list when it
 * has one, else the global one), each at most once and only where the key's model scope allows it.
 */
export function modelChain(options: OptionStore, model: string, group: string, scope: string[], exact: boolean): string[] {
  if (exact) return [model];
  // Own properties only: a model or group named "__proto__" or "constructor" must not reach Object.prototype.
  const ownEntry = <T>(map: Record<string, T> | undefined, key: string): T | undefined => (map && Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined);
  const own = ownEntry(options.parsed('GroupModelFallbacks', parseGroupModelFallbacks), group);
  const fallbacks = ownEntry(own, model) ?? ownEntry(options.parsed('ModelFallbacks', parseModelFallbacks), model) ?? [];
  const chain = [model];
  for (const name of fallbacks.map((m) => m.trim())) if (name && !chain.includes(name) && (scope.length === 0 || scope.includes(name))) chain.push(name);
  return chain;
}

/** Whether a header asks for the exact model. */
export const asksExactModel = (headers: IncomingHttpHeaders) => /^(1|true|yes)$/i.test(String(headers[EXACT_MODEL_HEADER] ?? ''));
