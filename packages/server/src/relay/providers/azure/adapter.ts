import { AZURE_DEFAULT_API_VERSION } from '@model-relay/contract';
import { classifyOpenAiError, openAiBody } from '../openai-compatible/adapter.js';
import type { Endpoint, ProviderAdapter } from '../types.js';

const OPERATION: Record<Exclude<Endpoint, 'rerank'>, string> = {
  chat: 'chat/completions',
  completions: 'completions',
  embeddings: 'embeddings',
  images: 'images/generations',
  audio_speech: 'audio/speech',
  audio_transcription: 'audio/transcriptions',
  audio_translation: 'audio/translations',
  moderations: 'moderations',
};

/**
 * Whether an API version takes `stream_options` (usage in a stream): dated versions from 2024-09-01-preview on (the
 * 2024-10-21 GA version included); earlier ones, the default 2024-03-01-preview among them, answer 400 "Unrecognized
 * request argument supplied: stream_options". A version that is not a date (`preview`, `latest`) is current.
 */
export function knowsStreamOptions(version: string): boolean {
  const date = /^(\d{4}-\d{2}-\d{2})/.exec(version)?.[1];
  return date === undefined || date >= '2024-09-01';
}

/**
 * Azure OpenAI: the model names a deployment in the URL, the API version is a query parameter (the channel's
 * `other`, default 2024-03-01-preview) and the key goes in the `api-key` header.
 * https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export const azureAdapter: ProviderAdapter = {
  id: 'azure',
  channelTypes: [3],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint !== 'rerank',
  build(input) {
    if (input.endpoint === 'rerank') throw new Error('Azure OpenAI has no rerank endpoint');
    // Azure deployment names cannot contain dots; "gpt-3.5-turbo" is conventionally deployed as "gpt-35-turbo".
    const deployment = input.model.replace(/\./g, '');
    const version = input.channel.other || AZURE_DEFAULT_API_VERSION;
    const url = `${input.channel.baseUrl}/openai/deployments/${encodeURIComponent(deployment)}/${OPERATION[input.endpoint]}?api-version=${encodeURIComponent(version)}`;
    return { url, method: 'POST', ...openAiBody(input, { 'api-key': input.channel.key }, knowsStreamOptions(version)) };
  },
  classifyError: classifyOpenAiError,
};
