import { normaliseUsername } from '@model-relay/contract';

/**
 * The form two usernames are compared in: NFKC, trimmed, lower case (Unicode-aware, the same on every database).
 * users.username_key holds it and is unique, so names that differ only in letter case are one account.
 */
export function usernameKey(username: string): string {
  return normaliseUsername(username).toLowerCase();
}
