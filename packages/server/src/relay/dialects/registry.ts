import { anthropicDialect } from './anthropic/index.js';
import { geminiDialect } from './gemini/index.js';
import { bedrockConverseDialect } from './bedrock-converse/index.js';
import { openAiChatDialect } from './openai-chat/index.js';
import { openAiResponsesDialect } from './openai-responses/index.js';
import type { Dialect, DialectName } from './types.js';

/** Every wire dialect the relay can read and write. */
const DIALECTS: Partial<Record<DialectName, Dialect>> = {
  'openai-chat': openAiChatDialect,
  anthropic: anthropicDialect,
  gemini: geminiDialect,
  'bedrock-converse': bedrockConverseDialect,
  'openai-responses': openAiResponsesDialect,
};

export function dialectOf(name: DialectName): Dialect | undefined {
  return DIALECTS[name];
}

export function allDialects(): Dialect[] {
  return Object.values(DIALECTS).filter((d): d is Dialect => d !== undefined);
}
