import type { FinishReason, StreamPart, Usage } from '../../canonical.js';
import type { Frame, StreamReader, StreamWriter, WriteContext } from '../types.js';
import { asArray, asString, isRecord, parseEvent, throwChunkError } from '../shared.js';
import { finishFromOpenAi, imageUrlOf, readChatUsage, writeOpenAiUsage } from './response.js';

/** Reads an OpenAI chat stream (`data: {chat.completion.chunk}` … `data: [DONE]`). */
export function createChatStreamReader(): StreamReader {
  let started = false;
  return {
    read(frame: Frame): StreamPart[] {
      if (frame.data === '[DONE]') return [];
      const chunk = parseEvent(frame.data);
      if (!chunk) return [];
      throwChunkError(chunk);
      const parts: StreamPart[] = [];
      if (!started) {
        started = true;
        parts.push({ type: 'start', id: asString(chunk.id), model: asString(chunk.model) });
      }
      for (const choice of asArray(chunk.choices)) {
        if (!isRecord(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
        const delta = isRecord(choice.delta) ? choice.delta : {};
        const reasoning = asString(delta.reasoning_content) ?? asString(delta.reasoning);
        if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
        if (typeof delta.content === 'string' && delta.content) parts.push({ type: 'text', text: delta.content });
        // Legacy completions stream `text` instead of a delta.
        if (typeof choice.text === 'string' && choice.text) parts.push({ type: 'text', text: choice.text });
        for (const call of asArray(delta.tool_calls)) {
          if (!isRecord(call)) continue;
          const index = typeof call.index === 'number' ? call.index : 0;
          const fn = isRecord(call.function) ? call.function : {};
          if (asString(call.id) || asString(fn.name)) parts.push({ type: 'tool_call', index, id: asString(call.id) ?? `call_${index}`, name: asString(fn.name) ?? '' });
          if (typeof fn.arguments === 'string' && fn.arguments) parts.push({ type: 'tool_call_delta', index, arguments: fn.arguments });
        }
        const finish = finishFromOpenAi(choice.finish_reason);
        if (finish) parts.push({ type: 'finish', reason: finish });
      }
      const usage = readChatUsage(chunk.usage, chunk);
      if (usage) parts.push({ type: 'usage', usage });
      return parts;
    },
  };
}

/**
 * Writes canonical stream parts as OpenAI chat chunks. Tool calls are numbered among themselves (OpenAI's
 * `index`), whatever block index the upstream used; usage goes in a last chunk with empty choices when the
 * client asked for it (`stream_options.include_usage`), as OpenAI does.
 */
export function createChatStreamWriter(context: WriteContext): StreamWriter {
  const toolIndex = new Map<number, number>();
  let started = false;
  let finished: FinishReason | undefined;
  let usage: Usage | undefined;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: context.id, object: 'chat.completion.chunk', created: context.created, model: context.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const opening = () => {
    if (started) return '';
    started = true;
    return chunk({ role: 'assistant', content: '' });
  };
  return {
    write(part) {
      switch (part.type) {
        case 'start':
          return opening();
        case 'text':
          return opening() + chunk({ content: part.text });
        case 'reasoning':
          return part.text ? opening() + chunk({ reasoning_content: part.text }) : '';
        case 'tool_call': {
          const index = toolIndex.size;
          toolIndex.set(part.index, index);
          return opening() + chunk({ tool_calls: [{ index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] });
        }
        case 'tool_call_delta':
          return opening() + chunk({ tool_calls: [{ index: toolIndex.get(part.index) ?? 0, function: { arguments: part.arguments } }] });
        case 'finish':
          if (finished) return '';
          finished = part.reason;
          return opening() + chunk({}, part.reason === 'error' ? 'stop' : part.reason);
        case 'usage':
          usage = part.usage;
          return '';
        case 'image':
          // Chat Completions has no image in answers: the `images` field OpenRouter gives its image models, which
          // chat clients (Cherry Studio, LobeHub, Open WebUI) show.
          return opening() + chunk({ images: [imageUrlOf(part)] });
      }
    },
    end() {
      let tail = opening();
      if (!finished) tail += chunk({}, toolIndex.size > 0 ? 'tool_calls' : 'stop');
      if (usage && context.includeUsage) {
        tail += `data: ${JSON.stringify({ id: context.id, object: 'chat.completion.chunk', created: context.created, model: context.model, choices: [], usage: writeOpenAiUsage(usage) })}\n\n`;
      }
      return `${tail}data: [DONE]\n\n`;
    },
    error: streamError,
  };
}

/** The error event ending an OpenAI-dialect stream that broke upstream (no [DONE]: clients must not take it for a success). */
export function streamError(message: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'upstream_error', param: '', code: 'stream_broken' } })}\n\n`;
}
