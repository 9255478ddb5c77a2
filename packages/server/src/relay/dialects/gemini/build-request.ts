import type { ChatRequest, ImagePart, ReasoningConfig, UserPart } from '../../canonical.js';
import { badRequest, isRecord } from '../shared.js';
import { writeModelParts, type GeminiPart } from './model-parts.js';
import { hasParameters, schemaToGemini } from './schema.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * Documented stand-in for a thought signature that Gemini 3 demands on the first function call of each model turn
 * when the history was not written by Gemini itself (https://ai.google.dev/gemini-api/docs/thought-signatures).
 */
export const DUMMY_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';
/** Models that refuse an unsigned function call in the current turn (Gemini 3 and later). */
const STRICT_SIGNATURES = /gemini-([3-9]|\d{2,})/;
/** Models without thinking, which refuse a thinkingConfig. */
const NO_THINKING = /gemini-(1\.|2\.0)|gemma/;
/** Gemini takes at most 5 stop sequences. */
const MAX_STOP_SEQUENCES = 5;
const EFFORT_BUDGET = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const;

/**
 * A canonical request as a Gemini generateContent body (https://ai.google.dev/api/generate-content). The model
 * goes in the URL, not the body. Roles become user / model, tool results functionResponse parts (named after
 * their call) at the head of the user turn that answers, tools functionDeclarations with Gemini schemas.
 */
export function buildGenerateContentRequest(request: ChatRequest): Record<string, unknown> {
  const names = new Map<string, string>();
  const strict = STRICT_SIGNATURES.test(request.model);
  const contents: Array<{ role: string; parts: GeminiPart[] }> = [];
  const push = (role: string, parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool_call') names.set(part.id, part.name);
      push('model', writeModelParts(message.content, strict ? DUMMY_THOUGHT_SIGNATURE : undefined));
    } else push('user', userParts(message.content, names));
  }

  const body: Record<string, unknown> = { contents };
  const system = request.system.filter((p) => p.text).map((p) => ({ text: p.text }));
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const parameters = schemaToGemini(tool.parameters);
          return { name: tool.name, ...(tool.description ? { description: tool.description } : {}), ...(hasParameters(parameters) ? { parameters } : {}) };
        }),
      },
    ];
  }
  // Web search asked of another provider runs as Google Search grounding. Gemini 2.x takes it only without function
  // declarations in the same request: there the request is refused naming the tool rather than losing it.
  if (request.webSearch) {
    if (request.tools.length > 0 && !/^gemini-(3|[4-9])/.test(request.model)) {
      throw badRequest(`模型 ${request.model} 不能在一次请求中同时使用函数工具和内置网页搜索（web_search）；可关闭网页搜索（Codex CLI：config.toml 中 web_search = "disabled"）`);
    }
    body.tools = [...((body.tools as unknown[]) ?? []), { googleSearch: {} }];
  }
  const choice = request.toolChoice;
  if (choice && request.tools.length > 0) {
    const mode = choice.type === 'none' ? 'NONE' : choice.type === 'auto' ? 'AUTO' : 'ANY';
    body.toolConfig = { functionCallingConfig: { mode, ...(choice.type === 'tool' ? { allowedFunctionNames: [choice.name] } : {}) } };
  }

  const config: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.stop?.length) config.stopSequences = request.stop.slice(0, MAX_STOP_SEQUENCES);
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;
  const format = request.responseFormat;
  if (format?.type === 'json_object' || format?.type === 'json_schema') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') config.responseSchema = schemaToGemini(format.schema);
  const thinking = thinkingConfig(request.reasoning, request.model);
  if (thinking) config.thinkingConfig = thinking;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return body;
}

/** Tool results first, in call order, then the user's own text and images. */
function userParts(content: UserPart[], names: Map<string, string>): GeminiPart[] {
  const results: GeminiPart[] = [];
  const rest: GeminiPart[] = [];
  for (const part of content) {
    if (part.type === 'tool_result') {
      const text = flatMap(part.content, (p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      results.push({ functionResponse: { name: part.name || names.get(part.callId) || part.callId || 'function', response: responseOf(text, part.isError === true) } });
      for (const inner of part.content) if (inner.type === 'image') rest.push(imagePart(inner));
    } else if (part.type === 'text') {
      if (part.text) rest.push({ text: part.text });
    } else rest.push(imagePart(part));
  }
  return [...results, ...rest];
}

/** A tool's text as Gemini's response object: a JSON object as itself, other text under `output` (or `error`). */
function responseOf(text: string, isError: boolean): Record<string, unknown> {
  if (isError) return { error: text };
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    /* plain text */
  }
  return { output: text };
}

function imagePart(part: ImagePart): GeminiPart {
  const source = part.source;
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  return { fileData: { mimeType: mediaTypeOf(source.url), fileUri: source.url } };
}

function mediaTypeOf(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return ({ png: 'image/png', gif: 'image/gif', webp: 'image/webp', heic: 'image/heic', heif: 'image/heif' } as Record<string, string>)[extension ?? ''] ?? 'image/jpeg';
}

/** Thinking budgets each model family accepts (https://ai.google.dev/gemini-api/docs/thinking#set-budget). */
function budgetRange(model: string): [number, number] {
  if (/pro/.test(model)) return [128, 32768];
  if (/flash-lite/.test(model)) return [512, 24576];
  return [0, 24576];
}

function thinkingConfig(reasoning: ReasoningConfig | undefined, model: string): Record<string, unknown> | undefined {
  if (!reasoning || NO_THINKING.test(model)) return undefined;
  const [min, max] = budgetRange(model);
  // Pro models cannot stop thinking: leave them at their default.
  if (reasoning.enabled === false) return min > 0 ? undefined : { thinkingBudget: 0 };
  if (reasoning.effort && reasoning.budgetTokens === undefined && STRICT_SIGNATURES.test(model)) {
    return { thinkingLevel: reasoning.effort === 'minimal' || reasoning.effort === 'low' ? 'low' : 'high', includeThoughts: true };
  }
  const budget = reasoning.budgetTokens ?? (reasoning.effort ? EFFORT_BUDGET[reasoning.effort] : undefined);
  return { thinkingBudget: budget === undefined ? -1 : Math.min(max, Math.max(min, budget)), includeThoughts: true };
}

