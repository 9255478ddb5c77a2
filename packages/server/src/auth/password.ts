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
