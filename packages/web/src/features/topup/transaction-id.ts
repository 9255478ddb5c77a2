/** A random UUID v4 for the top-up link; crypto.randomUUID needs HTTPS, getRandomValues does not. */
export function newTransactionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The external top-up link with the user's name, id and a fresh transaction id in its query. */
export function topUpUrl(link: string, user: { username: string; id: number }, transactionId = newTransactionId()): string {
  const params = new URLSearchParams({ username: user.username, user_id: String(user.id), transaction_id: transactionId });
  const [base, hash] = link.split('#', 2);
  const joined = `${base}${base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?'}${params.toString()}`;
  return hash === undefined ? joined : `${joined}#${hash}`;
}
