/** `npm run import -- <source> [options]`: imports a one-api or new-api database (see import/import-cli.ts). */
import { runImportCli } from './import/import-cli.js';

process.exitCode = await runImportCli(process.argv.slice(2), process.env);
