import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * Lint, including the one-way import rules of docs/architecture.md:
 * contract <- server, contract <- web; routes -> service -> repository; features never import each other.
 */
const banned = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/test-results/**', '**/playwright-report/**', '.tmp/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': banned(
        { group: ['@model-relay/server', '@model-relay/web', '**/server/**', '**/web/**'], message: 'contract depends on nothing of ours' },
        { group: ['react', 'fastify', 'kysely'], message: 'contract is shared: no framework imports' },
      ),
    },
  },
  {
    files: ['packages/server/**/*.ts'],
    rules: {
      'no-restricted-imports': banned({ group: ['@model-relay/web', '**/web/**', 'react', 'antd'], message: 'the server never imports the console' }),
    },
  },
  {
    files: ['packages/server/src/storage/**/*.ts'],
    rules: {
      'no-restricted-imports': banned({ group: ['**/api/**', '**/relay/**', '**/billing/**', '**/app.js'], message: 'storage is the bottom layer: it imports nothing above it' }),
    },
  },
  {
    files: ['packages/server/src/api/**/routes.ts'],
    rules: {
      'no-restricted-imports': banned({ group: ['**/storage/**'], message: 'routes -> service -> repository: routes never reach storage directly' }),
    },
  },
  {
    files: ['packages/server/src/relay/providers/**/*.ts'],
    rules: {
      'no-restricted-imports': banned(
        { group: ['**/storage/**', 'undici', 'node:http', 'node:net'], message: 'an adapter is a pure translator: no I/O, no database, no quota' },
        // Usage is billing's type; an adapter reports it but never runs billing code.
        { group: ['**/billing/**'], allowTypeImports: true, message: 'an adapter is a pure translator: no I/O, no database, no quota' },
      ),
    },
  },
  {
    files: ['packages/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      'no-restricted-imports': banned({ group: ['@model-relay/server', '**/server/**', 'fastify', 'kysely'], message: 'the console talks to the server over HTTP only' }),
    },
  },
  {
    files: ['packages/web/src/features/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': banned(
        { group: ['@model-relay/server', '**/server/**'], message: 'the console talks to the server over HTTP only' },
        { regex: '^\\.\\./(?!\\.\\.)', message: 'features never import each other: move shared code to src/components or src/lib' },
        { regex: '/features/', message: 'features never import each other: move shared code to src/components or src/lib' },
      ),
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', 'e2e/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
