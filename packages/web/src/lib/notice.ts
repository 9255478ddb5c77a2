/**
 * The notice (option Notice) is shown once per content: the hash of the content last dismissed is kept in
 * local storage as the flag of the topic "notice" (prompt-notice), so a changed notice shows again.
 */
const KEY = 'prompt-notice';

/** FNV-1a, 32 bit: a short stable fingerprint of the text (not a security measure). */
export function noticeHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export function isNoticeDue(text: string): boolean {
  return text.trim() !== '' && localStorage.getItem(KEY) !== noticeHash(text);
}

export function markNoticeSeen(text: string): void {
  localStorage.setItem(KEY, noticeHash(text));
}
