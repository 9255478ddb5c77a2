import { chatProblem } from '../mock-openai.js';
import { invokeModelBody } from '../../relay/providers/bedrock/invoke-body.js';
import { validateMessagesBody } from './anthropic-validate.js';
import { parseModelId, validateConverse } from './bedrock-converse.js';
import { validateGenerateContent } from './gemini-validate.js';

/**
 * The request checks of each provider's mock, for the conformance battery: null when the upstream would take
 * the body, else what it would say. One line per provider id (the folder name under relay/providers/).
 */
type Validate = (body: unknown) => string | null;

const VALIDATORS: Record<string, (dialect: string, model: string) => Validate> = {
  'openai-compatible': () => (body) => chatProblem(body as Record<string, unknown>) ?? null,
  azure: () => (body) => chatProblem(body as Record<string, unknown>) ?? null,
  anthropic: (_dialect, model) => (body) => validateMessagesBody(body, { platform: 'anthropic', model, signatures: new Set(), strictTurns: true })?.message ?? null,
  // What the Bedrock adapter sends: Converse bodies as they are, Claude's Messages bodies made InvokeModel's.
  bedrock: (dialect, model) => (body) =>
    dialect === 'anthropic'
      ? (validateMessagesBody(invokeModelBody(body as Record<string, unknown>), { platform: 'bedrock', model, signatures: new Set(), strictTurns: true })?.message ?? null)
      : validateConverse(body, { family: parseModelId(model)?.family ?? '', stream: false, signatures: new Set() }),
  gemini: (_dialect, model) => (body) => validateGenerateContent(body, { platform: 'gemini', model, signatures: new Set(), cachedContents: new Set() })?.message ?? null,
};

export function validatorFor(provider: string, dialect: string, model: string): Validate {
  const make = VALIDATORS[provider];
  if (!make) throw new Error(`no request validator for provider ${provider}: add one to test-support/upstreams/validators.ts`);
  return make(dialect, model);
}
