/**
 * The one normalisation of model names for looking up a model's facts (output limit, media bounds, cache
 * prices): lower case, without an aggregator's vendor path (`openai/gpt-4o`, `models/gemini-2.5-pro`) and
 * without a cloud's wrapping of a provider's model (Bedrock `us.anthropic.claude-…-v1:0`, Vertex `claude-…@date`).
 * Prices are looked up under several names, most specific first (pricing.ts `priceNames`).
 */
export function canonicalModelName(model: string): string {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  // Bedrock's `anthropic.claude-…` and inference profiles' `us.anthropic.claude-…` are Claude's own models.
  const unwrapped = bare.replace(/^(?:[a-z]{2,4}\.)?(?:anthropic|amazon|meta|mistral|cohere|ai21|deepseek)\./, (prefix) => (prefix.includes('anthropic') ? '' : prefix.replace(/^[a-z]{2,4}\.(?=[a-z]+\.)/, '')));
  return unwrapped.replace(/-v\d+(?::\d+)?$/, '').replace(/@.*$/, '');
}
