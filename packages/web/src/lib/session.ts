import { isAdminRole, isRootRole, type StatusObject } from '@model-relay/contract';
import { useSyncExternalStore } from 'react';
import { getStatus } from '../api/status/get-status';
import { getStoredStatus, getStoredUser, storeStatus, subscribeStorage, type StoredUser } from './storage';
import { toast } from './toast';

/** The stored user, re-rendering on login / logout. */
export function useUser(): StoredUser | undefined {
  return useSyncExternalStore(subscribeStorage, getStoredUser);
}

/** The cached status object (refreshed by loadStatus at start). */
export function useStatus(): StatusObject | undefined {
  return useSyncExternalStore(subscribeStorage, getStoredStatus);
}

/** Client-side role checks of docs/console.md §6: only for display; the server enforces everything. */
export const isAdmin = (user = getStoredUser()): boolean => Boolean(user) && isAdminRole(user?.role);
export const isRoot = (user = getStoredUser()): boolean => Boolean(user) && isRootRole(user?.role);

export const DEFAULT_SYSTEM_NAME = 'Model Relay';
export const DEFAULT_LOGO = '/logo.png';

/** Loads /api/status into local storage; tells the user when the server cannot be reached. */
export async function loadStatus(): Promise<void> {
  try {
    const res = await getStatus();
    if (res.success && res.data) storeStatus(res.data);
    else toast.error('无法正常连接至服务器！');
  } catch {
    toast.error('无法正常连接至服务器！');
  }
}
