import { createHash } from 'node:crypto';
import { AccountMessages } from '@model-relay/contract';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { SharedStore } from '../../cluster/shared-store.js';
import type { OptionStore } from '../../options/option-store.js';
import { fail } from '../../lib/errors.js';
import type { TurnstileVerifier } from './turnstile-verifier.js';

/** How long a passed check is remembered: Turnstile's own token lifetime. */
const PASSED_TTL_SECONDS = 300;

/** What the check uses: the options that switch it on and hold the secret, the verifier, the shared store of passed tokens. */
export interface TurnstileDeps {
  options: Pick<OptionStore, 'bool' | 'get'>;
  integrations: { turnstile: Pick<TurnstileVerifier, 'verify'> };
  shared: Pick<SharedStore, 'get' | 'set'>;
}

/**
 * Guard (`preValidation`) of the routes a bot-check guards (registration, e-mail code, password reset) when
 * TurnstileCheckEnabled: the widget's token comes as query `turnstile` and is verified with Cloudflare.
 * Cloudflare accepts a token once; the registration screen uses the same token for "send code" and
 * "register", so a passed token is remembered for its lifetime, for the address that passed it (one-api
 * remembered it in the session).
 */
export function turnstileCheck(ctx: TurnstileDeps): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!ctx.options.bool('TurnstileCheckEnabled')) return;
    const token = turnstileToken(request);
    if (!token) fail(AccountMessages.turnstileMissing);
    const key = `turnstile-passed:${createHash('sha256').update(token).digest('hex')}`;
    if ((await ctx.shared.get(key)) === request.ip) return;
    const secret = ctx.options.get('TurnstileSecretKey');
    const verdict = await ctx.integrations.turnstile.verify(secret, token, request.ip);
    if (!verdict.success) {
      request.log.warn({ errorCodes: verdict.errorCodes }, 'turnstile refused');
      fail(AccountMessages.turnstileFailed);
    }
    await ctx.shared.set(key, request.ip, PASSED_TTL_SECONDS);
  };
}

function turnstileToken(request: FastifyRequest): string {
  const value = (request.query as { turnstile?: unknown } | undefined)?.turnstile;
  return typeof value === 'string' ? value.trim() : '';
}
