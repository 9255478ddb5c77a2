import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Reads the payloads recorded from each provider's documentation
 * (packages/server/src/relay/providers/<id>/__fixtures__/), so the mocks answer exactly what the fixtures say.
 */
export type ProviderId = 'anthropic' | 'gemini' | 'vertex' | 'bedrock' | 'openai-compatible' | 'cohere' | 'hunyuan' | 'coze' | 'deepl' | 'aiproxy-library' | 'dashscope';

export interface Fixtures {
  dir: string;
  has(name: string): boolean;
  text(name: string): string;
  json(name: string): any;
}

const cache = new Map<string, string>();

export function fixtures(provider: ProviderId): Fixtures {
  const dir = fileURLToPath(new URL(`../../relay/providers/${provider}/__fixtures__/`, import.meta.url));
  const text = (name: string) => {
    const path = dir + name;
    let value = cache.get(path);
    if (value === undefined) {
      value = readFileSync(path, 'utf8');
      cache.set(path, value);
    }
    return value;
  };
  return {
    dir,
    has: (name) => existsSync(dir + name),
    text,
    // A fresh copy each time: the mocks adjust answers (model, tool name) and must not touch the cached text.
    json: (name) => JSON.parse(text(name)),
  };
}

/** Anthropic-style SSE text -> its events (the JSON of each `data:` line). */
export function parseSse(text: string): Array<{ event?: string; data: any }> {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
}
