import { isRecord, parseEvent } from '../../dialects/shared.js';
import type { ErrorVerdict } from '../types.js';

/**
 * Spark's error codes (https://xfyun.cn/doc/spark/接口说明.html, 关于错误码说明, read 2026-11-23), as what they mean for
 * a relay: the HTTP status they are answered with, whether another channel may answer, and whether this channel's
 * key is dead. Spark sends them in the answer (header.code of a WebSocket frame, `code` of the HTTP API), never as
 * an HTTP status.
 */
interface CodeMeaning {
  status: number;
  retry: boolean;
  disable: boolean;
}

const CONTENT: CodeMeaning = { status: 400, retry: false, disable: false };
const BAD_REQUEST: CodeMeaning = { status: 400, retry: false, disable: false };
const DEAD_KEY: CodeMeaning = { status: 403, retry: true, disable: true };
const LIMITED: CodeMeaning = { status: 429, retry: true, disable: false };
const SERVER: CodeMeaning = { status: 503, retry: true, disable: false };

const CODES: Record<number, CodeMeaning> = {
  // 10013 输入内容审核不通过, 10014 输出内容涉及敏感信息, 10019 会话内容有涉及违规信息的倾向, 10021 输入审核不通过:
  // the conversation's fault; another channel would refuse it too.
  10013: CONTENT, 10014: CONTENT, 10019: CONTENT, 10021: CONTENT,
  // 10003 消息格式有错误, 10163 引擎的schema检查不通过, 10907 token数量超过上限.
  10003: BAD_REQUEST, 10163: BAD_REQUEST, 10907: BAD_REQUEST,
  // 10004 schema错误 / 10005 参数值有错误: a channel of another version may take what this one refused.
  10004: { status: 400, retry: true, disable: false }, 10005: { status: 400, retry: true, disable: false },
  // 10015 appid在黑名单中, 10016 appid授权类的错误 (version not opened, tokens used up), 11200 授权错误 (no licence or
  // its quota exceeded): this key cannot serve.
  10015: DEAD_KEY, 10016: DEAD_KEY, 11200: DEAD_KEY,
  // 10006/10007 the app's concurrency, 11201 日流控超限, 11202 秒级流控超限, 11203 并发流控超限: passing limits.
  10006: LIMITED, 10007: LIMITED, 11201: LIMITED, 11202: LIMITED, 11203: LIMITED,
};

export function meaningOf(code: number): CodeMeaning {
  return CODES[code] ?? SERVER;
}

/** The message a client and the logs see for a Spark error code. */
export const sparkErrorMessage = (code: number, message: string) => `讯飞星火返回错误 ${code}：${message}`;

/**
 * The verdict on a failed Spark call: its code when the body carries one (a WebSocket error frame, the HTTP API's
 * `code`, or the message the relay wrote for it), else its status. A refused WebSocket handshake is 401 for a
 * signature that does not match this key (dead key), 403 for a date outside iFlytek's 300 s window (our clock:
 * retried, not disabled).
 */
export function classifySparkError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const { code, message } = readError(parsed, body);
  if (code !== undefined && code !== 0) {
    const meaning = meaningOf(code);
    return { retry: meaning.retry, disableChannel: meaning.disable, message: message.startsWith('讯飞星火') ? message : sparkErrorMessage(code, message) };
  }
  const text = message || `upstream returned HTTP ${status}`;
  const clock = status === 403 && /date/i.test(text);
  const deadKey = !clock && (status === 401 || status === 403);
  return { retry: deadKey || clock || status === 408 || status === 429 || status >= 500, disableChannel: deadKey, message: text };
}

function readError(parsed: Record<string, unknown> | undefined, body: string): { code?: number; message: string } {
  if (!parsed) return { message: body.trim().slice(0, 300) };
  const header = isRecord(parsed.header) ? parsed.header : undefined;
  const error = isRecord(parsed.error) ? parsed.error : undefined;
  const message = String(header?.message ?? error?.message ?? parsed.message ?? '').slice(0, 300);
  const raw = header?.code ?? parsed.code ?? error?.code;
  let code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : undefined;
  // The relay's own message for a Spark error frame names the code (sparkErrorMessage).
  code ??= Number(/^讯飞星火返回错误 (\d+)：/.exec(message)?.[1] ?? NaN) || undefined;
  return { code, message };
}
