import { z } from 'zod';

/**
 * Strict input primitives for every /api schema, shared by the server and the console.
 *
 * Why strict: `z.coerce` turned `true` into id 1, `null` / `""` / `[]` into quota 0 and `"false"` into an
 * unlimited key; `Number(" 15 ")` and `Number("0xf")` became 15. Here an id is a positive integer and nothing
 * else, a boolean is a JSON boolean, an integer is a JSON number or its canonical decimal text (query strings
 * and path parameters are text), and every stored string has a size limit that fits its column on all three
 * databases (MySQL's TEXT holds 65,535 bytes; varchar(n) holds n characters).
 */

/** Canonical decimal integer text: "0", "15", "-3". No spaces, "+", hex, exponents or leading zeros. */
export const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
/** Largest row id: ids are 32-bit integer columns (PostgreSQL refuses a larger value even in a comparison). */
export const ID_MAX = 2147483647;
/** What a TEXT column holds on MySQL / MariaDB, in UTF-8 bytes. */
export const TEXT_COLUMN_MAX_BYTES = 65535;

/**
 * C0 controls other than tab, line feed and carriage return; DEL; C1 controls. NUL in particular is refused by
 * PostgreSQL, so a string holding one would fail deep in the write path instead of at the door.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
const LINE_BREAK = /[\t\n\r\u2028\u2029]/;
/** A UTF-16 surrogate without its partner: not a character; databases would store U+FFFD instead. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Length of `text` in UTF-8 bytes, without allocating (the console has no Buffer). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

export const InputMessages = {
  notObject: '请求体必须是 JSON 对象',
  controlCharacters: (field: string) => `参数 ${field} 含有不允许的控制字符`,
  tooLong: (field: string, max: number) => `参数 ${field} 过长（最多 ${max} 个字符）`,
  tooManyBytes: (field: string, max: number) => `参数 ${field} 过长（最多 ${max} 字节）`,
  integer: (field: string) => `参数 ${field} 必须是整数`,
  range: (field: string, min: number, max: number) => `参数 ${field} 必须是 ${min} 到 ${max} 之间的整数`,
  boolean: (field: string) => `参数 ${field} 必须是 true 或 false`,
  id: (label: string) => `无效的${label} ID`,
} as const;

export interface IntegerOptions {
  min?: number;
  max?: number;
  /** Message for every failure (type, format, range); a Chinese default names the field. */
  message?: string;
}

/** Turns canonical integer text into a number; anything else passes through unchanged for the number check. */
function integerText(value: unknown): unknown {
  if (typeof value === 'string' && INTEGER_TEXT.test(value) && value.length <= 17) return Number(value);
  return value;
}

/**
 * An integer: a JSON number that is a safe integer, or its canonical decimal text. `null`, `""`, `[]`, booleans,
 * `" 15 "`, `"0xf"`, `"1e3"`, `1.5`, `1e308` are refused with one Chinese message.
 */
export function integerInput(field: string, options: IntegerOptions = {}) {
  const min = options.min ?? Number.MIN_SAFE_INTEGER;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const message =
    options.message ?? (options.min === undefined && options.max === undefined ? InputMessages.integer(field) : InputMessages.range(field, min, max));
  return z.preprocess(integerText, z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }));
}

/** A row id: a positive integer up to ID_MAX (or its canonical text, as in a path), nothing else. */
export function idInput(label: string) {
  return integerInput('id', { min: 1, max: ID_MAX, message: InputMessages.id(label) });
}

/** The id a search keyword names ("15"), or undefined when it is not a canonical id. */
export function idFromKeyword(keyword: string): number | undefined {
  if (!/^[1-9]\d{0,9}$/.test(keyword)) return undefined;
  const id = Number(keyword);
  return id <= ID_MAX ? id : undefined;
}

/** A JSON boolean. The strings "true" / "false", 0 and 1 are refused: they are not booleans. */
export function booleanInput(field: string) {
  return z.boolean({ error: InputMessages.boolean(field) });
}

export interface TextOptions {
  /** Most characters (UTF-16 units, so never more code points than a varchar(n) of the same n holds). */
  max: number;
  /** Most UTF-8 bytes; for TEXT columns (TEXT_COLUMN_MAX_BYTES on MySQL). */
  maxBytes?: number;
  /** Allow tab, line feed and carriage return (text areas). Other control characters are always refused. */
  multiline?: boolean;
  /** Trim surrounding white space before the checks (default true). */
  trim?: boolean;
  /** Message when the value is too long. */
  tooLong?: string;
}

/** Problems of a string value, as a Chinese message, or undefined when it is acceptable. */
export function textProblem(value: string, field: string, options: TextOptions): string | undefined {
  if (value.length > options.max) return options.tooLong ?? InputMessages.tooLong(field, options.max);
  if (options.maxBytes !== undefined && utf8Length(value) > options.maxBytes) return options.tooLong ?? InputMessages.tooManyBytes(field, options.maxBytes);
  if (CONTROL.test(value) || LONE_SURROGATE.test(value) || (!options.multiline && LINE_BREAK.test(value))) return InputMessages.controlCharacters(field);
  return undefined;
}

/**
 * A stored string: a JSON string (numbers and null are refused), trimmed unless told otherwise, within its
 * size limit, without control characters or broken surrogates. The length is checked before anything else
 * touches the text, so a megabyte string is refused at once.
 */
export function textInput(field: string, options: TextOptions) {
  const trim = options.trim ?? true;
  return z
    .string({ error: `参数 ${field} 必须是字符串` })
    .transform((value, ctx) => {
      // Refuse absurd sizes before trimming or scanning them.
      if (value.length > options.max * 2 + 1024) {
        ctx.addIssue({ code: 'custom', message: options.tooLong ?? InputMessages.tooLong(field, options.max) });
        return z.NEVER;
      }
      const text = trim ? value.trim() : value;
      const problem = textProblem(text, field, options);
      if (problem) {
        ctx.addIssue({ code: 'custom', message: problem });
        return z.NEVER;
      }
      return text;
    });
}

const TYPE_NAMES: Record<string, string> = {
  string: '字符串',
  number: '数字',
  int: '整数',
  boolean: 'true 或 false',
  object: '对象',
  array: '数组',
  bigint: '整数',
};

/**
 * A Chinese message for a zod issue that has no message of our own: the field and what was expected.
 * Never zod's English internals ("Too big: expected int to be <=9007199254740991").
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join('.');
  if (!field && issue.code === 'invalid_type') return InputMessages.notObject;
  const name = field || '输入';
  switch (issue.code) {
    case 'invalid_type':
      return `参数 ${name} 类型错误，应为${TYPE_NAMES[issue.expected] ?? '其他类型'}`;
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? InputMessages.tooLong(name, Number(issue.maximum))
        : `参数 ${name} 不能大于 ${String(issue.maximum)}`;
    case 'too_small':
      if ((issue.origin === 'string' || issue.origin === 'array') && Number(issue.minimum) <= 1) return `参数 ${name} 不能为空`;
      return issue.origin === 'string' || issue.origin === 'array'
        ? `参数 ${name} 过短（至少 ${String(issue.minimum)} 个字符）`
        : `参数 ${name} 不能小于 ${String(issue.minimum)}`;
    case 'invalid_format':
      return `参数 ${name} 格式不正确`;
    case 'invalid_value':
      return `参数 ${name} 的取值不在允许范围内`;
    case 'invalid_union': {
      const inner = issue.errors.flat().find((nested) => CJK.test(nested.message));
      return inner ? inner.message : `参数 ${name} 不合法`;
    }
    case 'unrecognized_keys':
      return `不支持的参数：${issue.keys.join('、')}`;
    default:
      return `参数 ${name} 不合法`;
  }
}

const CJK = /[\u3400-\u9fff\uff00-\uffef]/;

/** The first issue's message for a one-line Chinese error toast: our own message, else a Chinese description. */
export function firstIssueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return '输入不合法';
  return issue.message && CJK.test(issue.message) ? issue.message : describeIssue(issue);
}
