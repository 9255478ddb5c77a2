import { describe, expect, it } from 'vitest';
import { createUserSchema, registerSchema, updateSelfSchema, usernameChangeProblem } from './users.js';
import { firstIssueMessage } from './input.js';
import { normaliseUsername, usernameProblem } from './username.js';

const register = (username: string) => {
  const result = registerSchema.safeParse({ username, password: 'password123' });
  return result.success ? result.data.username : firstIssueMessage(result.error);
};

// covers issue 10 defect 10: look-alike and zero-width usernames
describe('usernames', () => {
  it('are stored in NFKC form', () => {
    expect(normaliseUsername(' ｒｏｏｔ ')).toBe('root');
    expect(register('ｒｏｏｔ')).toBe('root');
    expect(register('Ａｌｉｃｅ１')).toBe('Alice1');
    expect(register('ｶﾀｶﾅ')).toBe('カタカナ');
  });

  it('refuse invisible and format characters', () => {
    for (const name of ['root\u200b', 'ro\u200dot', '\u202eroot', 'ro\ufeffot', 'ro\u00adot', '\u3164', 'a\u2060b', 'a\tb', 'a\u0000']) {
      expect(register(name), JSON.stringify(name)).toBe('用户名不能包含不可见字符或控制字符');
    }
  });

  it('refuse mixed scripts and Latin look-alikes, keep real names', () => {
    expect(register('r\u043e\u043et')).toBe('用户名不能混用多种文字（例如拉丁字母与西里尔字母）'); // Cyrillic о
    expect(register('p\u0430ypal')).toBe('用户名不能混用多种文字（例如拉丁字母与西里尔字母）');
    expect(register('\u0440\u043e\u0441')).toBe('用户名与拉丁字母写法难以区分，请换一个'); // "рос", all Cyrillic
    expect(register('\u03bf\u03bf\u03bf')).toBe('用户名与拉丁字母写法难以区分，请换一个'); // Greek omicrons
    expect(register('ab\u0661')).toBe('用户名中的数字只能使用 0-9'); // Arabic-Indic digit one
    expect(register('root\u0301x')).toBe('用户名不能包含组合附加符号');
    for (const name of ['root', 'alice_01', '张三', '张三abc', 'たなか太郎', '김철수', 'иван', 'Δημήτρης', 'josé', 'a b']) {
      expect(register(name), name).toBe(name.normalize('NFKC'));
    }
    expect(usernameProblem('root')).toBeUndefined();
  });

  it('apply to admin create and rename too', () => {
    expect(createUserSchema.safeParse({ username: 'root\u200b', password: 'password123' }).success).toBe(false);
    // A rename is checked against the account's stored name: a new name must follow the rules, the stored one
    // (an imported account's, up to 20 characters on new-api) is kept as it is.
    const renamed = updateSelfSchema.parse({ username: 'r\u043e\u043et' }).username!;
    expect(usernameChangeProblem(renamed, 'bob')).toBe('用户名不能混用多种文字（例如拉丁字母与西里尔字母）');
    expect(usernameChangeProblem('a_name_of_twenty_chr', 'bob')).toBe('用户名长度不得超过 12 个字符');
    expect(usernameChangeProblem('a_name_of_twenty_chr', 'a_name_of_twenty_chr')).toBeUndefined();
    expect(usernameChangeProblem('', 'bob')).toBe('用户名不能为空');
    expect(updateSelfSchema.parse({ username: 'ｂｏｂ' }).username).toBe('bob');
  });
});
