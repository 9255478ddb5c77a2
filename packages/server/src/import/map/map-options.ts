import { ALL_OPTION_KEYS, BOOLEAN_OPTION_KEYS, RATIO_OPTION_KEYS, isSecretOptionKey, type RatioOptionKey } from '@model-relay/contract';
import { DEFAULT_OPTIONS } from '../../options/defaults.js';
import { OptionStore, parseRatioMap } from '../../options/option-store.js';
import { OptionsRepository } from '../../storage/repositories/options.js';
import type { ImportReport } from '../report/import-report.js';
import { str } from './values.js';

export type MergeMode = 'none' | 'skip' | 'overwrite';

/** Options held in memory: OptionStore validates against it exactly as it validates a console change. */
class MemoryOptions extends OptionsRepository {
  constructor(private readonly stored: Map<string, string>) {
    super(undefined as never);
  }
  override async all(): Promise<Map<string, string>> {
    return new Map(this.stored);
  }
  override async set(key: string, value: string): Promise<void> {
    this.stored.set(key, value);
  }
}

/** Source option names that are ours under another name (new-api's prompt-cache ratios). */
const RENAMED: Record<string, string> = { CacheRatio: 'CacheReadRatio', CreateCacheRatio: 'CacheWriteRatio' };
const ours = new Set<string>(ALL_OPTION_KEYS);
const ratioKeys = new Set<string>(RATIO_OPTION_KEYS);
const booleans = new Set<string>(BOOLEAN_OPTION_KEYS);

/**
 * The option values to write: every source option we have goes through our own validation (OptionStore.set), ratio
 * maps are merged into ours entry by entry, the rest is listed as without an equivalent. On a target that already
 * has settings, --merge=skip keeps what the target set and --merge=overwrite takes the source's.
 */
export async function mapOptions(source: Map<string, string>, targetStored: Map<string, string>, mode: MergeMode, report: ImportReport): Promise<Map<string, string>> {
  const stored = new Map(targetStored);
  const store = new OptionStore(new MemoryOptions(stored));
  await store.load();
  const changes = new Map<string, string>();
  const wanted: Array<[string, string, string]> = [];
  for (const [sourceKey, rawValue] of source) {
    const key = RENAMED[sourceKey] ?? sourceKey;
    if (!ours.has(key)) {
      if (str(rawValue).trim() !== '') report.noEquivalent('options', sourceKey, isSecretOptionKey(sourceKey) ? '（值已隐藏）' : str(rawValue).slice(0, 40));
      continue;
    }
    if (mode === 'skip' && targetStored.has(key) && !ratioKeys.has(key)) {
      report.skip('options', sourceKey, '目标已有此设置（--merge=skip）');
      continue;
    }
    let value = str(rawValue);
    if (ratioKeys.has(key)) {
      const incoming = parseRatioMap(value);
      if (!incoming) {
        report.skip('options', sourceKey, '不是合法的倍率 JSON');
        continue;
      }
      const current = parseRatioMap(targetStored.get(key) ?? DEFAULT_OPTIONS[key as RatioOptionKey]) ?? {};
      const merged = mode === 'skip' && targetStored.has(key) ? { ...incoming, ...current } : { ...current, ...incoming };
      value = JSON.stringify(merged, null, 2);
    }
    wanted.push([sourceKey, key, value]);
  }
  // Switches last: turning one on needs its settings (OptionStore checks, e.g. GitHub OAuth needs the client id).
  wanted.sort((a, b) => Number(booleans.has(a[1])) - Number(booleans.has(b[1])));
  for (const [sourceKey, key, value] of wanted) {
    try {
      await store.set(key, value);
      if (store.get(key as never) !== targetStored.get(key)) changes.set(key, store.get(key as never));
    } catch (error) {
      report.skip('options', sourceKey, `未通过本网关的校验：${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return changes;
}
