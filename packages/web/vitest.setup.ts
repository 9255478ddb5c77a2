import { cleanup } from '@testing-library/react';
import { message, notification } from 'antd';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';

const present = (selector: string) => document.querySelector(selector) !== null;
/** Waits (never a fixed time) until `done` holds: on a busy machine antd's roots take as long as they take. */
const until = (done: () => boolean, what: string) =>
  vi.waitFor(() => {
    if (!done()) throw new Error(`still waiting: ${what}`);
  }, { timeout: 10_000, interval: 10 });
/** Every toast closed: jsdom runs no CSS transitions, so a closed toast stays in the DOM, in its leave state. */
const noToasts = () => [...document.querySelectorAll('.ant-message-notice, .ant-notification-notice')].every((notice) => /-leave\b/.test(notice.className));

// antd mounts the React root behind its toasts on the first toast of a file. When that first toast comes from
// an effect while testing-library's act scope is open (a findBy* polling), the mount waits for the scope to
// end, so the toast never shows while the test looks for it. Mount both roots once, outside any act scope.
beforeAll(async () => {
  message.open({ content: '', duration: 0 });
  notification.open({ title: '', duration: 0 });
  await until(() => present('.ant-message-notice') && present('.ant-notification-notice'), "antd's toast roots mounted");
  message.destroy();
  notification.destroy();
  await until(noToasts, 'the first toasts closed');
});

// Unmount after every test. Toasts live in antd's own React roots with their own timers: close them all at
// the end of a file and let React finish the work that queues, before the test environment (window) is gone.
afterEach(() => cleanup());
afterAll(async () => {
  message.destroy();
  notification.destroy();
  await until(noToasts, 'the toasts closed');
  // and one more turn of the event loop for the work React queued while unmounting them
  await new Promise((resolve) => setImmediate(resolve));
});
