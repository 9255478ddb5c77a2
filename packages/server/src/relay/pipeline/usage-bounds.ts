import { providerInfo } from '@model-relay/contract';
import type { UsageBounds } from '../../billing/check-usage.js';
import { contextWindowOf, mediaBoundsFor } from '../../billing/media-bounds.js';
import { IMAGE_OUTPUT_TOKENS, type ReservationPlan } from '../../billing/plan-reservation.js';
import type { ChannelRow } from '../../storage/schema.js';
import { isUpload, type IncomingCall } from './types.js';

/** Rounds a provider may take with tools it runs itself (Anthropic stops server-tool loops after 10 by default). */
const HOSTED_TOOL_ROUNDS = 10;

/**
 * The most the request could use, as the upstream was told: the prompt's upper bound (plus a context window per
 * round of provider-run tools, whose results enter the prompt, and one for a bot or knowledge base that adds its own
 * context), and the output limit sent upstream for each answer.
 * A usage report above these is billed at them (billing/check-usage.ts).
 */
export function usageBounds(call: IncomingCall, plan: ReservationPlan, cap: number | undefined, channel: ChannelRow | undefined): UsageBounds {
  const { facts } = call;
  const rounds = facts.hostedTools ? HOSTED_TOOL_ROUNDS : 1;
  // A bot or knowledge base that answered put its own context in the prompt it bills (catalogue `addsContext`).
  const vendorContext = channel && providerInfo(channel.type).addsContext ? contextWindowOf(facts.model) : 0;
  const prompt = facts.promptBound + (facts.hostedTools ? rounds * contextWindowOf(facts.model) : 0) + vendorContext;
  if (isUpload(call.body)) {
    // An uploaded recording: its transcript is bounded like the audio itself.
    const audio = mediaBoundsFor(facts.model).audio(call.body.raw.length);
    return { prompt: Math.max(prompt, audio), completion: audio };
  }
  switch (call.endpoint) {
    case 'chat':
    case 'completions':
      return { prompt, completion: (cap ?? plan.outputTokens) * facts.choices * rounds };
    case 'embeddings':
    case 'moderations':
      return { prompt, completion: 0 };
    case 'images':
      return { prompt, completion: facts.choices * IMAGE_OUTPUT_TOKENS };
    default:
      // Speech is billed by what the upstream reports of its audio; beyond the reservation the user pays from the balance.
      return { prompt, completion: Number.MAX_SAFE_INTEGER };
  }
}
