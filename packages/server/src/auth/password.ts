import { hash, verify } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';

/** New hashes are argon2id; bcrypt hashes imported from one-api still verify. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: 2 /* Argon2id */ });
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (stored.startsWith('$argon2')) return await verify(stored, password);
    if (/^\$2[aby]\$/.test(stored)) return await bcrypt.compare(password, stored);
  } catch {
    return false;
  }
  return false;
}

/**
 * True when a stored hash is not in today's form (argon2id): a bcrypt hash imported from one-api or new-api.
 * Login replaces it with a new hash of the password it just verified (see UserService.login).
 */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith('$argon2id$');
}
