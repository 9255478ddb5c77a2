import { describe, expect, it } from 'vitest';
import { ipFamily, isValidSubnetList, tokenInputSchema } from './tokens.js';

describe('token input', () => {
  it('recognises IPv4 and IPv6 addresses', () => {
    expect(ipFamily('192.168.1.1')).toBe(4);
    expect(ipFamily('256.1.1.1')).toBe(0);
    expect(ipFamily('::1')).toBe(6);
    expect(ipFamily('2001:db8::8a2e:370:7334')).toBe(6);
    expect(ipFamily('::ffff:10.0.0.1')).toBe(6);
    expect(ipFamily('1:2:3:4:5:6:7:8:9')).toBe(0);
    expect(ipFamily('hello')).toBe(0);
  });
  it('validates comma-separated CIDR lists', () => {
    expect(isValidSubnetList('192.168.0.0/16, 10.0.0.1,::1/128')).toBe(true);
    expect(isValidSubnetList('192.168.0.0/33')).toBe(false);
    expect(isValidSubnetList('10.0.0.0/8/1')).toBe(false);
    expect(isValidSubnetList('example.com')).toBe(false);
  });
  it('defaults: quota 500000, never expires', () => {
    expect(tokenInputSchema.parse({ name: 'a' })).toMatchObject({ remain_quota: 500000, expired_time: -1, unlimited_quota: false });
    expect(tokenInputSchema.safeParse({ name: '' }).success).toBe(false);
    expect(tokenInputSchema.safeParse({ name: 'a', subnet: 'nope' }).success).toBe(false);
  });
});
