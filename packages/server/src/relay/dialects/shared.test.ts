import { describe, expect, it } from 'vitest';
import { collectText, promptBoundOf } from './shared.js';

describe('prompt walks', () => {
  it('a body nested 10,000 deep is measured and collected without overflowing the call stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const parts = [[{ role: 'user', content: 'hello', extra: deep }]];
    expect(() => promptBoundOf(parts, 2000, () => false)).not.toThrow();
    expect(collectText(parts, () => false)).toBe('user\nhello\nbottom');
  });

  it('the bound is at least the UTF-8 bytes of every string, with images at their bound', () => {
    const parts = [[{ role: 'user', content: [{ type: 'text', text: '你好' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] }]];
    const bound = promptBoundOf(parts, 2000, (key) => key === 'image_url');
    expect(bound).toBeGreaterThanOrEqual(2000 + Buffer.byteLength('你好') + Buffer.byteLength('user'));
  });
});
