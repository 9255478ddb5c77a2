/**
 * Bedrock model ids of the Claude names clients and the console's default model list use
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/models-supported.html), so a channel may list
 * `claude-3-7-sonnet-20250219` and reach `us.anthropic.claude-3-7-sonnet-20250219-v1:0`. Any other name (a Bedrock
 * id, an inference-profile id, an ARN) is used as given.
 */
const CLAUDE_IDS: Record<string, string> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-sonnet-latest': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-5-haiku-latest': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-3-7-sonnet-latest': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-sonnet-4-0': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-0': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-opus-4-1': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-sonnet-4-5': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-haiku-4-5': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-opus-4-5': 'anthropic.claude-opus-4-5-20251101-v1:0',
};

/**
 * Claude 3.7 Sonnet and later run on Bedrock only through a cross-region inference profile: their base id is refused
 * for on-demand use (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html).
 */
const PROFILE_ONLY = /^anthropic\.claude-(3-7-sonnet|sonnet-4|opus-4|haiku-4)/;

/** The inference-profile geography of a region (us-east-1 -> `us`), or undefined where none is known. */
function geographyOf(region: string): string | undefined {
  if (region.startsWith('us-gov-')) return 'us-gov';
  if (/^(us|ca)-/.test(region)) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return undefined;
}

/** The model id to put in the URL for a (mapped) model name on a channel in `region`. */
export function bedrockModelId(model: string, region: string): string {
  const id = CLAUDE_IDS[model] ?? model;
  const geography = geographyOf(region);
  return PROFILE_ONLY.test(id) && geography ? `${geography}.${id}` : id;
}
