/**
 * What the hostile-input suite sends (issue 10, must-have 5): values of the wrong type, out of range, huge,
 * invisible, SQL-like; malformed JSON; odd content types; bad ids and page numbers. Built once, up front, so
 * the driver spends no time on them while the gateway is being measured.
 */

const MEGABYTE = 1024 * 1024;
const deep = (levels: number, leaf: unknown = 1): unknown => (levels === 0 ? leaf : [deep(levels - 1, leaf)]);

/** Hostile values for any field (each sent in every field at once, and in one field of a plausible body). */
export const HOSTILE_VALUES: Array<{ label: string; value: unknown }> = [
  { label: 'null', value: null },
  { label: 'true', value: true },
  { label: 'false', value: false },
  { label: 'zero', value: 0 },
  { label: 'negative', value: -1 },
  { label: 'fraction', value: 1.5 },
  { label: 'tiny fraction', value: -0.0001 },
  { label: '1e308', value: 1e308 },
  { label: '-1e308', value: -1e308 },
  { label: '2^53+', value: 2 ** 53 + 2 },
  { label: '2^63', value: 2 ** 63 },
  { label: '"2^63"', value: '9223372036854775808' },
  { label: '"1e308"', value: '1e308' },
  { label: '"0x1"', value: '0x1' },
  { label: '" 1 "', value: ' 1 ' },
  { label: 'empty string', value: '' },
  { label: 'blank', value: '   ' },
  { label: 'empty array', value: [] },
  { label: 'array', value: [1, 'a'] },
  { label: 'empty object', value: {} },
  { label: 'object', value: { a: { b: 1 } } },
  { label: 'nested 100', value: deep(100) },
  { label: 'NUL', value: '\u0000' },
  { label: 'NUL inside', value: 'ab\u0000cd' },
  { label: 'bidi override', value: 'a\u202eb' },
  { label: 'zero width', value: 'root\u200b' },
  { label: 'cyrillic look-alike', value: 'r\u043e\u043et' },
  { label: 'lone surrogate', value: '\ud800' },
  { label: 'emoji', value: '😀'.repeat(50) },
  { label: 'CJK and whitespace', value: '额度\t\n\r ' },
  { label: 'terminal escape', value: '\u0007\u001b[31mred' },
  { label: 'SQL quote', value: "' OR '1'='1" },
  { label: 'SQL drop', value: '1; DROP TABLE users; --' },
  { label: 'SQL like', value: "%' OR 1=1 --" },
  { label: 'SQL sleep', value: "'; SELECT pg_sleep(3); SELECT SLEEP(3); --" },
  { label: 'backslashes', value: '\\\\\\' },
  { label: 'template', value: '${7*7}{{7*7}}' },
  { label: 'HTML', value: '<script>alert(1)</script>' },
  { label: 'path', value: '../../etc/passwd' },
  { label: '__proto__ text', value: '__proto__' },
  { label: 'constructor text', value: 'constructor' },
  { label: 'long', value: 'x'.repeat(5000) },
];

/**
 * The values where the three databases differ (NUL and broken surrogates in text, 4-byte characters,
 * column lengths, integer ranges): what the server databases get.
 */
export const DATABASE_VALUE_LABELS = new Set(['NUL', 'NUL inside', 'lone surrogate', 'emoji', 'long', '1e308', '"1e308"', '2^63', '"2^63"', '2^53+', 'negative', 'CJK and whitespace', 'SQL quote']);
/** Fields that reach a column or a query (the rest are read by nobody or only by the relay's parser). */
export const DATABASE_FIELDS = ['id', 'username', 'display_name', 'email', 'group', 'quota', 'status', 'name', 'key', 'type', 'models', 'model_mapping', 'priority', 'weight', 'remain_quota', 'expired_time', 'subnet', 'value', 'aff_code', 'model'];
export const DATABASE_QUERY_VALUES = ['1e308', '9223372036854775808', '99999999999999999999999', '%00', "' OR '1'='1", 'x'.repeat(300)];
export const DATABASE_BAD_IDS = ['0', '1e308', '9223372036854775808', '99999999999', '%00'];

/** Values too big to put in every field at once: sent one field at a time. */
export const HUGE_VALUES: Array<{ label: string; value: unknown }> = [
  { label: '1 MB string', value: 'x'.repeat(MEGABYTE) },
  { label: '1 MB CJK string', value: '额'.repeat(MEGABYTE / 3) },
  { label: '100k-element array', value: Array.from({ length: 100_000 }, (_, i) => i) },
];

/** Field names the routes read (and some they do not): every hostile body sets them. */
export const FIELDS = [
  'id', 'username', 'password', 'password2', 'display_name', 'email', 'group', 'quota', 'role', 'status', 'action',
  'name', 'key', 'type', 'base_url', 'other', 'model_mapping', 'models', 'config', 'system_prompt', 'priority', 'weight',
  'remain_quota', 'unlimited_quota', 'expired_time', 'subnet', 'value', 'count', 'aff_code', 'verification_code',
  'token', 'code', 'state', 'model', 'messages', 'prompt', 'input', 'stream', 'max_tokens', 'n', 'size', 'voice',
  'stream_options', 'tools', 'temperature', 'file',
];

/** A body that passes most checks, so one hostile field at a time gets past the first refusal. */
export function plausibleBody(ids: { id: number }): Record<string, unknown> {
  return {
    id: ids.id,
    username: 'hostile_new',
    password: 'password123',
    password2: 'password123',
    display_name: 'Hostile',
    email: '',
    group: 'default',
    quota: 10,
    status: 2,
    action: 'disable',
    name: 'hostile',
    key: 'hostile-key',
    type: 1,
    models: 'gpt-4o-mini',
    remain_quota: 10,
    unlimited_quota: false,
    expired_time: -1,
    value: 'x',
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'hi' }],
    prompt: 'hi',
    input: 'hi',
    max_tokens: 5,
  };
}

/** Unknown and prototype-shaped fields. */
export const UNKNOWN_FIELDS = { zzz: 1, hasOwnProperty: 'x', toString: 'x', valueOf: 1, prototype: {}, __defineGetter__: 'x' };

/** Raw bodies: malformed JSON and JSON that is not an object. */
export const RAW_BODIES: Array<{ label: string; contentType: string; body: string | Buffer }> = [
  ...['{', '{"a":', '[', '"', 'nul', '{"a":1}}', '{"a":1,}', "{'a':1}", '\u0000', '1e999', 'true', '[]', '"text"', '-', '{"a":"\\ud800"}', '{"a":"\\u0000"}']
    .map((body) => ({ label: `JSON ${JSON.stringify(body)}`, contentType: 'application/json', body })),
  { label: '__proto__ key', contentType: 'application/json', body: '{"__proto__":{"role":100},"name":"x"}' },
  { label: 'constructor.prototype', contentType: 'application/json', body: '{"constructor":{"prototype":{"role":100}}}' },
  { label: 'nesting past the limit', contentType: 'application/json', body: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}` },
  { label: 'nesting 100k', contentType: 'application/json', body: '['.repeat(100_000) + ']'.repeat(100_000) },
  { label: 'binary', contentType: 'application/json', body: Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b]) },
  { label: 'text/plain', contentType: 'text/plain', body: 'name=x' },
  { label: 'form', contentType: 'application/x-www-form-urlencoded', body: 'name=x&id=1' },
  { label: 'multipart garbage', contentType: 'multipart/form-data; boundary=zz', body: '--zz\r\nContent-Disposition: form-data; name="model"\r\n\r\nx\r\n' },
  { label: 'odd content type', contentType: 'application/xml', body: '<a/>' },
  { label: 'content type with junk', contentType: 'application/json; charset=ebcdic', body: '{}' },
];

/** Query-string values for every parameter a route might read. */
export const QUERY_NAMES = ['p', 'keyword', 'order', 'type', 'status_only', 'scope', 'model', 'target_timestamp', 'start_timestamp', 'end_timestamp', 'username', 'token_name', 'model_name', 'channel', 'id', 'email', 'turnstile', 'code', 'state'];
export const QUERY_VALUES = [
  '', '-1', '1.5', '1e308', '9223372036854775808', '99999999999999999999999', '0x1', ' 1 ', 'abc', 'NaN', 'Infinity', 'true', '[]', '{}',
  '%00', "' OR '1'='1", '1; DROP TABLE users; --', '%25', '😀', '\u202e', 'x'.repeat(4000),
];

/** Path ids: only a positive integer names a row. */
export const BAD_IDS = ['0', '-1', '1.5', '0x1', '%201%20', '1e308', '9223372036854775808', '99999999999', 'abc', '%00', "1'%20OR%20'1'='1", '__proto__', 'x'.repeat(2000)];
export const BAD_MODELS = ['__proto__', 'constructor', 'hasOwnProperty', '%00', "x'%20OR%201=1", 'x'.repeat(2000)];
