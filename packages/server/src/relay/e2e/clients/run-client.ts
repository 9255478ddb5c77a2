import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedClient, type ClientName } from './installed-clients.js';
import { runSandboxed, type SandboxRun } from './sandbox.js';

/**
 * Runs one coding agent once, non-interactively, as its users do, against the gateway at 127.0.0.1:<port>: a fresh
 * HOME with only the settings the README documents, telemetry and updates off, and no network but the gateway
 * (sandbox.ts). These settings are the README's client section, for the pinned versions (installed-clients.ts).
 */
export interface ClientRun extends SandboxRun {
  /** The workspace the agent ran in (its tools read and write here). */
  work: string;
}

export function clientSettings(name: ClientName, gateway: string, key: string, model: string, home: string): { env: Record<string, string> } {
  if (name === 'claude') {
    return {
      env: {
        ANTHROPIC_BASE_URL: gateway,
        ANTHROPIC_AUTH_TOKEN: key,
        ANTHROPIC_MODEL: model,
        // Background work (titles, summaries) goes to the "small, fast" model: one your key's group serves too.
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    };
  }
  if (name === 'codex') {
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      [
        `model = "${model}"`,
        'model_provider = "model-relay"',
        // Channels without a web search of their own refuse Codex's web_search tool (README).
        'web_search = "disabled"',
        '',
        '[model_providers.model-relay]',
        'name = "Model Relay"',
        `base_url = "${gateway}/v1"`,
        'env_key = "MODEL_RELAY_API_KEY"',
        'wire_api = "responses"',
        '',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    return { env: { MODEL_RELAY_API_KEY: key } };
  }
  mkdirSync(join(home, '.gemini'), { recursive: true });
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      // With GOOGLE_GEMINI_BASE_URL set, the CLI's non-interactive check needs the API-key auth named here.
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    }),
  );
  return { env: { GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: gateway } };
}

export async function runClient(name: ClientName, options: { port: number; key: string; model: string; prompt: string; files?: Record<string, string>; work?: string }): Promise<ClientRun> {
  const bin = installedClient(name);
  const home = mkdtempSync(join(tmpdir(), `mr-${name}-home-`));
  const work = options.work ?? mkdtempSync(join(tmpdir(), `mr-${name}-work-`));
  for (const [file, text] of Object.entries(options.files ?? {})) writeFileSync(join(work, file), text);
  const gateway = `http://127.0.0.1:${options.port}`;
  const { env } = clientSettings(name, gateway, options.key, options.model, home);
  const args =
    name === 'claude' ? ['-p', options.prompt, '--output-format', 'json', '--allowedTools', 'Read']
    : name === 'codex' ? ['exec', '--skip-git-repo-check', '--sandbox', 'danger-full-access', options.prompt]
    : ['-p', options.prompt, '-m', options.model, '--yolo'];
  const run = await runSandboxed(bin, args, { port: options.port, env: { HOME: home, TERM: 'dumb', NO_COLOR: '1', LANG: 'C.UTF-8', ...env }, cwd: work, timeoutMs: 180_000 });
  return { ...run, work };
}
