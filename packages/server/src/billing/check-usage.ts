import { outputLimitOf } from './model-limits.js';
import type { Usage } from './usage.js';

/**
 * Upstream usage is checked before it is billed (issue 19): a provider's report can neither make an answer free
 * nor drain a balance.
 *  - A total the upstream reported unusably (negative, not a JSON number, not finite), left out, or implausibly
 *    low for what was sent and delivered (none at all for a non-empty answer, or fewer tokens than one per
 *    MAX_CHARACTERS_PER_TOKEN characters, which no tokenizer writes) is replaced by the gateway's own count.
 *  - A total above what the request allowed (the prompt's upper bound, the output limit sent upstream times the
 *    answers asked for) is billed at that bound.
 * Both are anomalies (用量异常): said on the log row, counted in /metrics and on the channel.
 */

/** No tokenizer in use writes fewer than one token per this many characters of ordinary text. */
export const MAX_CHARACTERS_PER_TOKEN = 32;

/** The most a request could use, as reserved: a report above it is billed at it. */
export interface UsageBounds {
  prompt: number;
  completion: number;
  /** Web searches the provider may run: none unless the request gave it a search tool (absent: none). */
  searches?: number;
}

export interface CheckedUsage {
  usage: Usage;
  /** What was wrong with the report, in words for the log (empty when nothing was). */
  anomalies: string[];
}

export interface UsageEvidence {
  /** The prompt's text as sent (media left out), and the text the client was delivered. */
  promptText: () => string | Promise<string>;
  /** At least as many characters as the prompt's text has (its upper bound in tokens will do): spares reading the text when a report is plainly enough. */
  promptChars: number;
  delivered: string;
  bounds: UsageBounds;
  /** Counts tokens of texts (off the event loop, or approximately). */
  count: (texts: string[]) => Promise<number[]>;
  /** The images endpoint: what each image costs by the size and quality asked (billing/image-prices.ts). */
  imageSizeRatio?: number;
}

/** The usage to bill, and what was wrong with the upstream's report. Never throws for any report. */
export async function checkUsage(reported: Usage | undefined, evidence: UsageEvidence): Promise<CheckedUsage> {
  const anomalies: string[] = [];
  let usage: Usage;
  if (!reported) {
    // No report at all (a stream without usage, a provider that sends none): counted, and not an anomaly.
    const prompt = await evidence.promptText();
    if (!prompt && !evidence.delivered) return { usage: { prompt_tokens: 0, completion_tokens: 0 }, anomalies };
    const [promptTokens, completionTokens] = await evidence.count([prompt, evidence.delivered]);
    usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens };
  } else if (reported.total_only !== undefined) {
    // Only a total: the prompt is counted here and the rest of the total is the completion.
    const [promptTokens] = await evidence.count([await evidence.promptText()]);
    const total = reported.total_only;
    usage = { prompt_tokens: Math.min(promptTokens, total), completion_tokens: Math.max(0, total - promptTokens) };
    if (reported.web_searches) usage.web_searches = reported.web_searches;
    if (reported.tool_calls) usage.tool_calls = reported.tool_calls;
    if (reported.sub_usages) usage.sub_usages = reported.sub_usages;
  } else if (reported.images && reported.prompt_tokens === 0 && reported.completion_tokens === 0 && !reported.unreported) {
    // An image model billed per image (dall-e): its prompt is not priced, nothing to count.
    usage = { ...reported };
  } else {
    usage = { ...reported };
    delete usage.unreported;
    // The prompt's text is read only when the report could be short of it.
    const mayBeShort = reported.unreported?.prompt !== undefined || reported.prompt_tokens * MAX_CHARACTERS_PER_TOKEN < evidence.promptChars;
    const promptText = mayBeShort ? await evidence.promptText() : '';
    const wrongPrompt = wrongTotal(reported, 'prompt', reported.prompt_tokens, promptText);
    const wrongCompletion = wrongTotal(reported, 'completion', reported.completion_tokens, evidence.delivered);
    if (wrongPrompt || wrongCompletion) {
      const [promptTokens, completionTokens] = await evidence.count([wrongPrompt ? promptText : '', wrongCompletion ? evidence.delivered : '']);
      if (wrongPrompt) {
        usage.prompt_tokens = promptTokens;
        if (wrongPrompt !== 'missing') anomalies.push(`上游报告的输入用量${wrongPrompt}，按网关计数 ${promptTokens} 计费`);
      }
      if (wrongCompletion) {
        usage.completion_tokens = completionTokens;
        if (wrongCompletion !== 'missing') anomalies.push(`上游报告的输出用量${wrongCompletion}，按网关计数 ${completionTokens} 计费`);
      }
    }
  }

  const { bounds } = evidence;
  if (usage.prompt_tokens > bounds.prompt) {
    anomalies.push(`上游报告输入 ${usage.prompt_tokens} tokens，超出本次请求上限 ${bounds.prompt}，按上限计费`);
    usage.prompt_tokens = bounds.prompt;
  }
  if (usage.completion_tokens > bounds.completion) {
    anomalies.push(`上游报告输出 ${usage.completion_tokens} tokens，超出本次请求允许的 ${bounds.completion}，按上限计费`);
    usage.completion_tokens = bounds.completion;
  }
  const searches = bounds.searches ?? 0;
  // What a provider-run tool's report beyond the request's bound says: none without such a tool, else the bound.
  const beyond = (what: string, count: number, tool = '该类工具') =>
    searches === 0 ? `上游报告${what} ${count} 次，但本次请求没有${tool}，不计费` : `上游报告${what} ${count} 次，超出本次请求上限 ${searches}，按上限计费`;
  if ((usage.web_searches ?? 0) > searches) {
    anomalies.push(beyond('联网搜索', usage.web_searches!, '搜索工具'));
    usage.web_searches = searches;
  }
  if (usage.web_searches === 0) delete usage.web_searches;
  // Inferences on other models (an advisor): only with a provider-run tool, at most the search bound of them, each
  // within the prompt bound and its model's output limit.
  if (usage.sub_usages) {
    const subs = usage.sub_usages.slice(0, searches).map((sub) => {
      const [prompt, completion] = [Math.min(sub.usage.prompt_tokens, bounds.prompt), Math.min(sub.usage.completion_tokens, outputLimitOf(sub.model))];
      if (prompt < sub.usage.prompt_tokens || completion < sub.usage.completion_tokens) anomalies.push(`上游报告 ${sub.model} 的推理用量超出上限，按上限计费`);
      return { model: sub.model, usage: withinTotals({ ...sub.usage, prompt_tokens: prompt, completion_tokens: completion }) };
    });
    if (usage.sub_usages.length > subs.length) anomalies.push(beyond('其他模型的推理', usage.sub_usages.length));
    if (subs.length > 0) usage.sub_usages = subs;
    else delete usage.sub_usages;
  }
  // Other provider-run tools billed per call: none without a provider-run tool, at most the search bound of each.
  if (usage.tool_calls) {
    const calls: Record<string, number> = {};
    for (const [key, count] of Object.entries(usage.tool_calls)) {
      const reportedCount = Math.max(0, Math.floor(Number(count) || 0));
      const billed = Math.min(reportedCount, searches);
      if (reportedCount > billed) anomalies.push(beyond(`托管工具 ${key}`, reportedCount));
      if (billed > 0) calls[key] = billed;
    }
    if (Object.keys(calls).length > 0) usage.tool_calls = calls;
    else delete usage.tool_calls;
  }
  if (usage.images && evidence.imageSizeRatio !== undefined && evidence.imageSizeRatio !== 1) usage.image_size_ratio = evidence.imageSizeRatio;
  return { usage: withinTotals(usage), anomalies };
}

/**
 * Why a reported total cannot be billed as it is: 'missing' (left out: counted, not an anomaly), a description
 * of what is wrong, or undefined when it is plausible.
 */
function wrongTotal(reported: Usage, which: 'prompt' | 'completion', value: number, text: string): string | undefined {
  const unreported = reported.unreported?.[which];
  if (unreported === 'missing') return 'missing';
  if (unreported === 'malformed') return '无效（负数、非数字或非有限值）';
  if (text.length === 0) return undefined;
  const least = Math.ceil(text.length / MAX_CHARACTERS_PER_TOKEN);
  return value < least ? `（${value}）低于实际内容的最少可能值 ${least}` : undefined;
}

/** The parts priced apart never exceed the totals they are parts of. */
function withinTotals(usage: Usage): Usage {
  const out: Usage = { ...usage, prompt_tokens: Math.max(0, usage.prompt_tokens), completion_tokens: Math.max(0, usage.completion_tokens) };
  let left = out.prompt_tokens;
  for (const part of ['cached_tokens', 'cache_write_tokens', 'cache_write_1h_tokens'] as const) {
    if (out[part] === undefined) continue;
    out[part] = Math.min(Math.max(0, out[part]), left);
    left -= out[part];
  }
  if (out.audio_prompt_tokens !== undefined) out.audio_prompt_tokens = Math.min(Math.max(0, out.audio_prompt_tokens), left);
  if (out.reasoning_tokens !== undefined) out.reasoning_tokens = Math.min(Math.max(0, out.reasoning_tokens), out.completion_tokens);
  if (out.audio_completion_tokens !== undefined) out.audio_completion_tokens = Math.min(Math.max(0, out.audio_completion_tokens), out.completion_tokens - (out.reasoning_tokens ?? 0));
  if (out.image_completion_tokens !== undefined) out.image_completion_tokens = Math.min(Math.max(0, out.image_completion_tokens), out.completion_tokens - (out.reasoning_tokens ?? 0) - (out.audio_completion_tokens ?? 0));
  return out;
}
