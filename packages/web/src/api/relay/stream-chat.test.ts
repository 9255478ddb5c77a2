import { describe, expect, it } from 'vitest';
import { parseSse } from './stream-chat';

describe('server-sent events', () => {
  it('hands on complete events only, keeping the unfinished rest for the next chunk', () => {
    expect(parseSse('data: {"a":1}\n\ndata: {"b"')).toEqual({ data: ['{"a":1}'], rest: 'data: {"b"' });
    expect(parseSse('data: {"b":2}\n\n: keep-alive comment\n\nevent: x\ndata: [DONE]\n\n')).toEqual({ data: ['{"b":2}', '[DONE]'], rest: '' });
  });
  it('reads CRLF streams and multi-line data', () => {
    expect(parseSse('data: one\r\ndata: two\r\n\r\n')).toEqual({ data: ['one\ntwo'], rest: '' });
    expect(parseSse('data:tight\n\n')).toEqual({ data: ['tight'], rest: '' });
  });
});
