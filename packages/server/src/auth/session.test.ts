import { describe, expect, it } from 'vitest';
import { SESSION_MAX_AGE_SECONDS, SessionCodec } from './session.js';

describe('SessionCodec', () => {
  const codec = new SessionCodec('secret-a');
  it('round-trips a payload', () => {
    const cookie = codec.encode({ uid: 7, iat: 1000 });
    expect(codec.decode(cookie, 1001)).toEqual({ uid: 7, iat: 1000 });
  });
  it('rejects a tampered payload, another secret and an expired session', () => {
    const cookie = codec.encode({ uid: 7, iat: 1000 });
    const [body, sig] = cookie.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ uid: 1, iat: 1000 })).toString('base64url');
    expect(codec.decode(`${forgedBody}.${sig}`, 1001)).toBeUndefined();
    expect(new SessionCodec('secret-b').decode(cookie, 1001)).toBeUndefined();
    expect(codec.decode(cookie, 1000 + SESSION_MAX_AGE_SECONDS + 1)).toBeUndefined();
    expect(codec.decode(`${body}`, 1001)).toBeUndefined();
    expect(codec.decode(undefined)).toBeUndefined();
  });
});
