import type { ServerResponse } from 'node:http';
import { fixtures, parseSse, type Fixtures } from './fixtures.js';
import { normalizeProtoJson } from './gemini-validate.js';
import { measuredPromptTokens, scriptedCall } from './tool-script.js';
import { firstHalf, sendJson, writePaced, type MockMode } from './mock-server.js';

/**
 * Gemini's answers (Gemini API and Gemini on Vertex AI), read from the recorded fixtures and adjusted to the request
 * (model version, function name), and the two stream framings: SSE with `alt=sse`, a JSON array sent piece by piece
 * without it.
 */
export const GEMINI_SCENARIOS = ['text', 'tools', 'tool-result', 'image', 'reasoning', 'cache', 'draw'] as const;
export type GeminiScenario = (typeof GEMINI_SCENARIOS)[number];

export interface GeminiReply {
  scenario: GeminiScenario;
  response: any;
  chunks: any[];
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every thoughtSignature the fixtures hand out. */
export function geminiSignatures(fx: Fixtures): Set<string> {
  const out = new Set<string>();
  for (const name of GEMINI_SCENARIOS) for (const part of fx.json(`${name}.response.json`).candidates[0].content.parts) if (part.thoughtSignature) out.add(part.thoughtSignature);
  return out;
}

/** The cache names the fixtures use: the only ones that exist. */
export function geminiCaches(fx: Fixtures): Set<string> {
  return new Set([fx.json('cache.request.json').cachedContent]);
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function declarations(body: Record<string, any>): any[] {
  return Array.isArray(body.tools) ? body.tools.flatMap((t: any) => (isObject(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [])) : [];
}

export function pickGeminiScenario(raw: Record<string, any>, mode: MockMode | undefined, model = ''): GeminiScenario {
  const body = normalizeProtoJson(raw) as Record<string, any>;
  const tools = declarations(body).length > 0 && String(body.toolConfig?.functionCallingConfig?.mode ?? '').toUpperCase() !== 'NONE';
  if (mode === 'tool' && tools) return 'tools';
  if (mode === 'thinking') return 'reasoning';
  if (mode === 'cache') return 'cache';
  const contents: any[] = Array.isArray(body.contents) ? body.contents : [];
  const last = contents.at(-1);
  if (last?.role !== 'model' && last?.parts?.some((p: any) => p?.functionResponse)) return 'tool-result';
  if (tools) return 'tools';
  if (body.generationConfig?.thinkingConfig?.includeThoughts === true) return 'reasoning';
  if (body.cachedContent) return 'cache';
  // An image model asked to draw (gemini-2.5-flash-image), or left to its default modalities (text and image): text and
  // an inline image, the image's tokens apart.
  const modalities = body.generationConfig?.responseModalities;
  if (asList(modalities).some((m) => String(m).toUpperCase() === 'IMAGE') || (modalities === undefined && /-image/.test(model))) return 'draw';
  if (contents.some((c) => c?.parts?.some((p: any) => String(p?.inlineData?.mimeType ?? '').startsWith('image/')))) return 'image';
  return 'text';
}

export function geminiReply(fx: Fixtures, raw: Record<string, any>, mode: MockMode | undefined, model: string): GeminiReply {
  const body = normalizeProtoJson(raw) as Record<string, any>;
  const scenario = pickGeminiScenario(body, mode, model);
  const scripted = scriptedCall(declarations(body).map((d: any) => d.name));
  const name = scripted?.name ?? body.toolConfig?.functionCallingConfig?.allowedFunctionNames?.[0] ?? declarations(body)[0]?.name;
  const adjust = (answer: any) => {
    answer.modelVersion = model;
    for (const candidate of answer.candidates ?? []) {
      for (const part of candidate.content?.parts ?? []) {
        if (part.functionCall && name) part.functionCall.name = name;
        if (part.functionCall && scripted) part.functionCall.args = scripted.args;
      }
    }
    const prompt = measuredPromptTokens(raw);
    if (prompt !== undefined && answer.usageMetadata) {
      const before = answer.usageMetadata.promptTokenCount ?? 0;
      answer.usageMetadata = { ...answer.usageMetadata, promptTokenCount: prompt, totalTokenCount: (answer.usageMetadata.totalTokenCount ?? 0) - before + prompt };
    }
    return answer;
  };
  return {
    scenario,
    response: adjust(fx.json(`${scenario}.response.json`)),
    chunks: parseSse(fx.text(`${scenario}.stream.txt`)).map((e) => adjust(e.data)),
  };
}

/** countTokens: the prompt tokens the matching answer bills, so the two never disagree. */
export function geminiCountTokens(fx: Fixtures, raw: Record<string, any>, platform: 'gemini' | 'vertex') {
  const usage = fx.json(`${pickGeminiScenario(raw, undefined)}.response.json`).usageMetadata;
  const out: Record<string, unknown> = { totalTokens: usage.promptTokenCount };
  if (usage.cachedContentTokenCount) out.cachedContentTokenCount = usage.cachedContentTokenCount;
  if (platform === 'vertex') out.totalBillableCharacters = usage.promptTokenCount * 4;
  out.promptTokensDetails = usage.promptTokensDetails;
  return out;
}

export const GEMINI_MODELS = fixtures('gemini').json('models.response.json');

/** Writes a generateContent / streamGenerateContent answer in the framing the request asked for. */
export async function sendGeminiReply(res: ServerResponse, reply: GeminiReply, opts: { stream: boolean; sse: boolean; mode: MockMode | undefined; streamError: unknown }): Promise<void> {
  if (!opts.stream) return sendJson(res, 200, reply.response);
  const { mode } = opts;
  const chunks = reply.chunks;
  const pieces = opts.sse ? chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`) : chunks.map((c, i) => `${i ? '\n,\r\n' : '['}${JSON.stringify(c, null, 2)}`);
  res.writeHead(200, { 'content-type': opts.sse ? 'text/event-stream' : 'application/json; charset=UTF-8', 'cache-control': 'no-cache' });
  if (mode === 'stream-error') {
    // A stream that fails after it started carries the error object as its last element.
    const half = firstHalf(pieces);
    await writePaced(res, half, 'ok');
    res.end(opts.sse ? `data: ${JSON.stringify(opts.streamError)}\r\n\r\n` : `\n,\r\n${JSON.stringify(opts.streamError, null, 2)}\n]`);
    return;
  }
  if (await writePaced(res, pieces, mode)) res.end(opts.sse ? '' : '\n]');
}
