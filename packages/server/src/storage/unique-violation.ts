/**
 * True when `error` is a unique-constraint violation, in any of the three databases: SQLite
 * (SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY), PostgreSQL (SQLSTATE 23505), MySQL and MariaDB (ER_DUP_ENTRY, 1062).
 * Two requests can pass the same "does it exist yet?" check at once; the constraint decides, and this tells
 * the caller to answer "already exists" instead of failing.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505' || code === 'ER_DUP_ENTRY' || errno === 1062;
}
