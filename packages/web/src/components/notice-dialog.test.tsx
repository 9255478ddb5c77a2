import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockApi } from '../test-support';
import { NoticeDialog } from './notice-dialog';

beforeEach(() => localStorage.clear());
afterEach(cleanup);

/** GET /api/notice answers each call in turn: a text, or a failure to reach the server. */
const notices = (...answers: Array<string | Error>) =>
  mockApi({
    'GET /api/notice': () => {
      const answer = answers.shift();
      if (answer instanceof Error) throw answer;
      return { success: true, message: '', data: answer };
    },
  });

describe('the notice (option Notice)', () => {
  // covers S2-SETTINGS-OTHER-02
  it('is shown once per content: dismissed, it stays away until the content changes', async () => {
    notices('## 维护通知\n今晚 22:00 升级');
    const first = render(<NoticeDialog />);
    expect(await screen.findByText('公告')).toBeTruthy();
    await waitFor(() => expect(document.querySelector('.rich-content')?.textContent).toContain('今晚 22:00 升级'));
    fireEvent.click(screen.getByRole('button', { name: '我知道了' }));
    // the dismissed content is remembered by its hash
    expect(localStorage.getItem('prompt-notice')).toMatch(/^[0-9a-f]{8}$/);
    first.unmount();

    // Two more dialogs: the first gets the dismissed content, the second a changed one. Both answers take the same
    // way, the first one first: once the changed notice shows, the dismissed one has had its chance to show too.
    notices('## 维护通知\n今晚 22:00 升级', '## 维护通知\n改到明晚 22:00');
    render(<NoticeDialog />);
    render(<NoticeDialog />);
    expect(await screen.findByText('改到明晚 22:00')).toBeTruthy();
    expect(screen.getAllByText('公告')).toHaveLength(1);
    expect(screen.queryByText('今晚 22:00 升级')).toBeNull();
  });

  it('shows nothing when there is no notice or the server cannot be reached', async () => {
    // A third dialog, whose notice comes after those two answers, shows that they have been dealt with.
    notices('', new TypeError('Failed to fetch'), '今日无事');
    render(<NoticeDialog />);
    render(<NoticeDialog />);
    render(<NoticeDialog />);
    expect(await screen.findByText('今日无事')).toBeTruthy();
    expect(screen.getAllByText('公告')).toHaveLength(1);
  });
});
