/** Geography prefixes of Bedrock's cross-region inference profiles (`us.anthropic.…`, `global.…`). */
const PROFILE_PREFIX = /^(?:us|eu|apac|global|jp|au|ca|us-gov)\./;

/**
 * The family of a Bedrock model (`anthropic`, `amazon`, `meta`, `mistral`, …) from its id, an inference-profile id,
 * an ARN or a friendly Claude name: it decides which model-specific fields (Claude's thinking, Nova's topK) a
 * request may carry in `additionalModelRequestFields`.
 */
export function bedrockModelFamily(model: string): string {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (id.includes('claude')) return 'anthropic';
  return /^([a-z0-9-]+)\./.exec(id.replace(PROFILE_PREFIX, ''))?.[1] ?? '';
}

export const isClaudeModel = (model: string): boolean => bedrockModelFamily(model) === 'anthropic';
