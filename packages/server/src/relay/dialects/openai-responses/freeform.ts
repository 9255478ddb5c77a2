import type { ToolDefinition } from '../../canonical.js';
import { asString, isRecord } from '../shared.js';

/**
 * Responses' custom ("freeform") tools: instead of JSON arguments the model writes one free text, optionally
 * following a grammar (Codex CLI's `apply_patch` is one, for GPT-5 models). Other providers only know
 * JSON-schema functions, so a custom tool travels as a function with a single string parameter `input`, its
 * grammar quoted in the description; the call comes back to the client as a `custom_tool_call` with that text.
 */
export const FREEFORM_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The whole input of the tool, as free text in the format its description gives.' } },
  required: ['input'],
  additionalProperties: false,
};

/** The canonical function standing for a custom tool (`name` already checked by the caller). */
export function freeformTool(tool: Record<string, unknown>, name: string): ToolDefinition {
  const description = asString(tool.description) ?? '';
  const format = isRecord(tool.format) ? tool.format : undefined;
  const grammar = format?.type === 'grammar' ? asString(format.definition) : undefined;
  const syntax = asString(format?.syntax) ?? 'lark';
  const note = grammar ? `\n\nThe input must follow this ${syntax} grammar:\n${grammar}` : '';
  return { name, ...(description || note ? { description: description + note } : {}), parameters: FREEFORM_PARAMETERS };
}

/** A custom tool call's text as canonical JSON arguments. */
export const freeformArguments = (input: string): string => JSON.stringify({ input });

/** The text of a call to a custom tool, from the JSON arguments the provider wrote (the raw arguments when they are not ours). */
export function freeformInput(args: string): string {
  try {
    const value: unknown = JSON.parse(args);
    if (isRecord(value) && typeof value.input === 'string') return value.input;
    if (typeof value === 'string') return value;
  } catch {
    // not JSON: the text itself
  }
  return args;
}
