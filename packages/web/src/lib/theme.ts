import { theme, type ThemeConfig } from 'antd';

/**
 * The console's look for each value of the Theme option. default / berry / air are one-api's theme names
 * (separate front ends there); here they are variants of one console: light, a purple "berry" with rounder
 * corners, and a compact "air". dark uses antd's dark algorithm.
 */
export function themeConfig(name: string | undefined): ThemeConfig {
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

/** Whether the theme is dark (the page's color-scheme follows, for scrollbars and form controls). */
export const isDarkTheme = (name: string | undefined): boolean => name === 'dark';
