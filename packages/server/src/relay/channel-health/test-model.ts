/**
 * Model families that are not chat models: embeddings, moderation, images, speech and transcription,
 * reranking, and OpenAI's completions-only models. A channel test is one chat completion request, so
 * these cannot be tested (docs/console.md §5: "Only chat models are supported").
 */
const NOT_CHAT = [/embed/i, /moderation/i, /dall-e/i, /gpt-image/i, /stable-diffusion/i, /whisper/i, /(^|[-_/])tts([-_.]|$)/i, /rerank/i, /^(gpt-3\.5-turbo-instruct|babbage|davinci)/i];

/** Whether a channel test (a chat completion) can be run with this model. */
export function isChatModel(model: string): boolean {
  return !NOT_CHAT.some((pattern) => pattern.test(model));
}

export const notChatModelMessage = (model: string) => `渠道测试仅支持 chat 模型，${model} 不是 chat 模型，请选择其他测试模型`;
