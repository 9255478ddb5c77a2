import { fileURLToPath } from 'node:url';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { closeContext, createContext } from './create-context.js';

/** Entry point: config -> storage -> app -> listen. */
async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const webDist = config.WEB_DIST ?? fileURLToPath(new URL('../../web/dist', import.meta.url));
  const app = await buildApp(ctx, { webDist, logger: { level: config.LOG_LEVEL } });
  const shutdown = async (signal: string) => {
    app.log.info(`${signal} received, shutting down`);
    // In-flight requests get a few seconds to finish (their settlements commit); then the process exits anyway.
    setTimeout(() => process.exit(0), 10_000).unref();
    await app.close();
    await closeContext(ctx);
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
