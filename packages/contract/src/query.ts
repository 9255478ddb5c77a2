import { z } from 'zod';
import { INTEGER_TEXT, InputMessages, idInput, textProblem } from './input.js';

/**
 * Query-string and path inputs of /api routes (docs/adding.md, "An /api resource"). Query values are text; a
 * parameter given twice arrives as an array and is refused. Every failure is the Chinese message the console
 * shows, the same one whether the route's schema or a service finds it.
 */

/** Deepest page a list serves: 10 rows a page, so ten million rows in; beyond that is junk, not paging. */
export const MAX_PAGE = 1_000_000;

/** One query parameter as one string (absent stays undefined). */
const queryText = (name: string) => z.string({ error: `参数 ${name} 不合法` }).optional();

/**
 * The 0-based page `p` (docs/console.md §7). Absent or empty is page 0; a non-negative integer is that page,
 * capped at MAX_PAGE; anything else (negative, fractional, "1e308", "0x1", junk) is refused.
 */
export const pageInput = queryText('p').transform((text, ctx) => {
  if (text === undefined || text === '') return 0;
  if (!/^\d+$/.test(text)) {
    ctx.addIssue({ code: 'custom', message: '页码 p 必须是非负整数' });
    return z.NEVER;
  }
  return text.length > 7 ? MAX_PAGE : Math.min(Number(text), MAX_PAGE);
});

/** A text query parameter (keyword, order, model...), bounded in size, no control characters; absent is ''. */
export function queryTextInput(name: string, max = 256) {
  return queryText(name).transform((value, ctx) => {
    const text = value ?? '';
    const problem = textProblem(text, name, { max });
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return text;
  });
}

/**
 * An optional integer query parameter (filters, timestamps): canonical decimal text within [min, max], or
 * undefined when absent or empty. Anything else is refused, never passed on to SQL.
 */
export function queryIntegerInput(name: string, options: { min?: number; max?: number } = {}) {
  const min = options.min ?? 0;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  return queryText(name).transform((text, ctx): number | undefined => {
    if (text === undefined || text === '') return undefined;
    const value = INTEGER_TEXT.test(text) && text.length <= 17 ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      ctx.addIssue({ code: 'custom', message: InputMessages.range(name, min, max) });
      return z.NEVER;
    }
    return value;
  });
}

/** `/:id` of a row; `label` names the thing in the message ("无效的令牌 ID"). */
export const idParams = (label: string) => z.object({ id: idInput(label) });

/** A request body that must be a JSON object, whose fields the service reads itself (see the route's comment). */
export const jsonObjectBody = z.record(z.string(), z.unknown(), { error: InputMessages.notObject });

/** `?p=`: one page of a list. */
export const pageQuery = z.object({ p: pageInput });
/** `?p=&order=`: one page of a list in a chosen order. */
export const orderedPageQuery = z.object({ p: pageInput, order: queryTextInput('order') });
/** `?keyword=`: a search. */
export const searchQuery = (max = 256) => z.object({ keyword: queryTextInput('keyword', max) });
/** `?status_only=true`: a PUT that changes only the status. */
export const statusOnlyQuery = z.object({ status_only: queryTextInput('status_only') });

/** Filters of GET /api/log/ and /api/log/self (docs/console.md §7); the self routes ignore username and channel. */
const logFilterText = (name: string) => queryTextInput(name, 255).transform((text) => text.trim() || undefined);
const logFilterNumber = (name: string, max?: number) => queryIntegerInput(name, { min: 0, max }).transform((value) => value || undefined);
export const logSelfFilterQuery = z.object({
  type: logFilterNumber('type', 2147483647),
  token_name: logFilterText('token_name'),
  model_name: logFilterText('model_name'),
  start_timestamp: logFilterNumber('start_timestamp'),
  end_timestamp: logFilterNumber('end_timestamp'),
  request_id: queryTextInput('request_id', 64).transform((text) => text.trim() || undefined),
});
export const logFilterQuery = logSelfFilterQuery.extend({ username: logFilterText('username'), channel: logFilterNumber('channel', 2147483647) });
export type LogFilterQuery = z.output<typeof logSelfFilterQuery> & Partial<z.output<typeof logFilterQuery>>;
export const logListQuery = logFilterQuery.extend({ p: pageInput });
export const logSelfListQuery = logSelfFilterQuery.extend({ p: pageInput });
/** DELETE /api/log/?target_timestamp=: history before that second. */
export const logDeleteQuery = z.object({ target_timestamp: queryIntegerInput('target_timestamp', { min: 1 }) });

/** `?email=` of the e-mail code and password-reset links; the service checks the address itself. */
export const emailQuery = z.object({ email: z.unknown() });
/** `?state=&code=` of an OAuth callback (trimmed; a missing or repeated one is '' and refused by the service). */
const oauthText = z.unknown().transform((value) => (typeof value === 'string' ? value.trim() : ''));
export const oauthCallbackQuery = z.object({ state: oauthText, code: oauthText });
export const oauthCodeQuery = z.object({ code: oauthText });
/** `?email=&code=` of binding an e-mail address; the service checks both. */
export const emailBindQuery = z.object({ email: z.unknown(), code: z.unknown() });

/** `?scope=disabled` of "test all channels" (anything else tests all). */
export const channelTestAllQuery = z.object({ scope: queryTextInput('scope') });
/** `?model=` of testing one channel (empty: the channel's test model). */
export const channelTestQuery = z.object({ model: queryTextInput('model') });
/** `?models=a,b` of the unpriced-models check (the channel form, before saving). */
export const unpricedQuery = z.object({ models: queryTextInput('models', 64 * 1024) });
