import { firstIssueMessage, type ApiEnvelope } from '@model-relay/contract';
import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify';
import type { z } from 'zod';
import { UserFacingError } from '../lib/errors.js';

/**
 * Routes declare their params, query and body with the contract's zod schemas (docs/adding.md, "An /api
 * resource"): `app.withTypeProvider<ZodTypeProvider>().post(url, { schema: { body: someSchema } }, handler)`.
 * The type provider gives the handler `request.body` etc. as the schema's output type; the validator compiler
 * (set once on the app) parses each declared part before the handler runs and answers a failure with the same
 * Chinese message `parseInput` gives (lib/validate.ts), as a user-facing error: `{success:false, message}` on
 * /api, the dialect's error body (400) on /v1.
 *
 * Written here rather than taken from fastify-type-provider-zod: that package's validator reports zod's
 * issues as fastify validation errors (English, status 400) for the error handler to translate, and its
 * serializer would change how replies are written; what the app needs is the ten lines below with its own
 * messages and none of the rest.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/**
 * Fastify calls this once per declared part of each route. No body is `{}`, as in `parseInput`; a body that is
 * not an object fails the schema's root check (`firstIssueMessage` says "请求体必须是 JSON 对象" for an object
 * schema). The parsed value (trimmed, defaults filled) replaces the raw one.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data: unknown) => {
    const result = schema.safeParse(httpPart === 'body' ? (data ?? {}) : data);
    return result.success ? { value: result.data } : { error: new UserFacingError(firstIssueMessage(result.error)) };
  };

/** The `{ success, message, data }` envelope of a successful /api answer: `ok()`, `ok(data)`, `ok(data, 'bind')`. */
export function ok(): ApiEnvelope<never> & { success: true };
export function ok<T>(data: T, message?: string): ApiEnvelope<T> & { success: true; data: T };
export function ok<T>(...args: [] | [T, string?]): ApiEnvelope<T> & { success: true } {
  if (args.length === 0) return { success: true, message: '' };
  return { success: true, message: args[1] ?? '', data: args[0] };
}
