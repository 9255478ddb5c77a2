import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The coding agents the real-client suite runs, pinned: installed from the npm registry into a cache directory of
 * their own (never globally), once, and reused by later runs.
 */
export const CLIENTS = {
  claude: { package: '@anthropic-ai/claude-code', version: '2.1.337', bin: 'claude' },
  codex: { package: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { package: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
} as const;
export type ClientName = keyof typeof CLIENTS;

/** Where the pinned clients live: MODEL_RELAY_CLIENTS_CACHE, else ~/.cache/model-relay-clients. */
export const cacheDir = () => process.env.MODEL_RELAY_CLIENTS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'model-relay-clients');

/**
 * The path of a client's executable, installing the pinned version first if it is not there. Throws with npm's
 * own words when the registry cannot be reached (the suite then fails clearly, never hangs).
 */
export function installedClient(name: ClientName): string {
  const client = CLIENTS[name];
  const dir = join(cacheDir(), `${client.package.replace(/[@/]/g, '_')}@${client.version}`);
  const bin = join(dir, 'node_modules', '.bin', client.bin);
  if (existsSync(bin) && existsSync(join(dir, '.complete'))) return bin;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `client-${name}`, private: true }));
  const npm = spawnSync('npm', ['install', '--no-save', '--no-fund', '--no-audit', '--loglevel=error', `${client.package}@${client.version}`], { cwd: dir, encoding: 'utf8', timeout: 600_000 });
  if (npm.status !== 0 || !existsSync(bin)) {
    throw new Error(`cannot install ${client.package}@${client.version} from the npm registry: ${(npm.stderr || npm.error?.message || '').trim().slice(-800)}`);
  }
  writeFileSync(join(dir, '.complete'), new Date().toISOString());
  return bin;
}
