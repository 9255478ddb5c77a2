import { describe, expect, it } from 'vitest';
import { SESSION_MAX_AGE_SECONDS, SessionCodec } from './session.js';

describe('SessionCodec', () => {
  const codec = new SessionCodec('secret-a');
  const payload = { uid: 7, iat: 1000, sid: 'abcdefghijklmnopqrstuvwx', sv: 3 };
  it('round-trips a payload', () => {
    const cookie = codec.encode(payload);
    expect(codec.decode(cookie, 1001)).toEqual(payload);
  });
  it('rejects a tampered payload, another secret and an expired session', () => {
    const cookie = codec.encode(payload);
    const [body, sig] = cookie.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...payload, uid: 1 })).toString('base64url');
    expect(codec.decode(`${forgedBody}.${sig}`, 1001)).toBeUndefined();
    expect(new SessionCodec('secret-b').decode(cookie, 1001)).toBeUndefined();
    expect(codec.decode(cookie, 1000 + SESSION_MAX_AGE_SECONDS + 1)).toBeUndefined();
    expect(codec.decode(`${body}`, 1001)).toBeUndefined();
    expect(codec.decode(undefined)).toBeUndefined();
  });
  // covers issue 10 defect 7: a cookie without a session id or version could never be revoked
  it('refuses signed cookies without a session id or version (issued before sessions were revocable)', () => {
    expect(codec.decode(codec.encode({ uid: 7, iat: 1000 } as never), 1001)).toBeUndefined();
    expect(codec.decode(codec.encode({ ...payload, sid: 'short' }), 1001)).toBeUndefined();
    expect(codec.decode(codec.encode({ ...payload, sv: '3' } as never), 1001)).toBeUndefined();
  });
});
