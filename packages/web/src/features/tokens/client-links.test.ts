import { describe, expect, it } from 'vitest';
import { clientLink } from './client-links';

describe('client links', () => {
  // covers S2-TOKENS-15, S2-TOKENS-16
  it('puts the sk- key and the server address into each client format', () => {
    const web = clientLink('web', 'abc', 'https://gw.example.com', '');
    expect(web.startsWith('https://app.nextchat.dev/#/?settings=')).toBe(true);
    expect(JSON.parse(decodeURIComponent(web.split('settings=')[1]))).toEqual({ key: 'sk-abc', url: 'https://gw.example.com' });
    expect(clientLink('web', 'abc', 'https://gw', 'https://chat.example.com/')).toMatch(/^https:\/\/chat\.example\.com\/#\//);
    expect(clientLink('ama', 'abc', 'https://gw', '')).toBe('ama://set-api-key?server=https%3A%2F%2Fgw&key=sk-abc');
    expect(clientLink('opencat', 'abc', 'https://gw', '')).toBe('opencat://team/join?domain=https%3A%2F%2Fgw&token=sk-abc');
  });
});
