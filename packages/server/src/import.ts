/** `npm run import -- <source> [options]`: imports a one-api or new-api database (see import/import-cli.ts). */
import { runImportCli } from './import/import-cli.js';

// Exits explicitly: the SQLite target's checkpoint and read workers can outlive their close by a while.
process.exit(await runImportCli(process.argv.slice(2), process.env));
