import { cleanup } from '@testing-library/react';
import { message, notification } from 'antd';
import { afterAll, afterEach } from 'vitest';

// Unmount after every test. Toasts live in antd's own React roots with their own timers: close them all at
// the end of a file and let React finish the work that queues, before the test environment (window) is gone.
afterEach(() => cleanup());
afterAll(async () => {
  message.destroy();
  notification.destroy();
  await new Promise((resolve) => setTimeout(resolve, 300));
});
