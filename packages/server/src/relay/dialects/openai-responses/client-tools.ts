import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../../canonical.js';
import type { ClientTool } from '../types.js';
import { asArray, asString, badRequest, isRecord } from '../shared.js';
import { freeformInput, freeformTool } from './freeform.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * Tools a Responses client runs itself, of every kind Codex CLI and the SDK send, reach a provider that knows only
 * JSON-schema functions as functions, and the provider's calls go back to the client in the shape it declared:
 *  - `function`: as is (`defer_loading` ignored: the provider sees every tool at once);
 *  - `custom`: a function with one string parameter (freeform.ts), back as a `custom_tool_call`;
 *  - `namespace`: each function or custom tool inside it, named `<namespace>__<name>`, back as a call of that name
 *    inside its namespace (Codex's `multi_agent_v1`);
 *  - `local_shell`, `shell`, `apply_patch`: functions with the arguments of their calls' `action` / `operation`,
 *    back as `local_shell_call`, `shell_call`, `apply_patch_call` items;
 *  - `tool_search`: left out (every deferred tool is offered directly).
 * Tools OpenAI runs (web search aside, see parse-request.ts) exist only at OpenAI.
 */

/** The parameters of the built-in client tools: the fields of their calls' `action` or `operation`. */
const SHELL_PARAMETERS = {
  type: 'object',
  properties: {
    command: { type: 'array', items: { type: 'string' }, description: 'The command and its arguments, as for execvp.' },
    working_directory: { type: 'string', description: 'The directory to run the command in.' },
    timeout_ms: { type: 'integer', description: 'How long the command may run, in milliseconds.' },
    env: { type: 'object', additionalProperties: { type: 'string' }, description: 'Environment variables to set.' },
  },
  required: ['command'],
};
const SHELL_COMMANDS_PARAMETERS = {
  type: 'object',
  properties: {
    commands: { type: 'array', items: { type: 'string' }, description: 'Shell commands to run, in order.' },
    timeout_ms: { type: 'integer', description: 'How long the commands may run, in milliseconds.' },
    max_output_length: { type: 'integer', description: 'The most characters of output to return.' },
  },
  required: ['commands'],
};
const APPLY_PATCH_PARAMETERS = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'], description: 'What to do with the file.' },
    path: { type: 'string', description: 'The file, relative to the working directory.' },
    diff: { type: 'string', description: 'For create_file the new content, for update_file the changes, as a V4A diff.' },
  },
  required: ['type', 'path'],
};
const BUILT_IN: Record<string, { description: string; parameters: Record<string, unknown> }> = {
  local_shell: { description: "Runs a command on the user's machine and returns its output.", parameters: SHELL_PARAMETERS },
  shell: { description: "Runs shell commands on the user's machine and returns their output.", parameters: SHELL_COMMANDS_PARAMETERS },
  apply_patch: { description: 'Creates, updates or deletes a file in the workspace.', parameters: APPLY_PATCH_PARAMETERS },
};

/** The provider-side name of a tool inside a namespace: `<namespace>__<name>`, within the 64 characters providers allow. */
export function namespacedName(namespace: string, name: string): string {
  const flat = `${namespace}__${name}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  return flat.length <= 64 ? flat : `${flat.slice(0, 55)}_${createHash('sha256').update(flat).digest('hex').slice(0, 8)}`;
}

/** A client tool as a canonical function, or undefined for a kind the client does not run (the caller decides). */
function definitionOf(tool: Record<string, unknown>, namespace?: string): Array<{ canonical: string; client: ClientTool; definition: ToolDefinition }> | undefined {
  const type = tool.type ?? 'function';
  const name = asString(tool.name);
  if (type === 'function' || type === 'custom') {
    if (!name) throw badRequest(type === 'custom' ? 'tools 中的自定义工具缺少 name' : 'tools 中的函数缺少 name');
    const canonical = namespace ? namespacedName(namespace, name) : name;
    const client: ClientTool = { kind: type, name, ...(namespace ? { namespace } : {}) };
    if (type === 'custom') return [{ canonical, client, definition: { ...freeformTool(tool, name), name: canonical } }];
    const description = asString(tool.description);
    return [{ canonical, client, definition: { name: canonical, ...(description ? { description } : {}), parameters: isRecord(tool.parameters) ? tool.parameters : { type: 'object', properties: {} } } }];
  }
  if (type === 'namespace' && !namespace) {
    if (!name) throw badRequest('tools 中的 namespace 缺少 name');
    return flatMap(asArray(tool.tools), (inner) => {
      if (!isRecord(inner)) throw badRequest(`namespace ${name.slice(0, 60)} 的 tools 每一项必须是对象`);
      const defined = definitionOf(inner, name);
      if (!defined) throw badRequest(`namespace ${name.slice(0, 60)} 中只能有 function 或 custom 工具`);
      return defined;
    });
  }
  const builtIn = typeof type === 'string' ? BUILT_IN[type] : undefined;
  if (builtIn && !namespace) return [{ canonical: type as string, client: { kind: type as ClientTool['kind'], name: type as string }, definition: { name: type as string, ...builtIn } }];
  if (type === 'tool_search') return [];
  return undefined;
}

/**
 * The client-run tools of a Responses body as canonical functions, and the tools that are not client-run (for the
 * caller to map to the provider's own or refuse).
 */
export function readClientTools(tools: unknown): { defined: Array<{ canonical: string; client: ClientTool; definition: ToolDefinition }>; hosted: Array<Record<string, unknown>> } {
  const defined: Array<{ canonical: string; client: ClientTool; definition: ToolDefinition }> = [];
  const hosted: Array<Record<string, unknown>> = [];
  for (const tool of asArray(tools)) {
    if (!isRecord(tool)) throw badRequest('tools 的每一项必须是对象');
    const found = definitionOf(tool);
    if (found) defined.push(...found);
    else hosted.push(tool);
  }
  return { defined, hosted };
}

/**
 * What the writers need to give each call its client shape: every client tool whose calls are not plain
 * `function_call`s of the same name. Cheap (no translation): read from the body for the request's facts.
 */
export function clientToolMap(tools: unknown): Array<[string, ClientTool]> | undefined {
  const entries: Array<[string, ClientTool]> = [];
  for (const tool of asArray(tools)) {
    if (!isRecord(tool)) continue;
    try {
      for (const { canonical, client } of definitionOf(tool) ?? []) if (client.kind !== 'function' || client.namespace) entries.push([canonical, client]);
    } catch {
      // a malformed tool is refused when the body is translated
    }
  }
  return entries.length > 0 ? entries : undefined;
}

type Item = Record<string, unknown>;

/** Parses a call's JSON arguments into an object ({} when they are not one). */
function argumentsObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * A finished call as the client declared its tool: a function_call (in its namespace), a custom_tool_call, or the
 * item of a built-in client tool with its action.
 */
export function callItem(id: string, status: string, callId: string, canonical: string, args: string, tools?: ReadonlyMap<string, ClientTool>): Item {
  const tool = tools?.get(canonical);
  const namespace = tool?.namespace ? { namespace: tool.namespace } : {};
  const name = tool?.name ?? canonical;
  if (tool?.kind === 'custom') return { id, type: 'custom_tool_call', status, call_id: callId, ...namespace, name, input: freeformInput(args) };
  const values = argumentsObject(args);
  if (tool?.kind === 'local_shell') {
    const command = asArray(values.command).map(String);
    return { id, type: 'local_shell_call', status, call_id: callId, action: { type: 'exec', command, env: isRecord(values.env) ? values.env : {}, ...pick(values, ['timeout_ms', 'working_directory', 'user']) } };
  }
  if (tool?.kind === 'shell') return { id, type: 'shell_call', status, call_id: callId, action: { commands: asArray(values.commands).map(String), ...pick(values, ['timeout_ms', 'max_output_length']) } };
  if (tool?.kind === 'apply_patch') {
    const type = values.type === 'create_file' || values.type === 'delete_file' ? values.type : 'update_file';
    return { id, type: 'apply_patch_call', status: status === 'incomplete' ? 'in_progress' : status, call_id: callId, operation: { type, path: asString(values.path) ?? '', ...(type === 'delete_file' ? {} : { diff: asString(values.diff) ?? '' }) } };
  }
  return { id, type: 'function_call', status, call_id: callId, ...namespace, name, arguments: args || '{}' };
}

const pick = (values: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => values[k] !== undefined && values[k] !== null).map((k) => [k, values[k]]));

/** Whether a call is written whole at its end (no argument deltas): the built-in client tools' items have none. */
export const isWholeCall = (canonical: string, tools?: ReadonlyMap<string, ClientTool>) => {
  const kind = tools?.get(canonical)?.kind;
  return kind === 'local_shell' || kind === 'shell' || kind === 'apply_patch';
};

/** A history item of a client tool's call as the canonical tool call (name, JSON arguments), or undefined for another item. */
export function callOfItem(item: Item): { callId: string; name: string; arguments: string } | undefined {
  const callId = asString(item.call_id) ?? asString(item.id) ?? '';
  const namespace = asString(item.namespace);
  const named = (name: string) => (namespace ? namespacedName(namespace, name) : name);
  if (item.type === 'function_call') return { callId, name: named(asString(item.name) ?? ''), arguments: typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}) };
  if (item.type === 'custom_tool_call') return { callId, name: named(asString(item.name) ?? ''), arguments: JSON.stringify({ input: asString(item.input) ?? '' }) };
  const action = isRecord(item.action) ? item.action : {};
  if (item.type === 'local_shell_call') {
    const { type: _exec, ...args } = action;
    return { callId, name: 'local_shell', arguments: JSON.stringify(args) };
  }
  if (item.type === 'shell_call') return { callId, name: 'shell', arguments: JSON.stringify(action) };
  if (item.type === 'apply_patch_call') return { callId, name: 'apply_patch', arguments: JSON.stringify(isRecord(item.operation) ? item.operation : {}) };
  return undefined;
}

/** A history item of a client tool's result as the call it answers and its text, or undefined for another item. */
export function resultOfItem(item: Item): { callId: string; output: unknown } | undefined {
  if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') return { callId: asString(item.call_id) ?? '', output: item.output };
  if (item.type === 'local_shell_call_output') return { callId: asString(item.call_id) ?? asString(item.id) ?? '', output: asString(item.output) ?? '' };
  if (item.type === 'apply_patch_call_output') return { callId: asString(item.call_id) ?? '', output: `${item.status === 'failed' ? 'failed' : 'completed'}${asString(item.output) ? `: ${asString(item.output)}` : ''}` };
  if (item.type === 'shell_call_output') {
    const text = asArray(item.output)
      .map((chunk) => {
        if (!isRecord(chunk)) return '';
        const outcome = isRecord(chunk.outcome) ? chunk.outcome : {};
        const ending = outcome.type === 'exit' ? `exit code ${String(outcome.exit_code)}` : outcome.type === 'timeout' ? 'timed out' : '';
        return [asString(chunk.stdout), asString(chunk.stderr) ? `stderr:\n${asString(chunk.stderr)}` : '', ending].filter(Boolean).join('\n');
      })
      .join('\n\n');
    return { callId: asString(item.call_id) ?? '', output: text };
  }
  return undefined;
}

