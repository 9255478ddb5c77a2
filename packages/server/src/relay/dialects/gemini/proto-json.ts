import { isRecord } from '../shared.js';

/**
 * The Gemini API reads its bodies as proto JSON, where every field may be spelled in lowerCamelCase or in
 * snake_case (`systemInstruction` / `system_instruction`). A client body is brought to lowerCamelCase once,
 * before it is read; values that are the caller's own data keep their keys as sent.
 */

/** Fields whose value is the caller's data (function arguments and results, raw JSON Schemas, labels), not proto. */
const OPAQUE = new Set(['args', 'response', 'parametersJsonSchema', 'responseJsonSchema', 'example', 'default', 'labels', 'partMetadata']);

const camel = (key: string) => (key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key);

/**
 * A copy of a proto-JSON value with lowerCamelCase field names. Under `properties` (a schema's property map) the
 * keys are names chosen by the caller and are kept. Iterative: no nesting depth can overflow the call stack.
 */
export function camelProto(value: unknown): unknown {
  const root: { value?: unknown } = {};
  const stack: Array<{ from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; names: boolean }> = [{ from: value, into: root as Record<string, unknown>, key: 'value', names: false }];
  while (stack.length > 0) {
    const { from, into, key, names } = stack.pop()!;
    if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      (into as Record<string | number, unknown>)[key] = out;
      from.forEach((item, i) => stack.push({ from: item, into: out, key: i, names: false }));
    } else if (isRecord(from)) {
      const out: Record<string, unknown> = {};
      (into as Record<string | number, unknown>)[key] = out;
      for (const [name, inner] of Object.entries(from)) {
        const field = names ? name : camel(name);
        if (!names && OPAQUE.has(field)) out[field] = inner;
        else stack.push({ from: inner, into: out, key: field, names: !names && field === 'properties' });
      }
    } else {
      (into as Record<string | number, unknown>)[key] = from;
    }
  }
  return root.value;
}

/** A field of a body that was not normalised: lowerCamelCase first, then snake_case. */
export function protoField(body: Record<string, unknown>, name: string): unknown {
  if (body[name] !== undefined) return body[name];
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return snake === name ? undefined : body[snake];
}
