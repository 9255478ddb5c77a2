import { describe, expect, it } from 'vitest';
import { isValidJson, ratioForEditing, ratioProblem } from './ratio-json';

describe('ratio JSON (docs/console.md §5)', () => {
  // covers S5-VALID-10
  it('a text is valid only if it parses as JSON', () => {
    expect(isValidJson('{"a":1}')).toBe(true);
    expect(isValidJson('{a:1}')).toBe(false);
  });
  // covers S5-VALID-11, S5-VALID-12, S5-VALID-13
  it('names the ratio that is not valid JSON', () => {
    expect(ratioProblem('ModelRatio', '{bad')).toBe('模型倍率不是合法的 JSON 字符串');
    expect(ratioProblem('GroupRatio', '{bad')).toBe('分组倍率不是合法的 JSON 字符串');
    expect(ratioProblem('CompletionRatio', '{bad')).toBe('补全倍率不是合法的 JSON 字符串');
    expect(ratioProblem('ModelRatio', '{"gpt-4o": 1.25}')).toBeUndefined();
  });
  // covers S5-VALID-14
  it("shows '{}' as empty", () => {
    expect(ratioForEditing('{}')).toBe('');
    expect(ratioForEditing('{"a":1}')).toBe('{\n  "a": 1\n}');
  });
});
