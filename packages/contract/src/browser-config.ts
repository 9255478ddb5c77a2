import { z } from 'zod';

/**
 * In a browser (the console), zod's compiled validators are turned off before any schema is built. The
 * server's Content-Security-Policy forbids eval, and zod's probe for eval, made when an object schema is
 * built, would otherwise be reported as a policy violation on every page. The interpreted validators give
 * the same results; the server keeps the compiled ones.
 */
if (typeof document !== 'undefined') z.config({ jitless: true });
