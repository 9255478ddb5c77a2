import { chatProblem } from '../mock-openai.js';
import { responsesProblem } from '../mock-openai-responses.js';
import { validateMessagesBody } from './anthropic-validate.js';
import { validateGenerateContent } from './gemini-validate.js';

/**
 * The request checks of each provider's mock, for the conformance battery: null when the upstream would take
 * the body, else what it would say. One line per provider id (the folder name under relay/providers/).
 */
type Validate = (body: unknown) => string | null;

const VALIDATORS: Record<string, (dialect: string, model: string) => Validate> = {
  'openai-compatible': (dialect) => (body) => (dialect === 'openai-responses' ? responsesProblem(body)?.message : chatProblem(body as Record<string, unknown>)) ?? null,
  azure: () => (body) => chatProblem(body as Record<string, unknown>) ?? null,
  anthropic: (_dialect, model) => (body) => validateMessagesBody(body, { platform: 'anthropic', model, signatures: new Set(), strictTurns: true })?.message ?? null,
  gemini: (_dialect, model) => (body) => validateGenerateContent(body, { platform: 'gemini', model, signatures: new Set(), cachedContents: new Set() })?.message ?? null,
};

export function validatorFor(provider: string, dialect: string, model: string): Validate {
  const make = VALIDATORS[provider];
  if (!make) throw new Error(`no request validator for provider ${provider}: add one to test-support/upstreams/validators.ts`);
  return make(dialect, model);
}
