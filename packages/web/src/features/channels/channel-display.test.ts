import { beforeEach, describe, expect, it } from 'vitest';
import { renderBalance, responseTimeColor, testResultDisplay } from './channel-display';

beforeEach(() => {
  localStorage.setItem('display_in_currency', 'true');
  localStorage.setItem('quota_per_unit', '500000');
});

describe('channel list display rules (docs/console.md §9)', () => {
  // covers S9-CONST-09, S9-CONST-10, S9-CONST-11, S9-CONST-12, S9-CONST-13
  it('colours response times: <= 1 s green, <= 3 s olive, <= 5 s yellow, above red; 0 is not tested', () => {
    expect(responseTimeColor(0)).toEqual({ color: 'default', text: '未测试' });
    expect(responseTimeColor(1000).color).toBe('green');
    expect(responseTimeColor(1001).color).toBe('olive');
    expect(responseTimeColor(3000).color).toBe('olive');
    expect(responseTimeColor(4500).color).toBe('gold');
    expect(responseTimeColor(5001).color).toBe('red');
    expect(responseTimeColor(1234).text).toBe('1.23 秒');
  });

  // covers S3-ENTITY-18
  it('reads response_time as milliseconds and shows it in seconds', () => {
    // 2500 ms is 2.5 s (olive), not 2500 s; 6 ms is a fast channel (green), not 6 s (red).
    expect(responseTimeColor(2500)).toEqual({ color: 'olive', text: '2.50 秒' });
    expect(responseTimeColor(6)).toEqual({ color: 'green', text: '0.01 秒' });
    expect(responseTimeColor(6000)).toEqual({ color: 'red', text: '6.00 秒' });
    expect(responseTimeColor(800)).toEqual({ color: 'green', text: '0.80 秒' });
  });

  // covers S9-CONST-14, S9-CONST-15, S9-CONST-16, S9-CONST-17
  it('shows balances in dollars, yuan, yuan/10000 or quota by type, and nothing for other types', () => {
    expect(renderBalance(1, 12.5)).toBe('$12.50');
    expect(renderBalance(8, 3)).toBe('$3.00');
    expect(renderBalance(4, 7)).toBe('¥7.00');
    expect(renderBalance(12, 7)).toBe('¥7.00');
    expect(renderBalance(5, 250000)).toBe('¥25.00');
    expect(renderBalance(10, 1_000_000)).toBe('$2.00');
    expect(renderBalance(13, 500_000)).toBe('$1.00');
    expect(renderBalance(14, 99)).toBeUndefined();
  });

  it('a channel whose last test failed is red 测试失败, never a fast green time', () => {
    expect(testResultDisplay(3, 'upstream exploded')).toEqual({ color: 'red', text: '测试失败', failed: true });
    expect(testResultDisplay(0, 'connect ECONNREFUSED')).toEqual({ color: 'red', text: '测试失败', failed: true });
    expect(testResultDisplay(800, '')).toEqual({ color: 'green', text: '0.80 秒', failed: false });
    expect(testResultDisplay(0, undefined)).toEqual({ color: 'default', text: '未测试', failed: false });
  });
});
