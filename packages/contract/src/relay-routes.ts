import { z } from 'zod';

/**
 * Path and query inputs of the relay's routes (/v1, /v1beta). Request bodies are not declared here: the relay
 * reads them itself (large ones on worker threads) and answers their problems in the client's dialect.
 * Query schemas keep every parameter they do not name: a client's other parameters are not the gateway's to drop.
 */

/** GET /v1/models/:model. */
export const modelParams = z.object({ model: z.string() });
/** /v1/responses/:id and the calls under it. */
export const responseIdParams = z.object({ id: z.string() });
/** /v1beta/models/*: `{model}` or `{model}:{method}` (the colon is not route syntax, so one wildcard). */
export const geminiModelParams = z.object({ '*': z.string() });
/** Gemini's query: the key may come as `?key=`, and `?alt=sse` asks for SSE instead of one JSON array. */
export const geminiQuery = z.looseObject({ key: z.unknown().optional(), alt: z.unknown().optional() });
