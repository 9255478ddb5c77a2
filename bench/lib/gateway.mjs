// Starts the built gateway the way a user does (`npm start` = node packages/server/dist/main.js): default
// settings, only where its data lives is set, stdout and stderr appended to a log file as a service manager
// would capture them.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './database.mjs';
import { freePort, start, waitFor } from './processes.mjs';

export const GATEWAY_MAIN = process.env.GATEWAY_MAIN ? join(root, process.env.GATEWAY_MAIN) : join(root, 'packages/server/dist/main.js');
export const gatewayBuilt = () => existsSync(GATEWAY_MAIN);

/**
 * `data`: { SQLITE_PATH } or { SQL_DSN, REDIS_CONN_STRING }. Nothing else of the orchestrator's environment is
 * passed on (a LOG_LEVEL or rate limit set in the shell must not change what is measured): only PATH and HOME.
 * `main`: another build's main.js (cpu.mjs compares two builds). `launcher`: a command the gateway runs under
 * (instructions.mjs: valgrind and its flags), with `startTimeoutMs` for how long its start may take.
 */
export async function startGateway({ data, cwd, logFile, nodeArgs = [], main = GATEWAY_MAIN, launcher = [], startTimeoutMs = 60_000 }) {
  const port = await freePort();
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...data };
  const [command, ...args] = [...launcher, process.execPath, ...nodeArgs, main];
  const started = start(command, args, { env, cwd, logFile });
  const url = `http://127.0.0.1:${port}`;
  await Promise.race([
    waitFor(`${url}/api/status`, undefined, { ok: (status) => status === 200, timeoutMs: startTimeoutMs }),
    started.exited.then((code) => {
      throw new Error(`gateway exited with ${code} before answering; see ${logFile}`);
    }),
  ]);
  return {
    url,
    pid: started.pid,
    logFile,
    logBytes: () => statSync(logFile).size,
    /** SIGTERM: the gateway finishes what is in flight and commits its settlements before it exits. */
    async stop() {
      if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
      const timer = setTimeout(() => started.child.kill('SIGKILL'), 45_000);
      await started.exited;
      clearTimeout(timer);
    },
  };
}
