import { describe, expect, it } from 'vitest';
import { type ChatResponse } from '../../canonical.js';
import { openAiResponsesDialect as responses } from './index.js';
import { mediaBoundsFor } from '../../../billing/media-bounds.js';

/** Responses client-run tools of every kind (custom, namespaced, local_shell, shell, apply_patch) carried through another channel and back. */
describe('client-run tools of every kind', () => {
  const ctx = { id: 'resp_t', model: 'm', created: 1, includeUsage: true };
  const tools = [
    { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }, { type: 'custom', name: 'note' }] },
    { type: 'local_shell' },
    { type: 'shell' },
    { type: 'apply_patch' },
    { type: 'tool_search', execution: 'server' },
    { type: 'function', name: 'read_file', defer_loading: true, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  ];

  it('all become functions (tool search left out, deferred tools offered directly)', () => {
    const canonical = responses.parseRequest({ model: 'm', input: 'x', tools });
    expect(canonical.tools.map((t) => t.name)).toEqual(['multi_agent_v1__spawn_agent', 'multi_agent_v1__note', 'local_shell', 'shell', 'apply_patch', 'read_file']);
    expect(canonical.tools[2].parameters).toMatchObject({ required: ['command'] });
  });

  it('calls go back in the shape each tool was declared with, and come in again from history', () => {
    const clientTools = new Map(responses.inspect({ model: 'm', input: 'x', tools }, mediaBoundsFor).clientTools);
    const call = (id: string, name: string, args: unknown) => ({ type: 'tool_call' as const, id, name, arguments: JSON.stringify(args) });
    const answer: ChatResponse = {
      id: 'x', model: 'm', finishReason: 'tool_calls',
      content: [
        call('c1', 'multi_agent_v1__spawn_agent', { message: 'go' }),
        call('c2', 'multi_agent_v1__note', { input: 'remember' }),
        call('c3', 'local_shell', { command: ['ls', '-la'], working_directory: '/w' }),
        call('c4', 'shell', { commands: ['pwd'], timeout_ms: 1000 }),
        call('c5', 'apply_patch', { type: 'create_file', path: 'a.txt', diff: '+hi' }),
      ],
    };
    const output = (responses.writeResponse(answer, { ...ctx, clientTools }) as { output: Array<Record<string, unknown>> }).output;
    expect(output).toMatchObject([
      { type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent', call_id: 'c1', arguments: '{"message":"go"}' },
      { type: 'custom_tool_call', namespace: 'multi_agent_v1', name: 'note', call_id: 'c2', input: 'remember' },
      { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['ls', '-la'], working_directory: '/w', env: {} } },
      { type: 'shell_call', call_id: 'c4', action: { commands: ['pwd'], timeout_ms: 1000 } },
      { type: 'apply_patch_call', call_id: 'c5', operation: { type: 'create_file', path: 'a.txt', diff: '+hi' } },
    ]);
    // The same items sent back with their results are the same canonical calls and results.
    const results = [
      { type: 'function_call_output', call_id: 'c1', output: 'agent-1' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'ok' },
      { type: 'local_shell_call_output', call_id: 'c3', output: 'a.txt' },
      { type: 'shell_call_output', call_id: 'c4', output: [{ stdout: '/w', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
      { type: 'apply_patch_call_output', call_id: 'c5', status: 'completed', output: 'Created a.txt' },
    ];
    const next = responses.parseRequest({ model: 'm', tools, input: [{ role: 'user', content: 'x' }, ...output, ...results] });
    expect(next.messages[1].content.map((p) => (p.type === 'tool_call' ? [p.name, JSON.parse(p.arguments)] : p.type))).toEqual([
      ['multi_agent_v1__spawn_agent', { message: 'go' }],
      ['multi_agent_v1__note', { input: 'remember' }],
      ['local_shell', { command: ['ls', '-la'], working_directory: '/w', env: {} }],
      ['shell', { commands: ['pwd'], timeout_ms: 1000 }],
      ['apply_patch', { type: 'create_file', path: 'a.txt', diff: '+hi' }],
    ]);
    expect(next.messages[2].content.map((p) => (p.type === 'tool_result' ? [p.callId, p.name, p.content.map((c) => (c.type === 'text' ? c.text : ''))] : p.type))).toEqual([
      ['c1', 'multi_agent_v1__spawn_agent', ['agent-1']],
      ['c2', 'multi_agent_v1__note', ['ok']],
      ['c3', 'local_shell', ['a.txt']],
      ['c4', 'shell', ['/w\nexit code 0']],
      ['c5', 'apply_patch', ['completed: Created a.txt']],
    ]);
  });

  it('streamed: a built-in client tool call is one whole item; a namespaced function streams its arguments', () => {
    const clientTools = new Map(responses.inspect({ model: 'm', input: 'x', tools }, mediaBoundsFor).clientTools);
    const writer = responses.createStreamWriter({ ...ctx, clientTools });
    const text = [
      writer.write({ type: 'start' }),
      writer.write({ type: 'tool_call', index: 0, id: 'c3', name: 'local_shell' }),
      writer.write({ type: 'tool_call_delta', index: 0, arguments: '{"command":' }),
      writer.write({ type: 'tool_call_delta', index: 0, arguments: '["ls"]}' }),
      writer.write({ type: 'tool_call', index: 1, id: 'c1', name: 'multi_agent_v1__spawn_agent' }),
      writer.write({ type: 'tool_call_delta', index: 1, arguments: '{"message":"go"}' }),
      writer.write({ type: 'finish', reason: 'tool_calls' }),
      writer.end(),
    ].join('');
    const events = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { type: string; item?: Record<string, unknown>; response?: { output: unknown[] } });
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
    expect(added).toMatchObject([
      { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['ls'] } },
      { type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent' },
    ]);
    expect(events.at(-1)?.response?.output).toMatchObject([{ type: 'local_shell_call' }, { type: 'function_call', namespace: 'multi_agent_v1', arguments: '{"message":"go"}' }]);
  });
});
