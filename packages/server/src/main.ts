import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { closeContext, createContext } from './create-context.js';

/** Entry point: config -> storage -> app -> listen. */
async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const webDist = config.WEB_DIST ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
  const app = await buildApp(ctx, { webDist, logLevel: config.LOG_LEVEL });
  const shutdown = async (signal: string) => {
    app.log.info(`${signal} received, shutting down`);
    // No new connections; requests in flight (streams included) get SHUTDOWN_TIMEOUT_SECONDS to finish, then
    // their connections are cut (they settle as aborted). Queued settlements are committed before the exit;
    // whatever still cannot be (database gone) is left to a surviving instance's takeover.
    const grace = config.SHUTDOWN_TIMEOUT_SECONDS * 1000;
    setTimeout(() => process.exit(0), grace + 15_000).unref();
    const cut = setTimeout(() => app.server.closeAllConnections(), grace);
    await app.close();
    clearTimeout(cut);
    await closeContext(ctx);
    (app.log as { flush?: () => void }).flush?.();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.PORT, host: '0.0.0.0' });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
