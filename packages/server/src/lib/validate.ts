import { firstIssueMessage } from '@model-relay/contract';
import type { z } from 'zod';
import { fail } from './errors.js';

/** Parses input with a shared contract schema; a failure becomes a user-facing Chinese message. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (!result.success) return fail(firstIssueMessage(result.error));
  return result.data;
}

/** Reads the 0-based page query parameter `p` (negative or junk -> 0). */
export function pageOf(query: unknown): number {
  const p = Number((query as { p?: unknown } | undefined)?.p);
  return Number.isInteger(p) && p > 0 ? p : 0;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
