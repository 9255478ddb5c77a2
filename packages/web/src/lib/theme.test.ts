import { theme } from 'antd';
import { describe, expect, it } from 'vitest';
import { isDarkTheme, themeConfig } from './theme';

describe('the Theme option', () => {
  // covers S2-SETTINGS-OTHER-04
  it('dark uses the dark algorithm; default, berry and air stay light, each with its own look', () => {
    expect(themeConfig('dark').algorithm).toBe(theme.darkAlgorithm);
    expect(isDarkTheme('dark')).toBe(true);
    for (const name of ['default', 'berry', 'air', undefined, 'unknown']) {
      expect(themeConfig(name).algorithm, String(name)).not.toBe(theme.darkAlgorithm);
      expect(isDarkTheme(name)).toBe(false);
    }
    expect(themeConfig('berry').token?.colorPrimary).toBe('#673ab7');
    expect(themeConfig('air').algorithm).toBe(theme.compactAlgorithm);
    // the dark background really is dark
    const dark = theme.getDesignToken(themeConfig('dark'));
    const light = theme.getDesignToken(themeConfig('default'));
    expect(dark.colorBgContainer).not.toBe(light.colorBgContainer);
    expect(dark.colorBgContainer).toMatch(/^#1/);
  });

  it('a system that asks for reduced motion gets no motion, whatever the theme; otherwise antd animates as usual', () => {
    for (const name of ['default', 'dark', 'berry', 'air']) {
      expect(themeConfig(name, true).token?.motion, name).toBe(false);
      expect(theme.getDesignToken(themeConfig(name, true)).motion, name).toBe(false);
      expect(themeConfig(name, true).token?.colorPrimary, name).toBe(themeConfig(name).token?.colorPrimary);
      expect(themeConfig(name).token?.motion, name).toBeUndefined();
    }
    expect(themeConfig('dark', true).algorithm).toBe(theme.darkAlgorithm);
  });
});
