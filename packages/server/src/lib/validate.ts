import { INTEGER_TEXT, InputMessages, firstIssueMessage, idInput, textProblem } from '@model-relay/contract';
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

/** Deepest page a list serves: 10 rows a page, so ten million rows in; beyond that is junk, not paging. */
export const MAX_PAGE = 1_000_000;

/** A query-string parameter as one string (a repeated parameter arrives as an array: refused). */
function queryText(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return fail(`参数 ${name} 不合法`);
  return value;
}

/**
 * The 0-based page `p` (docs/console.md §7). Absent or empty is page 0; a non-negative integer is that page,
 * capped at MAX_PAGE; anything else (negative, fractional, "1e308", "0x1", junk) is refused in Chinese.
 */
export function pageOf(query: unknown): number {
  const text = queryText(query, 'p');
  if (text === undefined || text === '') return 0;
  if (!/^\d+$/.test(text)) return fail('页码 p 必须是非负整数');
  return text.length > 7 ? MAX_PAGE : Math.min(Number(text), MAX_PAGE);
}

/**
 * An optional integer query parameter (filters, timestamps): canonical decimal text within [min, max], or
 * undefined when absent or empty. Anything else is refused in Chinese, never passed on to SQL.
 */
export function queryInteger(query: unknown, name: string, options: { min?: number; max?: number } = {}): number | undefined {
  const text = queryText(query, name);
  if (text === undefined || text === '') return undefined;
  const min = options.min ?? 0;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const value = INTEGER_TEXT.test(text) && text.length <= 17 ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) return fail(InputMessages.range(name, min, max));
  return value;
}

/** A text query parameter (keyword, order, model...), bounded in size, no control characters; absent is ''. */
export function queryString(query: unknown, name: string, max = 256): string {
  const text = queryText(query, name) ?? '';
  const problem = textProblem(text, name, { max });
  if (problem) return fail(problem);
  return text;
}

/** The `:id` path parameter as a row id (positive integer, nothing else); `label` names the thing in the message. */
export function idParam(params: unknown, label: string): number {
  const result = idInput(label).safeParse((params as { id?: unknown } | undefined)?.id);
  if (!result.success) return fail(InputMessages.id(label));
  return result.data;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
