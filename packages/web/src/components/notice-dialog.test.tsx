import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockApi } from '../test-support';
import { NoticeDialog } from './notice-dialog';

beforeEach(() => localStorage.clear());
afterEach(cleanup);

const notice = (text: string) => mockApi({ 'GET /api/notice': () => ({ success: true, message: '', data: text }) });

describe('the notice (option Notice)', () => {
  // covers S2-SETTINGS-OTHER-02
  it('is shown once per content: dismissed, it stays away until the content changes', async () => {
    notice('## 维护通知\n今晚 22:00 升级');
    const first = render(<NoticeDialog />);
    expect(await screen.findByText('公告')).toBeTruthy();
    await waitFor(() => expect(document.querySelector('.rich-content')?.textContent).toContain('今晚 22:00 升级'));
    fireEvent.click(screen.getByRole('button', { name: '我知道了' }));
    // the dismissed content is remembered by its hash
    expect(localStorage.getItem('prompt-notice')).toMatch(/^[0-9a-f]{8}$/);
    first.unmount();

    notice('## 维护通知\n今晚 22:00 升级');
    render(<NoticeDialog />);
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText('公告')).toBeNull();
    cleanup();

    notice('## 维护通知\n改到明晚 22:00');
    render(<NoticeDialog />);
    expect(await screen.findByText('改到明晚 22:00')).toBeTruthy();
  });

  it('shows nothing when there is no notice or the server cannot be reached', async () => {
    notice('');
    render(<NoticeDialog />);
    globalThis.fetch = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    render(<NoticeDialog />);
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText('公告')).toBeNull();
  });
});
