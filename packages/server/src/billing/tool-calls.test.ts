import { describe, expect, it } from 'vitest';
import { TOOL_CALL_PRICES, toolCallPrice, toolCallsOf } from './tool-calls.js';

/** Provider-run tools billed per call (billing/tool-calls.ts): what is counted, and at what price. */
describe('tool calls billed per call', () => {
  it('counts file searches, containers (not runs of code) and the images made, by quality and size', () => {
    expect(
      toolCallsOf([
        { type: 'file_search_call', id: 'fs_1' },
        { type: 'file_search_call', id: 'fs_2' },
        { type: 'code_interpreter_call', id: 'ci_1', container_id: 'cntr_a' },
        { type: 'code_interpreter_call', id: 'ci_2', container_id: 'cntr_a' },
        { type: 'code_interpreter_call', id: 'ci_3', container_id: 'cntr_b' },
        { type: 'image_generation_call', id: 'ig_1', status: 'completed', quality: 'high', size: '1536x1024' },
        { type: 'image_generation_call', id: 'ig_2', status: 'failed', quality: 'high', size: '1536x1024' },
        { type: 'image_generation_call', id: 'ig_3', status: 'completed' },
        { type: 'web_search_call', id: 'ws_1' },
        { type: 'message', id: 'msg_1' },
      ]),
    ).toEqual({ file_search: 2, code_interpreter: 2, 'image_generation:high:1536x1024': 1, 'image_generation:auto:auto': 1 });
    expect(toolCallsOf([{ type: 'message' }])).toBeUndefined();
    expect(toolCallsOf(undefined)).toBeUndefined();
  });

  it("prices a call at the admin's price, else OpenAI's; an image of unknown quality or size at the dearest image", () => {
    expect(toolCallPrice('file_search', {})).toBe(2.5);
    expect(toolCallPrice('file_search', { file_search: 3 })).toBe(3);
    expect(toolCallPrice('image_generation:low:1024x1024', {})).toBe(11);
    expect(toolCallPrice('image_generation:auto:auto', {})).toBe(250);
    expect(toolCallPrice('image_generation:xhigh:2048x2048', { 'image_generation:high:1536x1024': 300 })).toBe(300);
    expect(toolCallPrice('__proto__', {})).toBe(0);
    expect(Object.values(TOOL_CALL_PRICES).every((price) => price > 0)).toBe(true);
  });
});
