import type { StatusObject, UserDto } from '@model-relay/contract';

/** The local-storage keys of docs/console.md §3. */
export const StorageKeys = {
  user: 'user',
  status: 'status',
  aff: 'aff',
  quotaPerUnit: 'quota_per_unit',
  displayInCurrency: 'display_in_currency',
  channelModels: 'channel_models',
  systemName: 'system_name',
  logo: 'logo',
  footerHtml: 'footer_html',
} as const;

export type StoredUser = Pick<UserDto, 'id' | 'username' | 'display_name' | 'role' | 'status'> & Partial<UserDto>;

type Listener = () => void;
const listeners = new Set<Listener>();

/** Subscribes to changes of the stored user / status made through this module (for useSyncExternalStore). */
export function subscribeStorage(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const emit = () => listeners.forEach((l) => l());

function readJson<T>(key: string): T | undefined {
  const text = localStorage.getItem(key);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

let cachedUserText: string | null = null;
let cachedUser: StoredUser | undefined;
/** The current user, kept as JSON under key "user". Referentially stable while unchanged. */
export function getStoredUser(): StoredUser | undefined {
  const text = localStorage.getItem(StorageKeys.user);
  if (text !== cachedUserText) {
    cachedUserText = text;
    cachedUser = readJson<StoredUser>(StorageKeys.user);
  }
  return cachedUser;
}

export function setStoredUser(user: StoredUser | undefined): void {
  if (user) localStorage.setItem(StorageKeys.user, JSON.stringify(user));
  else localStorage.removeItem(StorageKeys.user);
  emit();
}

/**
 * Forgets the user without re-rendering anyone. Used right before navigating to /login: a re-render first
 * would let the route guard of the current page redirect to plain /login (losing ?expired=true). The login
 * page calls refreshStoredUser() when it mounts.
 */
export function forgetUserQuietly(options: { expired?: boolean } = {}): void {
  if (options.expired) expiredSession = true;
  localStorage.removeItem(StorageKeys.user);
}
export function refreshStoredUser(): void {
  expiredSession = false;
  emit();
}

/**
 * The user was forgotten because the server said the session is gone (401). Any screen that notices the
 * missing user before the login page shows (the route guard) sends to /login?expired=true as well, so the
 * visitor always learns why.
 */
let expiredSession = false;
export const isSessionExpired = (): boolean => expiredSession;

let cachedStatusText: string | null = null;
let cachedStatus: StatusObject | undefined;
export function getStoredStatus(): StatusObject | undefined {
  const text = localStorage.getItem(StorageKeys.status);
  if (text !== cachedStatusText) {
    cachedStatusText = text;
    cachedStatus = readJson<StatusObject>(StorageKeys.status);
  }
  return cachedStatus;
}

/** Caches the status object and the fields docs/console.md §3 keeps under their own keys. */
export function storeStatus(status: StatusObject): void {
  localStorage.setItem(StorageKeys.status, JSON.stringify(status));
  localStorage.setItem(StorageKeys.systemName, status.system_name ?? '');
  localStorage.setItem(StorageKeys.logo, status.logo ?? '');
  localStorage.setItem(StorageKeys.footerHtml, status.footer_html ?? '');
  localStorage.setItem(StorageKeys.quotaPerUnit, String(status.quota_per_unit ?? 500000));
  localStorage.setItem(StorageKeys.displayInCurrency, String(Boolean(status.display_in_currency)));
  emit();
}

/** A prompt for a topic is due only while its flag "prompt-{topic}" is not stored. */
export function isPromptDue(topic: string): boolean {
  return localStorage.getItem(`prompt-${topic}`) === null;
}
export function markPromptSeen(topic: string): void {
  localStorage.setItem(`prompt-${topic}`, 'true');
}
