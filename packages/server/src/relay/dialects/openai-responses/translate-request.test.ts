import { describe, expect, it } from 'vitest';
import { RelayError } from '../../relay-error.js';
import { responsesMemory, responsesProblem } from '../../../test-support/mock-openai-responses.js';
import { anthropicDialect } from '../anthropic/index.js';
import { carry } from './carrier.js';
import { FREEFORM_PARAMETERS } from './freeform.js';
import { openAiResponsesDialect as responses } from './index.js';
import { mediaBoundsFor } from '../../../billing/media-bounds.js';

/** Responses requests: a Responses client's request translated for another channel, and a canonical request written for a Responses upstream. */
const refusal = (body: Record<string, unknown>) => {
  try {
    responses.parseRequest({ model: 'm', input: 'hi', ...body });
  } catch (error) {
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).status).toBe(400);
    return (error as RelayError).message;
  }
  throw new Error('not refused');
};

describe('a Responses request translated for another channel', () => {
  it('reads what Codex CLI sends: instructions, developer and user messages, calls with their outputs, its reasoning', () => {
    const request = responses.parseRequest({
      model: 'claude-sonnet-4-5',
      instructions: 'You are a coding agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'I should run ls.' }], encrypted_content: carry({ signature: 'sig-1' }) },
        { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'toolu_1' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'README.md' },
        // OpenAI's own encrypted reasoning (from an earlier turn on an OpenAI channel) means nothing elsewhere.
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABopenai' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'There is a README.', annotations: [] }] },
      ],
      tools: [{ type: 'function', name: 'shell', description: 'Runs a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array' } } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'high', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
    });
    expect(request.system.map((p) => p.text)).toEqual(['You are a coding agent.', '<permissions>']);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '<environment_context>' }, { type: 'text', text: 'List the files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should run ls.', signature: 'sig-1' },
          { type: 'tool_call', id: 'toolu_1', name: 'shell', arguments: '{"command":["ls"]}' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', callId: 'toolu_1', name: 'shell', content: [{ type: 'text', text: 'README.md' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'There is a README.' }] },
    ]);
    expect(request).toMatchObject({ stream: true, parallelToolCalls: false, toolChoice: { type: 'auto' }, reasoning: { effort: 'high' }, tools: [{ name: 'shell', description: 'Runs a command' }] });
  });

  it('maps tool_choice, allowed tools, efforts and structured output', () => {
    const tools = [
      { type: 'function', name: 'a', parameters: {} },
      { type: 'function', name: 'b', parameters: {} },
    ];
    expect(responses.parseRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'b' } }).toolChoice).toEqual({ type: 'tool', name: 'b' });
    const allowed = responses.parseRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }] } });
    expect({ tools: allowed.tools.map((t) => t.name), choice: allowed.toolChoice }).toEqual({ tools: ['a'], choice: { type: 'required' } });
    expect(responses.parseRequest({ model: 'm', input: 'x', reasoning: { effort: 'none' } }).reasoning).toEqual({ enabled: false });
    expect(responses.parseRequest({ model: 'm', input: 'x', reasoning: { effort: 'xhigh' } }).reasoning).toEqual({ effort: 'high' });
    const format = { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true };
    expect(responses.parseRequest({ model: 'm', input: 'x', text: { format } }).responseFormat).toEqual(format);
    expect(responses.parseRequest({ model: 'm', input: 'x', max_output_tokens: 300, temperature: 0.2, top_p: 0.9 })).toMatchObject({ maxOutputTokens: 300, temperature: 0.2, topP: 0.9 });
  });

  it("custom (free-text) tools, as Codex CLI's apply_patch: a function with one string `input`, the grammar in its description; calls and outputs round trip", () => {
    const grammar = 'start: begin_patch hunk+ end_patch';
    const request = responses.parseRequest({
      model: 'gpt-5',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the typo' }] },
        { type: 'custom_tool_call', call_id: 'call_1', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
        { type: 'custom_tool_call_output', call_id: 'call_1', output: 'Done!' },
      ],
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Edits files.', format: { type: 'grammar', syntax: 'lark', definition: grammar } }],
      tool_choice: { type: 'custom', name: 'apply_patch' },
    });
    expect(request.tools).toEqual([{ name: 'apply_patch', description: `Edits files.\n\nThe input must follow this lark grammar:\n${grammar}`, parameters: FREEFORM_PARAMETERS }]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'apply_patch' });
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch' }) }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', name: 'apply_patch', content: [{ type: 'text', text: 'Done!' }] }] },
    ]);
    // The facts tell the writers which calls go back as custom_tool_call items.
    expect(responses.inspect({ model: 'gpt-5', input: 'x', tools: [{ type: 'function', name: 'shell' }, { type: 'custom', name: 'apply_patch' }] }, mediaBoundsFor).clientTools).toEqual([['apply_patch', { kind: 'custom', name: 'apply_patch' }]]);
    expect(responses.inspect({ model: 'gpt-5', input: 'x' }, mediaBoundsFor).clientTools).toBeUndefined();
  });

  it('refuses what only OpenAI can do with a clear 400', () => {
    expect(refusal({ tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] })).toContain('file_search');
    expect(refusal({ tools: [{ type: 'custom' }] })).toContain('name');
    expect(refusal({ input: [{ type: 'custom_tool_call', call_id: 'c1', input: 'x' }] })).toContain('custom_tool_call');
    expect(refusal({ tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }] })).toContain('namespace');
    expect(refusal({ tool_choice: { type: 'web_search_preview' } })).toContain('web_search_preview');
    expect(refusal({ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] })).toContain('code_interpreter');
    expect(refusal({ previous_response_id: 'resp_1' })).toContain('previous_response_id');
    expect(refusal({ conversation: 'conv_1' })).toContain('conversation');
    expect(refusal({ prompt: { id: 'pmpt_1' } })).toContain('prompt');
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_1' }] })).toContain('item_reference');
    expect(refusal({ input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] })).toContain('web_search_call');
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] })).toContain('input_file');
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] })).toContain('file_id');
    expect(refusal({ input: [] })).toContain('input');
    expect(refusal({ input: [{ type: 'function_call_output', output: 'x' }] })).toContain('call_id');
    expect(refusal({ model: '' })).toContain('model');
  });
});

describe('a canonical request written for a Responses upstream', () => {
  it('an Anthropic conversation becomes a body OpenAI takes: non-strict tools, outputs after their calls, reasoning only for reasoning models', () => {
    const canonical = anthropicDialect.parseRequest({
      model: 'o4-mini',
      max_tokens: 2048,
      system: 'Be brief.',
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '15°C' }, { type: 'text', text: 'Thanks' }] },
      ],
    });
    const body = responses.buildRequest(canonical);
    expect(responsesProblem(body, responsesMemory())).toBeUndefined();
    expect(body).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 2048,
      reasoning: { effort: 'low' },
      store: false,
      tools: [{ type: 'function', name: 'get_weather', strict: false }],
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
        { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: '15°C' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
    });
    expect(responses.buildRequest({ ...canonical, model: 'gpt-4.1' }).reasoning).toBeUndefined();
  });

  it('thinking signatures, redacted thinking and tool-call signatures survive a Responses client round trip', () => {
    const canonical = responses.parseRequest({ model: 'm', input: 'x' });
    canonical.messages.push(
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }, { type: 'reasoning', text: '', redacted: 'opaque' }, { type: 'tool_call', id: 'c1', name: 'f', arguments: '{}', signature: 'thought-sig' }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', name: 'f', content: [{ type: 'text', text: 'ok' }] }] },
    );
    expect(responses.parseRequest(responses.buildRequest(canonical))).toEqual(canonical);
  });
});
