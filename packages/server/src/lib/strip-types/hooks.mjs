// Module hooks for a worker started from the TypeScript sources: `./x.js` imports resolve to `./x.ts` beside the
// importer, and .ts files are transpiled (types stripped) by the TypeScript compiler the tests already use.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export async function resolve(specifier, context, next) {
  if (context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')) {
    try {
      return await next(specifier.slice(0, -3) + '.ts', context);
    } catch {
      // not a TypeScript module: resolved as written below
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = await readFile(fileURLToPath(url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, sourceMap: false },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
