/**
 * Client applications offered in the token list (docs/console.md §2). Our link templates:
 *  - 网页聊天 (ChatGPT Next Web and compatible): {chatLink or https://app.nextchat.dev}/#/?settings={"key":"sk-...","url":"<server>"}
 *  - AMA 问天: ama://set-api-key?server=<server>&key=sk-...
 *  - OpenCat: opencat://team/join?domain=<server>&token=sk-...
 * <server> is the configured server address, else the console's own origin.
 */
export type ClientApp = 'web' | 'ama' | 'opencat';

export const CLIENT_APPS: Array<{ key: ClientApp; label: string }> = [
  { key: 'web', label: '网页聊天（ChatGPT Next Web）' },
  { key: 'ama', label: 'AMA 问天' },
  { key: 'opencat', label: 'OpenCat' },
];

export const DEFAULT_WEB_CHAT = 'https://app.nextchat.dev';

export function clientLink(app: ClientApp, key: string, server: string, chatLink: string): string {
  const apiKey = `sk-${key}`;
  switch (app) {
    case 'web': {
      const base = (chatLink || DEFAULT_WEB_CHAT).replace(/\/$/, '');
      return `${base}/#/?settings=${encodeURIComponent(JSON.stringify({ key: apiKey, url: server }))}`;
    }
    case 'ama':
      return `ama://set-api-key?server=${encodeURIComponent(server)}&key=${encodeURIComponent(apiKey)}`;
    case 'opencat':
      return `opencat://team/join?domain=${encodeURIComponent(server)}&token=${encodeURIComponent(apiKey)}`;
  }
}
