import { useCallback, useEffect, useState } from 'react';
import { getOptions } from '../../api/options/get-options';
import { updateOption } from '../../api/options/update-option';
import { loadStatus } from '../../lib/session';

export type OptionMap = Record<string, string>;

/** Loads GET /api/option/ as a map and saves single keys with PUT /api/option/. */
export function useOptions() {
  const [options, setOptions] = useState<OptionMap>({});
  const [loaded, setLoaded] = useState(false);

  const reload = useCallback(async () => {
    const res = await getOptions();
    if (res.success && res.data) setOptions(Object.fromEntries(res.data.map((o) => [o.key, o.value])));
    setLoaded(true);
  }, []);

  useEffect(() => {
    reload().catch(() => setLoaded(true));
  }, [reload]);

  /** Saves one key; returns whether the server accepted it (its message is shown otherwise). */
  const save = useCallback(async (key: string, value: string): Promise<boolean> => {
    const res = await updateOption(key, value);
    if (res.success) {
      setOptions((current) => ({ ...current, [key]: value }));
      return true;
    }
    return false;
  }, []);

  /** Saves several keys in order, stopping at the first refusal; refreshes the cached status afterwards. */
  const saveMany = useCallback(
    async (entries: Array<[string, string]>): Promise<boolean> => {
      for (const [key, value] of entries) if (!(await save(key, value))) return false;
      await loadStatus();
      return true;
    },
    [save],
  );

  return { options, loaded, save, saveMany, reload };
}
