import { describe, expect, it } from 'vitest';
import { checkRegistration } from './register-validation';

describe('registration checks (docs/console.md §5)', () => {
  // covers S5-VALID-01
  it('sends nothing unless username and password are filled', () => {
    expect(checkRegistration({ username: '', password: 'password1', password2: 'password1' })).toBe('empty');
    expect(checkRegistration({ username: 'amy', password: '', password2: '' })).toBe('empty');
  });
  // covers S5-VALID-02
  it('a password shorter than 8 gives 密码长度不得小于 8 位！', () => {
    expect(checkRegistration({ username: 'amy', password: 'short', password2: 'short' })).toBe('密码长度不得小于 8 位！');
  });
  // covers S5-VALID-03
  it('differing passwords give 两次输入的密码不一致', () => {
    expect(checkRegistration({ username: 'amy', password: 'password1', password2: 'password2' })).toBe('两次输入的密码不一致');
    expect(checkRegistration({ username: 'amy', password: 'password1', password2: 'password1' })).toBe('ok');
  });
});
