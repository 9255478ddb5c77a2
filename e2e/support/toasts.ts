import { expect, type Page } from '@playwright/test';

declare global {
  interface Window {
    __toasts?: string[];
  }
}

/**
 * Records, in every page of the test's browser context, the text of every toast and notice the console shows (antd's message and notification), from before the
 * page's own scripts run. A success toast lasts 1.5 s: on a busy machine a test may look after it has gone, so tests
 * check that it was shown, never that it is still on screen.
 */
export async function recordToasts(page: Page): Promise<void> {
  // On the context: popups (sign-in windows) record too.
  await page.context().addInitScript(() => {
    window.__toasts = [];
    const seen = new WeakSet<Node>();
    const record = (root: ParentNode) => {
      for (const el of root.querySelectorAll('.ant-message-notice, .ant-notification-notice')) {
        if (seen.has(el)) continue;
        const text = (el.textContent ?? '').trim();
        if (!text) continue;
        seen.add(el);
        window.__toasts!.push(text);
      }
    };
    // Observed in whichever document the window holds: a popup's window is kept when it leaves its first blank
    // document, so the observer is attached again whenever the document has changed.
    let watched: Document | undefined;
    const watch = () => {
      if (watched === document) return;
      watched = document;
      new MutationObserver(() => record(document)).observe(document, { childList: true, subtree: true, characterData: true });
    };
    watch();
    setInterval(() => {
      watch();
      record(document);
    }, 100);
  });
}

/** Waits until a toast or notice containing `text` has been shown on the page (since it loaded). */
export async function expectToast(page: Page, text: string): Promise<void> {
  await expect.poll(async () => (await page.evaluate(() => window.__toasts ?? [])).some((t) => t.includes(text)), { message: `toast «${text}»` }).toBe(true);
}
