import { theme, type ThemeConfig } from 'antd';
import { useMemo, useSyncExternalStore } from 'react';
import { useStatus } from './session';

/**
 * The console's look for each value of the Theme option. default / berry / air are one-api's theme names
 * (separate front ends there); here they are variants of one console: light, a purple "berry" with rounder
 * corners, and a compact "air". dark uses antd's dark algorithm.
 */
export function themeConfig(name: string | undefined, reducedMotion = false): ThemeConfig {
  const look = lookOf(name);
  // A reader who asked the system for less motion gets none: dialogs, menus and toasts appear and go at once.
  return reducedMotion ? { ...look, token: { ...look.token, motion: false } } : look;
}

function lookOf(name: string | undefined): ThemeConfig {
  switch (name) {
    case 'dark':
      return { algorithm: theme.darkAlgorithm, token: { colorPrimary: '#1668dc' } };
    case 'berry':
      return { token: { colorPrimary: '#673ab7', borderRadius: 10 } };
    case 'air':
      return { algorithm: theme.compactAlgorithm, token: { colorPrimary: '#0064fa' } };
    default:
      return { token: { colorPrimary: '#1677ff' } };
  }
}

const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';
const reducedMotionQuery = () => (typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(REDUCED_MOTION) : undefined);

/** Whether the system asks for reduced motion (prefers-reduced-motion), followed as it changes. */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = reducedMotionQuery();
      query?.addEventListener('change', changed);
      return () => query?.removeEventListener('change', changed);
    },
    () => reducedMotionQuery()?.matches ?? false,
    () => false,
  );
}

/** Whether the theme is dark (the page's color-scheme follows, for scrollbars and form controls). */
export const isDarkTheme = (name: string | undefined): boolean => name === 'dark';

/** The console's theme: the Theme option's name and its antd config, without motion when the system asks for less. */
export function useConsoleTheme(): { name: string | undefined; config: ThemeConfig } {
  const name = useStatus()?.theme;
  const reducedMotion = usePrefersReducedMotion();
  const config = useMemo(() => themeConfig(name, reducedMotion), [name, reducedMotion]);
  return { name, config };
}
