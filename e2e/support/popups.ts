import { expect, type Locator } from '@playwright/test';

/**
 * Picks an item of an antd popup (a dropdown menu, a select's options) until `done` holds.
 *
 * A popup opens in steps: it is rendered at full size but transparent to be measured and placed, then scaled from 0
 * and faded in over 0.2 s. Playwright finds an item steady (its box the same for two frames) as soon as the first
 * step renders, and on a busy machine it clicked there before the popup had settled: the click was lost, and the
 * test command failed twice in one run (the logout item of the user menu, the dark theme's select option; neither
 * reproduced in 12 runs under load). So the popup is let finish its animation first (no motion class, fully opaque),
 * and the pick is tried again, from opening the popup, until its effect is seen.
 */
export async function pickFromPopup({ open, item, done }: { open: () => Promise<void>; item: Locator; done: () => Promise<boolean> }): Promise<void> {
  await expect(async () => {
    if (await done()) return;
    if (!(await item.isVisible())) await open();
    await expect
      .poll(
        () =>
          item.evaluate((el) => {
            // The item and every element around it: none in a motion step, all fully opaque.
            for (let node: Element | null = el; node; node = node.parentElement) {
              if (/-(appear|enter|leave)\b/.test(typeof node.className === 'string' ? node.className : '') || getComputedStyle(node).opacity !== '1') return false;
            }
            return true;
          }),
        { timeout: 5_000 },
      )
      .toBe(true);
    await item.click({ timeout: 5_000 });
    await expect.poll(done, { timeout: 5_000 }).toBe(true);
  }).toPass({ timeout: 60_000 });
}
