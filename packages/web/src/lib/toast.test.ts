import { afterEach, describe, expect, it, vi } from 'vitest';

const calls: Array<[string, Record<string, unknown>]> = [];
vi.mock('antd', () => ({
  message: {
    success: (o: Record<string, unknown>) => calls.push(['success', o]),
    info: (o: Record<string, unknown>) => calls.push(['info', o]),
    error: (o: Record<string, unknown>) => calls.push(['error', o]),
    warning: (o: Record<string, unknown>) => calls.push(['warning', o]),
  },
  notification: {
    warning: (o: Record<string, unknown>) => calls.push(['notice', o]),
    info: (o: Record<string, unknown>) => calls.push(['sticky', o]),
  },
}));
const { toast, TOAST_MS } = await import('./toast');

afterEach(() => {
  calls.length = 0;
});

describe('toasts (docs/console.md §9)', () => {
  // covers S9-CONST-01, S9-CONST-02, S9-CONST-03, S9-CONST-04, S9-CONST-05, S9-CONST-06
  it('use the durations of docs/console.md §9; plain info notices stay until dismissed', () => {
    expect(TOAST_MS).toEqual({ success: 1500, info: 3000, error: 5000, warning: 10000, notice: 20000 });
    toast.success('a');
    toast.info('b');
    toast.error('c');
    toast.warning('d');
    toast.notice('e');
    toast.sticky('f');
    expect(calls.map(([kind, o]) => [kind, o.duration])).toEqual([
      ['success', 1.5],
      ['info', 3],
      ['error', 5],
      ['warning', 10],
      ['notice', 20],
      ['sticky', 0],
    ]);
  });

  // covers S9-CONST-07
  it('appear top-center on windows 600 px wide or less', () => {
    Object.defineProperty(window, 'innerWidth', { value: 500, configurable: true });
    toast.notice('narrow');
    Object.defineProperty(window, 'innerWidth', { value: 1280, configurable: true });
    toast.notice('wide');
    expect(calls.map(([, o]) => o.placement)).toEqual(['top', 'bottomRight']);
  });
});
