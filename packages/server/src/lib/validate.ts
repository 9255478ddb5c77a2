import { InputMessages, firstIssueMessage, idInput, pageInput, queryIntegerInput } from '@model-relay/contract';
import type { z } from 'zod';
import { fail } from './errors.js';

/**
 * Parses input with a shared contract schema; a failure becomes a user-facing Chinese message. A body that is
 * not a JSON object (an array, a string, a number) is refused here once, so no schema sees one.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const value = input ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) return fail(InputMessages.notObject);
  const result = schema.safeParse(value);
  if (!result.success) return fail(firstIssueMessage(result.error));
  return result.data;
}

/** Parses a single value (not a request body) with a shared contract schema; a failure becomes a Chinese message. */
export function parseValue<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) return fail(firstIssueMessage(result.error));
  return result.data;
}

export { MAX_PAGE } from '@model-relay/contract';

/** One query parameter of a raw query object (routes declare their query schemas instead; see http/typed-routes.ts). */
const param = (query: unknown, name: string): unknown => (query as Record<string, unknown> | undefined)?.[name];

/** The 0-based page `p` of a raw query object (contract `pageInput`). */
export function pageOf(query: unknown): number {
  return parseValue(pageInput, param(query, 'p'));
}

/** An optional integer parameter of a raw query object (contract `queryIntegerInput`). */
export function queryInteger(query: unknown, name: string, options: { min?: number; max?: number } = {}): number | undefined {
  return parseValue(queryIntegerInput(name, options), param(query, name));
}

/** The `:id` path parameter as a row id (positive integer, nothing else); `label` names the thing in the message. */
export function idParam(params: unknown, label: string): number {
  const result = idInput(label).safeParse((params as { id?: unknown } | undefined)?.id);
  if (!result.success) return fail(InputMessages.id(label));
  return result.data;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
