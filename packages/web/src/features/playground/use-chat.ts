import { useCallback, useRef, useState } from 'react';
import { findOwnLog } from '../../api/logs/get-logs';
import { ChatError, streamChat, type ChatMessage, type ChatUsage } from '../../api/relay/stream-chat';

/** A turn on screen: the user's question or an answer with how it went and what it cost. */
export interface Turn {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  status?: 'streaming' | 'done' | 'stopped' | 'error';
  error?: string;
  usage?: ChatUsage;
  /** what the answer was charged (its log row), once known; null when no row was found */
  cost?: { quota: number; prompt: number; completion: number; seconds: number } | null;
}

export interface ChatSettings {
  key: string;
  model: string;
  system: string;
  temperature: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The playground's conversation: sends it with the user's key (streamed), stops on request, and reads what each
 * answer was charged from its own log row (by the relay's X-Request-Id): that is what billing took, not an
 * estimate. The ledger writes logs in batches, so the row is looked for a few times.
 */
export function useChat(options: { lookupAttempts?: number; lookupDelayMs?: number } = {}) {
  const attempts = options.lookupAttempts ?? 12;
  const delay = options.lookupDelayMs ?? 500;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const controller = useRef<AbortController | undefined>(undefined);
  const nextId = useRef(1);

  const patch = (id: number, change: Partial<Turn> | ((turn: Turn) => Partial<Turn>)) =>
    setTurns((all) => all.map((t) => (t.id === id ? { ...t, ...(typeof change === 'function' ? change(t) : change) } : t)));

  const lookUpCost = useCallback(
    async (id: number, requestId: string, since: number) => {
      for (let i = 0; i < attempts; i++) {
        const log = await findOwnLog(requestId, since).catch(() => undefined);
        if (log) {
          patch(id, { cost: { quota: log.quota, prompt: log.prompt_tokens, completion: log.completion_tokens, seconds: log.elapsed_time / 1000 } });
          return;
        }
        await sleep(delay);
      }
      patch(id, { cost: null });
    },
    [attempts, delay],
  );

  const send = useCallback(
    async (question: string, settings: ChatSettings, history: Turn[]) => {
      const userTurn: Turn = { id: nextId.current++, role: 'user', content: question };
      const answer: Turn = { id: nextId.current++, role: 'assistant', content: '', status: 'streaming' };
      setTurns([...history, userTurn, answer]);
      const messages: ChatMessage[] = [
        ...(settings.system.trim() ? [{ role: 'system' as const, content: settings.system }] : []),
        ...history.filter((t) => t.status !== 'error').map((t) => ({ role: t.role, content: t.content })),
        { role: 'user', content: question },
      ];
      const abort = new AbortController();
      controller.current = abort;
      setBusy(true);
      const since = Math.floor(Date.now() / 1000) - 60;
      let requestId = '';
      try {
        await streamChat(
          { key: settings.key, model: settings.model, messages, temperature: settings.temperature },
          {
            onStart: (id) => (requestId = id),
            onDelta: (text) => patch(answer.id, (t) => ({ content: t.content + text })),
            onUsage: (usage) => patch(answer.id, { usage }),
          },
          abort.signal,
        );
        patch(answer.id, { status: 'done' });
      } catch (error) {
        if (abort.signal.aborted) patch(answer.id, { status: 'stopped' });
        else patch(answer.id, { status: 'error', error: error instanceof ChatError || error instanceof Error ? error.message : String(error) });
      } finally {
        controller.current = undefined;
        setBusy(false);
      }
      // A stopped answer is charged for what was delivered; a refused one costs nothing and has no consume row.
      if (requestId) void lookUpCost(answer.id, requestId, since);
      else patch(answer.id, { cost: null });
    },
    [lookUpCost],
  );

  const stop = useCallback(() => controller.current?.abort(), []);
  const clear = useCallback(() => setTurns([]), []);
  return { turns, busy, send, stop, clear };
}
