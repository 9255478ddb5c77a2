import { isRecord } from '../shared.js';

/**
 * Gemini's `Schema` (function parameters, responseSchema) is a subset of OpenAPI 3.0, not JSON Schema: it knows
 * only the fields below, one `type` per schema (with `nullable`), string formats `enum` and `date-time`, and an
 * object must have properties (https://ai.google.dev/api/caching#Schema). The other dialects carry JSON Schema,
 * so schemas are converted on the way in and out.
 */
const FIELDS = new Set(['anyOf', 'default', 'description', 'enum', 'example', 'format', 'items', 'maxItems', 'maxLength', 'maxProperties', 'maximum', 'minItems', 'minLength', 'minProperties', 'minimum', 'nullable', 'pattern', 'properties', 'propertyOrdering', 'required', 'title', 'type']);
const FORMATS: Record<string, string[]> = { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] };
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
/** Deeper schemas are cut: a tool's arguments never need more, and a recursive `$ref` must end. */
const MAX_DEPTH = 24;

/** A Gemini schema as JSON Schema: lower-case types, `nullable` as a `null` type. */
export function schemaFromGemini(schema: unknown, depth = 0): Record<string, unknown> {
  if (!isRecord(schema) || depth > MAX_DEPTH) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && isRecord(value)) out.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, schemaFromGemini(inner, depth + 1)]));
    else if (key === 'items') out.items = schemaFromGemini(value, depth + 1);
    else if (key === 'anyOf' && Array.isArray(value)) out.anyOf = value.map((inner) => schemaFromGemini(inner, depth + 1));
    else if (key !== 'nullable') out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === 'string' && out.type !== 'null') out.type = [out.type, 'null'];
  return out;
}

/**
 * JSON Schema as a Gemini schema: local `$ref`s inlined, type lists turned into `nullable` or `anyOf`, `const`
 * into an enum, `oneOf` into `anyOf`, `allOf` merged, and every keyword Gemini refuses dropped.
 */
export function schemaToGemini(schema: unknown): Record<string, unknown> {
  const root = isRecord(schema) ? schema : {};
  const defs = { ...(isRecord(root.definitions) ? root.definitions : {}), ...(isRecord(root.$defs) ? root.$defs : {}) };
  return convert(root, defs, 0);
}

function resolve(schema: Record<string, unknown>, defs: Record<string, unknown>, depth: number): Record<string, unknown> {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 8 && depth + hops <= MAX_DEPTH; hops++) {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(current.$ref)?.[1];
    const target = name !== undefined ? defs[decodeURIComponent(name)] : undefined;
    const { $ref: _ref, ...rest } = current;
    current = isRecord(target) ? { ...target, ...rest } : rest;
  }
  if (Array.isArray(current.allOf)) {
    const { allOf, ...rest } = current;
    const merged: Record<string, unknown> = { ...rest };
    for (const part of allOf) {
      if (!isRecord(part)) continue;
      const inner = resolve(part, defs, depth + 1);
      for (const [key, value] of Object.entries(inner)) {
        if (key === 'properties' && isRecord(value)) merged.properties = { ...(isRecord(merged.properties) ? merged.properties : {}), ...value };
        else if (key === 'required' && Array.isArray(value)) merged.required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...value])];
        else merged[key] ??= value;
      }
    }
    current = merged;
  }
  return current;
}

function convert(raw: Record<string, unknown>, defs: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) return { type: 'string' };
  const schema = resolve(raw, defs, depth);
  const out: Record<string, unknown> = {};
  const types = (Array.isArray(schema.type) ? schema.type : schema.type !== undefined ? [schema.type] : []).filter((t): t is string => typeof t === 'string').map((t) => t.toLowerCase()).filter((t) => TYPES.has(t));
  const concrete = types.filter((t) => t !== 'null');
  if (types.includes('null') || schema.nullable === true) out.nullable = true;
  if (concrete.length === 1) out.type = concrete[0];
  else if (concrete.length > 1) out.anyOf = concrete.map((type) => ({ type }));

  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'nullable' || !FIELDS.has(key)) continue;
    if (key === 'properties') {
      if (isRecord(value)) {
        const properties = Object.entries(value).filter(([, inner]) => isRecord(inner) || inner === true);
        if (properties.length > 0) out.properties = Object.fromEntries(properties.map(([name, inner]) => [name, convert(isRecord(inner) ? inner : {}, defs, depth + 1)]));
      }
    } else if (key === 'items') {
      const item = Array.isArray(value) ? value[0] : value;
      out.items = convert(isRecord(item) ? item : {}, defs, depth + 1);
    } else if (key === 'anyOf') {
      if (Array.isArray(value)) out.anyOf = value.filter(isRecord).map((inner) => convert(inner, defs, depth + 1));
    } else if (key === 'enum') {
      if (Array.isArray(value) && value.length > 0) out.enum = value.map(String);
    } else if (key === 'format') {
      if (typeof value === 'string' && typeof out.type === 'string' && FORMATS[out.type]?.includes(value)) out.format = value;
    } else if (key === 'required') {
      if (Array.isArray(value)) out.required = value.filter((name): name is string => typeof name === 'string');
    } else out[key] = value;
  }
  if (Array.isArray(schema.oneOf) && out.anyOf === undefined) out.anyOf = schema.oneOf.filter(isRecord).map((inner) => convert(inner, defs, depth + 1));
  if (schema.const !== undefined && schema.const !== null && out.enum === undefined) out.enum = [String(schema.const)];
  // Gemini enums are string enums.
  if (out.enum !== undefined) {
    out.type = 'string';
    if (out.format === undefined) out.format = 'enum';
  }
  if (out.type === undefined && out.anyOf === undefined && out.properties !== undefined) out.type = 'object';
  // Gemini refuses `required` names that are not properties, and an object type without properties.
  const names = isRecord(out.properties) ? Object.keys(out.properties) : [];
  if (Array.isArray(out.required)) {
    out.required = (out.required as string[]).filter((name) => names.includes(name));
    if ((out.required as string[]).length === 0) delete out.required;
  }
  if (out.type === 'object' && names.length === 0) {
    delete out.type;
    delete out.required;
  }
  if (Array.isArray(out.anyOf) && out.anyOf.length === 0) delete out.anyOf;
  return out;
}

/** Whether a converted parameters schema says anything (Gemini wants no `parameters` rather than an empty object). */
export const hasParameters = (schema: Record<string, unknown>): boolean => isRecord(schema.properties) || Array.isArray(schema.anyOf);
