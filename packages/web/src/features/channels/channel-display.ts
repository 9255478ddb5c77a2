import { renderQuota } from '../../lib/format';

/** Response-time colours of docs/console.md §9: <= 1 s green, <= 3 s olive, <= 5 s yellow, above red; 0 = not tested. */
export function responseTimeColor(ms: number): { color: string; text: string } {
  if (!ms) return { color: 'default', text: '未测试' };
  const seconds = ms / 1000;
  const text = `${seconds.toFixed(2)} 秒`;
  if (seconds <= 1) return { color: 'green', text };
  if (seconds <= 3) return { color: 'olive', text };
  if (seconds <= 5) return { color: 'gold', text };
  return { color: 'red', text };
}

/**
 * What the response-time cell shows: a channel whose last test failed is red 测试失败 (never a fast green time),
 * otherwise the colours above.
 */
export function testResultDisplay(ms: number, testError: string | undefined): { color: string; text: string; failed: boolean } {
  if (testError) return { color: 'red', text: '测试失败', failed: true };
  return { ...responseTimeColor(ms), failed: false };
}

/**
 * Balance display of docs/console.md §9: types 1 and 8 in dollars; 4 and 12 in yuan; 5 in yuan divided by
 * 10000; 10 and 13 quota-formatted; other types show nothing.
 */
export function renderBalance(type: number, balance: number): string | undefined {
  switch (type) {
    case 1:
    case 8:
      return `$${balance.toFixed(2)}`;
    case 4:
    case 12:
      return `¥${balance.toFixed(2)}`;
    case 5:
      return `¥${(balance / 10000).toFixed(2)}`;
    case 10:
    case 13:
      return renderQuota(balance);
    default:
      return undefined;
  }
}
