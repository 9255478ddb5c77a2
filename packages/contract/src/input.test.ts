import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { booleanInput, describeIssue, firstIssueMessage, idFromKeyword, idInput, integerInput, textInput, utf8Length } from './input.js';
import { channelInputSchema, channelPatchSchema } from './channels.js';
import { optionValueProblem } from './options.js';
import { tokenInputSchema, tokenStatusSchema } from './tokens.js';
import { updateUserSchema } from './users.js';

const message = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? undefined : firstIssueMessage(result.error);
};

// covers issue 10 defect 8 (loose coercion) and the "strict ids and numbers" must-have
describe('strict ids, integers and booleans', () => {
  it('an id is a positive integer and nothing else', () => {
    const id = idInput('用户');
    expect(id.parse(15)).toBe(15);
    expect(id.parse('15')).toBe(15);
    for (const bad of [true, false, [15], '0xf', ' 15 ', '15 ', '+15', '015', '1e1', 1.5, 0, -1, null, '', {}, 2 ** 31, Number.MAX_SAFE_INTEGER + 2]) {
      expect(id.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(message(z.object({ id }), { id: true })).toBe('无效的用户 ID');
  });

  it('quota: null, "", [] and booleans are refused, not read as 0 or 1', () => {
    for (const quota of [null, '', [], true, '1.0', 1e308, -1, 2 ** 53]) {
      expect(updateUserSchema.safeParse({ id: 2, quota }).success, JSON.stringify(quota)).toBe(false);
    }
    expect(updateUserSchema.parse({ id: 2, quota: 0 }).quota).toBe(0);
    expect(updateUserSchema.parse({ id: 2, quota: '42' }).quota).toBe(42);
  });

  it('booleans are booleans: "false" does not make an unlimited key', () => {
    expect(message(tokenInputSchema, { name: 'k', unlimited_quota: 'false' })).toBe('参数 unlimited_quota 必须是 true 或 false');
    expect(tokenInputSchema.safeParse({ name: 'k', unlimited_quota: 1 }).success).toBe(false);
    expect(tokenInputSchema.parse({ name: 'k', unlimited_quota: true }).unlimited_quota).toBe(true);
    expect(booleanInput('x').safeParse('true').success).toBe(false);
  });

  it('status fields take only their values', () => {
    expect(tokenStatusSchema.safeParse({ id: 1, status: true }).success).toBe(false);
    expect(tokenStatusSchema.safeParse({ id: 1, status: 4 }).success).toBe(false);
    expect(tokenStatusSchema.parse({ id: 1, status: 2 })).toEqual({ id: 1, status: 2 });
    expect(channelPatchSchema.safeParse({ id: 1, status: [1] }).success).toBe(false);
    expect(channelPatchSchema.parse({ id: 1, priority: null, weight: '' })).toEqual({ id: 1 });
  });

  it('messages are Chinese, never zod internals', () => {
    expect(message(integerInput('n'), 1e308)).toBe('参数 n 必须是整数');
    const issue = z.object({ q: z.number().int() }).safeParse({ q: 1e308 }).error!.issues[0];
    expect(issue.message).toContain('Too big');
    expect(describeIssue(issue)).toBe('参数 q 不能大于 9007199254740991');
    expect(message(z.object({ a: z.string() }), { a: 1 })).toBe('参数 a 类型错误，应为字符串');
    expect(message(z.object({ a: z.string() }), [])).toBe('请求体必须是 JSON 对象');
    expect(message(z.object({ e: z.enum(['x']) }), { e: 'y' })).toBe('参数 e 的取值不在允许范围内');
  });

  it('reads an id out of a search keyword only when it is one', () => {
    expect(idFromKeyword('15')).toBe(15);
    expect(idFromKeyword('99999999999')).toBeUndefined();
    expect(idFromKeyword('015')).toBeUndefined();
    expect(idFromKeyword('alice')).toBeUndefined();
  });
});

// covers the "field size limits on every stored field" must-have
describe('text fields', () => {
  it('counts UTF-8 bytes', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('额度')).toBe(6);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('é')).toBe(2);
  });

  it('refuses control characters, broken surrogates and line breaks in one-line fields', () => {
    const name = textInput('name', { max: 30 });
    expect(name.parse('  key one  ')).toBe('key one');
    for (const bad of ['a\u0000b', 'a\u0007', 'a\nb', 'a\u0085', '\ud800x', 1, null]) expect(name.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    const area = textInput('text', { max: 100, multiline: true });
    expect(area.parse('line 1\nline 2\ttab')).toBe('line 1\nline 2\ttab');
    expect(area.safeParse('a\u0000').success).toBe(false);
  });

  it('bounds every stored field: no 20 MB models on a key, no megabyte names', () => {
    const huge = 'x'.repeat(1_000_000);
    expect(message(tokenInputSchema, { name: 'k', models: huge })).toBe('参数 models 过长（最多 8192 个字符）');
    expect(message(tokenInputSchema, { name: huge })).toBe('令牌名称过长');
    expect(message(channelInputSchema, { name: huge })).toBe('参数 name 过长（最多 128 个字符）');
    expect(message(channelInputSchema, { model_mapping: '额'.repeat(30000) })).toBe('参数 model_mapping 过长（最多 65535 字节）');
    expect(message(channelInputSchema, { models: Array.from({ length: 2001 }, (_, i) => `m${i}`).join(',') })).toBe('一个渠道最多 2000 个模型');
    expect(message(channelInputSchema, { models: 'a'.repeat(256) })).toBe('模型名称最多 255 个字符');
    expect(optionValueProblem('SystemName', huge)).toBe('参数 SystemName 过长（最多 2048 个字符）');
    expect(optionValueProblem('HomePageContent', 'x'.repeat(60_000))).toBeUndefined();
    expect(optionValueProblem('HomePageContent', '额'.repeat(30_000))).toBe('参数 HomePageContent 过长（最多 65535 字节）');
    expect(optionValueProblem('Notice', 'a\u0000')).toBe('参数 Notice 含有不允许的控制字符');
  });

  it('refuses unknown channel types', () => {
    expect(message(channelInputSchema, { type: 999 })).toBe('未知的渠道类型');
    expect(message(channelInputSchema, { type: '1e0' })).toBe('未知的渠道类型');
    expect(channelInputSchema.parse({ type: 43 }).type).toBe(43);
  });
});
