import { message, notification } from 'antd';

/** Toast durations of docs/console.md §9, in milliseconds. */
export const TOAST_MS = { success: 1500, info: 3000, error: 5000, warning: 10000, notice: 20000 } as const;

/** Toasts appear top-center on windows 600 px wide or less. */
export function isNarrow(): boolean {
  return typeof window !== 'undefined' && window.innerWidth <= 600;
}

/** Notices sit bottom-right on wide windows so they never cover the top bar's user menu. */
function placement() {
  return isNarrow() ? ('top' as const) : ('bottomRight' as const);
}

export const toast = {
  success: (text: string) => void message.success({ content: text, duration: TOAST_MS.success / 1000 }),
  info: (text: string) => void message.info({ content: text, duration: TOAST_MS.info / 1000 }),
  error: (text: string) => void message.error({ content: text, duration: TOAST_MS.error / 1000 }),
  warning: (text: string) => void message.warning({ content: text, duration: TOAST_MS.warning / 1000 }),
  /** A notice (e.g. the change-password warning): 20 s. */
  notice: (title: string, description?: string) =>
    notification.warning({ title, description, duration: TOAST_MS.notice / 1000, placement: placement() }),
  /** A plain info notice stays until dismissed. */
  sticky: (title: string, description?: string) => notification.info({ title, description, duration: 0, placement: placement() }),
};
