import { parseModelFallbacks } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import type { OptionsRepository } from '../storage/repositories/options.js';
import { OptionStore } from './option-store.js';

/** The store over a repository held in memory. */
function store(stored: Record<string, string> = {}) {
  const rows = new Map(Object.entries(stored));
  const repository = { all: async () => new Map(rows), set: async (key: string, value: string) => void rows.set(key, value) } as unknown as OptionsRepository;
  return { options: new OptionStore(repository), rows };
}

describe('OptionStore.parsed', () => {
  it('parses a JSON option once, and again once it changed here or in the database', async () => {
    const { options, rows } = store({ ModelFallbacks: '{"a":["b"]}' });
    await options.load();
    let parses = 0;
    const parse = (text: string) => (parses++, parseModelFallbacks(text));
    expect(options.parsed('ModelFallbacks', parse)).toEqual({ a: ['b'] });
    expect(options.parsed('ModelFallbacks', parse)).toEqual({ a: ['b'] });
    expect(parses).toBe(1);
    await options.set('ModelFallbacks', '{"a":["c"]}');
    expect(options.parsed('ModelFallbacks', parse)).toEqual({ a: ['c'] });
    // Another instance's change, seen when the store reloads.
    rows.set('ModelFallbacks', '{"a":["d"]}');
    await options.load();
    expect(options.parsed('ModelFallbacks', parse)).toEqual({ a: ['d'] });
    expect(parses).toBe(3);
  });
});
