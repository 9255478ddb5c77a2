import type { FinishReason, StreamPart, Usage } from '../../canonical.js';
import type { Frame, StreamReader, StreamWriter, WriteContext } from '../types.js';
import { argumentsObject, asString, isRecord, parseEvent, throwChunkError } from '../shared.js';
import { finishToGemini, readGeminiUsage, searchesOf, writeGeminiUsage, type GeminiPart } from './model-parts.js';
import { candidateOf, geminiErrorBody, readCandidate } from './response.js';

/**
 * Reads a Gemini stream: every chunk (SSE event or JSON-array element) is a whole GenerateContentResponse. Chunks
 * before the last report only the prompt count; usage is passed on once it counts the answer (the last chunk),
 * so a stream cut short is counted from what it delivered instead of billed as prompt alone. An element
 * `{"error": ...}` is the upstream failing mid-stream.
 */
export function createGenerateContentStreamReader(): StreamReader {
  let started = false;
  let calls = 0;
  /** The searches the answer was grounded in (its groundingMetadata may come in any chunk, usually the last). */
  let searches = 0;
  let model: string | undefined;
  return {
    read(frame: Frame): StreamPart[] {
      const chunk = parseEvent(frame.data);
      if (!chunk) return [];
      throwChunkError(chunk);
      const parts: StreamPart[] = [];
      if (!started) {
        started = true;
        parts.push({ type: 'start', id: asString(chunk.responseId), model: asString(chunk.modelVersion) });
      }
      const { parts: answer, finished } = readCandidate(chunk, () => calls++, () => calls > 0);
      parts.push(...answer);
      model ??= asString(chunk.modelVersion);
      searches = Math.max(searches, searchesOf(chunk, model));
      const metadata = isRecord(chunk.usageMetadata) ? chunk.usageMetadata : undefined;
      if (metadata && (finished || metadata.candidatesTokenCount !== undefined || metadata.thoughtsTokenCount !== undefined)) {
        const usage = readGeminiUsage(metadata);
        if (usage && searches > 0) usage.web_searches = searches;
        if (usage) parts.push({ type: 'usage', usage });
      }
      return parts;
    },
  };
}

/**
 * Writes canonical parts as Gemini chunks, in SSE (`data: {...}` events, what `alt=sse` asks for) or, when
 * `context.jsonArray`, as one JSON array sent element by element: `[` first, `,` between elements, `]` at the end.
 * Text and thoughts go out as they come. A tool call is held until it is complete (Gemini sends a functionCall
 * whole, arguments as an object), and the calls of an answer go out together with the finish reason and the usage
 * in the last chunk, so a client that keeps each chunk's content keeps them in one turn. A reasoning signature
 * without text (Anthropic's comes after the thinking) rides on the next part, where Gemini puts its own.
 */
export function createGenerateContentStreamWriter(context: WriteContext): StreamWriter {
  let opened = false;
  let elements = 0;
  let pendingSignature: string | undefined;
  let finish: FinishReason | undefined;
  let usage: Usage | undefined;
  const calls = new Map<number, { name: string; args: string; signature?: string }>();

  const element = (json: string): string => {
    if (!context.jsonArray) return `data: ${json}\r\n\r\n`;
    const prefix = (opened ? '' : '[') + (elements > 0 ? ',\r\n' : '');
    opened = true;
    elements++;
    return prefix + json;
  };
  const chunk = (parts: GeminiPart[], extra: Record<string, unknown> = {}, finishReason?: string) =>
    element(JSON.stringify({ candidates: [candidateOf(parts, finishReason)], ...extra, modelVersion: context.model, responseId: context.id }));
  const signed = (part: GeminiPart): GeminiPart => {
    if (!pendingSignature) return part;
    const out = { ...part, thoughtSignature: pendingSignature };
    pendingSignature = undefined;
    return out;
  };
  const callParts = (): GeminiPart[] => {
    const parts = [...calls.values()].map((call) => ({ functionCall: { name: call.name, args: argumentsObject(call.args) }, ...(call.signature ? { thoughtSignature: call.signature } : {}) }));
    calls.clear();
    return parts;
  };

  return {
    write(part: StreamPart): string {
      switch (part.type) {
        case 'start':
          if (!context.jsonArray || opened) return '';
          opened = true;
          return '[';
        case 'text': {
          if (!part.text) return '';
          const held = callParts();
          return chunk([...held, signed({ text: part.text })]);
        }
        case 'reasoning':
          if (part.redacted !== undefined) return '';
          if (!part.text) {
            if (part.signature) pendingSignature = (pendingSignature ?? '') + part.signature;
            return '';
          }
          return chunk([{ text: part.text, thought: true, ...(part.signature ? { thoughtSignature: part.signature } : {}) }]);
        case 'tool_call': {
          const signature = part.signature ?? pendingSignature;
          pendingSignature = undefined;
          calls.set(part.index, { name: part.name, args: '', ...(signature ? { signature } : {}) });
          return '';
        }
        case 'tool_call_delta': {
          const call = calls.get(part.index);
          if (call) call.args += part.arguments;
          return '';
        }
        case 'finish':
          finish = part.reason;
          return '';
        case 'usage':
          usage = part.usage;
          return '';
        case 'image':
          return chunk([signed({ inlineData: { mimeType: part.mediaType, data: part.data } })]);
      }
    },
    end(): string {
      const parts = callParts();
      const reason = finish ?? (parts.length > 0 ? 'tool_calls' : 'stop');
      const last = chunk(pendingSignature ? [...parts, signed({ text: '' })] : parts, usage ? { usageMetadata: writeGeminiUsage(usage) } : {}, finishToGemini(reason));
      return context.jsonArray ? `${last}]` : last;
    },
    error(message: string, continued = false): string {
      const json = JSON.stringify(geminiErrorBody(503, message));
      if (!context.jsonArray) return `data: ${json}\r\n\r\n`;
      // After an upstream's own elements (passed through), the array is open and has elements.
      if (continued) {
        opened = true;
        elements = Math.max(elements, 1);
      }
      return `${element(json)}]`;
    },
  };
}
