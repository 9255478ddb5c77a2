import { RATIO_OPTION_LABELS } from '@model-relay/contract';

/** A text is valid JSON only if it parses (docs/console.md §5). */
export function isValidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Pretty-prints a stored ratio map for editing; '{}' is shown as empty (docs/console.md §5). */
export function ratioForEditing(stored: string | undefined): string {
  if (!stored || stored.trim() === '{}') return '';
  try {
    return JSON.stringify(JSON.parse(stored), null, 2);
  } catch {
    return stored;
  }
}

/** The refusal message for an invalid ratio text, e.g. 模型倍率不是合法的 JSON 字符串. */
export function ratioProblem(key: keyof typeof RATIO_OPTION_LABELS, text: string): string | undefined {
  const value = text.trim() === '' ? '{}' : text;
  return isValidJson(value) ? undefined : `${RATIO_OPTION_LABELS[key]}不是合法的 JSON 字符串`;
}
