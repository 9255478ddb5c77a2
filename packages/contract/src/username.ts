/**
 * Usernames that cannot impersonate each other (issue 10: "root\u200b" and Cyrillic "rооt" were accepted next
 * to "root"). A name is compared and stored in NFKC form (full-width "ｒｏｏｔ" is "root"), and refused when it
 * holds something a reader cannot see or tell apart:
 * - invisible or format characters (zero-width space, joiners, bidi overrides, soft hyphen, fillers), control,
 *   private-use, unassigned and line-separator characters, and any white space but the plain space;
 * - letters of several scripts, except the combinations real names use (Latin with Han and kana, Bopomofo or
 *   Hangul), the "mixed-script confusable" of Unicode TS #39;
 * - a name written only with Cyrillic or Greek letters that look Latin ("рос"), the "whole-script confusable";
 * - digits other than 0-9, and combining marks on Latin, Cyrillic or Greek letters (those have composed forms).
 */

/** NFKC form with surrounding white space removed: the form a username is stored and looked up in. */
export function normaliseUsername(name: string): string {
  return name.trim().normalize('NFKC').trim();
}

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
const WHITE_SPACE_BUT_SPACE = /(?! )\p{White_Space}/u;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/u;
const MARK = /\p{M}/u;

const SCRIPTS = ['Latin', 'Han', 'Hiragana', 'Katakana', 'Bopomofo', 'Hangul', 'Cyrillic', 'Greek', 'Arabic', 'Hebrew', 'Thai', 'Armenian', 'Georgian', 'Devanagari'];
const SCRIPT_TESTS = SCRIPTS.map((script) => [script, new RegExp(`\\p{Script=${script}}`, 'u')] as const);
const LETTER = /\p{L}/u;

/** Script combinations real names use; any other mix of two or more scripts is refused. */
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

/** Cyrillic and Greek letters that look like Latin ones (the prototypes of Unicode's confusables list). */
const LATIN_LOOKALIKES = new Set([
  ...'аАвВеЕкКмМнНоОрРсСтТуУхХѕЅіІјЈԁԛԚԝԜһҺӏӀүҮɡԍ',
  ...'αΑβΒεΕζΖηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧγ',
]);

function scriptOf(char: string): string {
  for (const [script, test] of SCRIPT_TESTS) if (test.test(char)) return script;
  return 'Other';
}

/** Why `name` (already normalised) cannot be a username, in Chinese; undefined when it can. */
export function usernameProblem(name: string): string | undefined {
  if (INVISIBLE.test(name) || WHITE_SPACE_BUT_SPACE.test(name)) return '用户名不能包含不可见字符或控制字符';
  if (NON_ASCII_DIGIT.test(name)) return '用户名中的数字只能使用 0-9';
  const scripts = new Set<string>();
  let allLookalike = true;
  for (const char of name) {
    if (!LETTER.test(char)) continue;
    scripts.add(scriptOf(char));
    if (!LATIN_LOOKALIKES.has(char)) allLookalike = false;
  }
  if (scripts.size > 1 && !ALLOWED_MIXES.some((mix) => [...scripts].every((script) => mix.has(script)))) {
    return '用户名不能混用多种文字（例如拉丁字母与西里尔字母）';
  }
  if ((scripts.has('Latin') || scripts.has('Cyrillic') || scripts.has('Greek')) && MARK.test(name)) return '用户名不能包含组合附加符号';
  if (scripts.size === 1 && (scripts.has('Cyrillic') || scripts.has('Greek')) && allLookalike) return '用户名与拉丁字母写法难以区分，请换一个';
  return undefined;
}
