import { cleanup } from '@testing-library/react';
import { message, notification } from 'antd';
import { afterAll, afterEach, beforeAll } from 'vitest';

// antd mounts the React root behind its toasts on the first toast of a file. When that first toast comes from
// an effect while testing-library's act scope is open (a findBy* polling), the mount waits for the scope to
// end, so the toast never shows while the test looks for it. Mount both roots once, outside any act scope.
beforeAll(async () => {
  message.open({ content: '', duration: 0 });
  notification.open({ title: '', duration: 0 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  message.destroy();
  notification.destroy();
  await new Promise((resolve) => setTimeout(resolve, 50));
});

// Unmount after every test. Toasts live in antd's own React roots with their own timers: close them all at
// the end of a file and let React finish the work that queues, before the test environment (window) is gone.
afterEach(() => cleanup());
afterAll(async () => {
  message.destroy();
  notification.destroy();
  await new Promise((resolve) => setTimeout(resolve, 300));
});
