import type { ServerResponse } from 'node:http';
import { fixtures } from './fixtures.js';
import { applyTimingMode, modeOf, sendJson, startMockServer, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local DeepL API (https://developers.deepl.com/docs/api-reference/translate), `POST /v2/translate` only, answering
 * with providers/deepl/__fixtures__. It checks what DeepL checks: `Authorization: DeepL-Auth-Key <key>`, a Free key
 * (`…:fx`) on the Free host and a Pro key on the Pro host (the mock plays one of them, or both), `text` as a
 * non-empty array, a `target_lang` DeepL translates into, the 128 KiB request limit. Errors are DeepL's statuses with
 * `{"message"}`. The key is `<mode>` (Pro) or `<mode>:fx` (Free); `fail-456` uses up the character quota.
 *
 * DeepL does not stream, so `stream-error` means nothing here; `break` cuts the connection before any answer.
 */
const fx = fixtures('deepl');

export type DeepLPlan = 'free' | 'pro';
export interface MockDeepLOptions {
  /** The host the mock plays: api-free.deepl.com takes only `:fx` keys, api.deepl.com only the others. Default: both. */
  plan?: DeepLPlan;
}

/** A key for the mock, carrying the mode; Free keys end in `:fx`. */
export const deeplKey = (mode: MockMode | 'fail-456' | `${MockMode}:${string}` = 'ok', plan: DeepLPlan = 'pro') => (plan === 'free' ? `${mode}:fx` : mode);

/** Target languages of https://developers.deepl.com/docs/getting-started/supported-languages (EN and PT kept for old callers). */
const TARGETS = new Set(
  'AR BG CS DA DE EL EN EN-GB EN-US ES ES-419 ET FI FR HE HU ID IT JA KO LT LV NB NL PL PT PT-BR PT-PT RO RU SK SL SV TH TR UK VI ZH ZH-HANS ZH-HANT'.split(' '),
);
const MAX_REQUEST_BYTES = 128 * 1024;

/** The mock cannot translate: it knows the fixture's sentence and a few greetings, and marks anything else. */
const KNOWN: Record<string, Record<string, string>> = {
  'Hello, World!': { ZH: '你好，世界！', JA: 'こんにちは、世界！', DE: 'Hallo, Welt!' },
  你好: { 'EN-US': 'Hello', 'EN-GB': 'Hello', JA: 'こんにちは' },
  hi: { ZH: '嗨', JA: 'こんにちは', 'EN-US': 'hi' },
};

function translate(text: string, target: string): string {
  const recorded = fx.json('text.upstream.json');
  if (text === recorded.text[0] && target === recorded.target_lang) return fx.json('text.response.json').translations[0].text;
  return KNOWN[text]?.[target] ?? `[${target}] ${text}`;
}

const ERROR_FOR_MODE: Partial<Record<MockMode | 'fail-456', string>> = {
  'fail-400': 'bad_target',
  'fail-401': 'wrong_key',
  'fail-403': 'wrong_key',
  'fail-429': 'too_many_requests',
  'fail-456': 'quota_exceeded',
  'fail-500': 'internal',
  'fail-503': 'unavailable',
};

function sendError(res: ServerResponse, name: string, message?: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, message ? { message } : error.body);
}

/** What DeepL says of a translate body, or null when it takes it. */
export function deeplProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return "Parameter 'text' not specified.";
  const { text, target_lang: target } = body as Record<string, unknown>;
  if (!Array.isArray(text) || text.length === 0 || text.some((t) => typeof t !== 'string')) return "Parameter 'text' not specified.";
  if (typeof target !== 'string' || !target) return "Parameter 'target_lang' not specified.";
  if (!TARGETS.has(target.toUpperCase())) return "Value for 'target_lang' not supported.";
  return null;
}

export async function startMockDeepL(options: MockDeepLOptions = {}): Promise<MockHandle> {
  return startMockServer(async (req, res, recorded) => {
    if (req.method !== 'POST' || recorded.path !== '/v2/translate') return sendJson(res, 404, { message: 'Not found' });
    const key = /^DeepL-Auth-Key\s+(\S+)$/i.exec(String(recorded.headers.authorization ?? ''))?.[1];
    recorded.key = key;
    if (!key) return sendError(res, 'wrong_key');
    const free = key.endsWith(':fx');
    if (options.plan && options.plan !== (free ? 'free' : 'pro')) return sendError(res, 'wrong_endpoint', `Wrong endpoint. Use ${free ? 'https://api-free.deepl.com' : 'https://api.deepl.com'}`);
    const name = key.replace(/:fx$/, '');
    const mode: MockMode | 'fail-456' | undefined = name.split(':')[0] === 'fail-456' ? 'fail-456' : modeOf(name);
    if (!mode) return sendError(res, 'wrong_key');
    recorded.mode = mode === 'fail-456' ? undefined : mode;
    if (mode !== 'fail-456' && (await applyTimingMode(res, mode, false))) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);
    if (recorded.rawBody.length > MAX_REQUEST_BYTES) return sendError(res, 'too_large');
    const problem = deeplProblem(recorded.body);
    if (problem) return sendError(res, problem.includes('target_lang') ? 'bad_target' : 'missing_text', problem);
    const body = recorded.body as { text: string[]; target_lang: string; show_billed_characters?: boolean };
    const target = body.target_lang.toUpperCase();
    const translations = body.text.map((text) => ({
      detected_source_language: [...text].some((c) => c.codePointAt(0)! > 0x24f) ? 'ZH' : 'EN',
      text: translate(text, target),
      // Unicode code points of the source text (https://support.deepl.com/hc/en-us/articles/360020685720).
      ...(body.show_billed_characters === true ? { billed_characters: [...text].length } : {}),
    }));
    sendJson(res, 200, { translations });
  });
}
