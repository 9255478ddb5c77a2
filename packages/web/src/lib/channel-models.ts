import { getChannelTypeModels } from '../api/models/get-channel-type-models';
import { StorageKeys } from './storage';

/**
 * Per-type model lists of GET /api/models (docs/console.md §7): cached in memory and in local storage under
 * channel_models; lookups read memory first, then storage, and give an empty list for a missing type.
 */
let memory: Record<string, string[]> | undefined;

export function channelModelsOf(type: number): string[] {
  if (!memory) {
    try {
      memory = JSON.parse(localStorage.getItem(StorageKeys.channelModels) ?? 'null') ?? undefined;
    } catch {
      memory = undefined;
    }
  }
  return memory?.[String(type)] ?? [];
}

export async function loadChannelModels(): Promise<void> {
  const res = await getChannelTypeModels();
  if (!res.success || !res.data) return;
  memory = res.data;
  localStorage.setItem(StorageKeys.channelModels, JSON.stringify(res.data));
}

/** For tests: forget the in-memory copy. */
export function resetChannelModelsMemory(): void {
  memory = undefined;
}
