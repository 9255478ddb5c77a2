import { describe, expect, it } from 'vitest';
import { selectChannel } from './select-channel.js';

const c = (id: number, priority: number, weight: number) => ({ id, priority, weight });

describe('selectChannel', () => {
  it('takes the highest priority tier first and falls through to lower tiers as channels are tried', () => {
    const all = [c(1, 0, 1), c(2, 10, 1), c(3, 5, 1)];
    expect(selectChannel(all, new Set())?.id).toBe(2);
    expect(selectChannel(all, new Set([2]))?.id).toBe(3);
    expect(selectChannel(all, new Set([2, 3]))?.id).toBe(1);
    expect(selectChannel(all, new Set([1, 2, 3]))).toBeUndefined();
  });

  it('is weighted random inside a tier', () => {
    const tier = [c(1, 0, 1), c(2, 0, 3)];
    const counts = { 1: 0, 2: 0 };
    for (let i = 0; i < 4000; i++) counts[selectChannel(tier, new Set())!.id as 1 | 2]++;
    expect(counts[2] / counts[1]).toBeGreaterThan(2.4);
    expect(counts[2] / counts[1]).toBeLessThan(3.8);
    expect(selectChannel(tier, new Set(), () => 0)?.id).toBe(1);
    expect(selectChannel(tier, new Set(), () => 0.99)?.id).toBe(2);
  });

  it('all-zero weights give equal chances; a zero weight loses to a positive one', () => {
    expect(selectChannel([c(1, 0, 0), c(2, 0, 0)], new Set(), () => 0.6)?.id).toBe(2);
    expect(selectChannel([c(1, 0, 0), c(2, 0, 5)], new Set(), () => 0)?.id).toBe(2);
  });
});
