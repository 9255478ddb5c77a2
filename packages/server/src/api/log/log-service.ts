import type { LogAttempt, LogDto, LogFilterQuery, LogRouting } from '@model-relay/contract';
import type { LogFilter, LogsRepository } from '../../storage/repositories/logs.js';
import type { LogRow } from '../../storage/schema.js';
import type { Caller } from '../../auth/caller.js';


function toLogDto(row: LogRow): LogDto {
  return {
    id: row.id,
    user_id: row.user_id,
    created_at: Number(row.created_at),
    type: row.type,
    content: row.content ?? '',
    username: row.username,
    token_name: row.token_name,
    model_name: row.model_name,
    quota: Number(row.quota),
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    channel: row.channel_id,
    request_id: row.request_id,
    elapsed_time: Number(row.elapsed_time),
    is_stream: Boolean(row.is_stream),
    first_byte_ms: Number(row.first_byte_ms ?? 0),
    channel_name: row.channel_name ?? '',
    dialect: row.dialect ?? '',
    cached_tokens: Number(row.cached_tokens ?? 0),
    cache_write_tokens: Number(row.cache_write_tokens ?? 0),
    reasoning_tokens: Number(row.reasoning_tokens ?? 0),
    error: row.error ?? '',
    attempts: attemptsOf(row.attempts),
    routing: routingOf(row.routing ?? null),
  };
}

function routingOf(text: string | null): LogRouting | null {
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as Partial<LogRouting>;
    return { affinity: parsed.affinity === true, requested_model: String(parsed.requested_model ?? ''), models: Array.isArray(parsed.models) ? parsed.models.map(String) : [] };
  } catch {
    return null;
  }
}

/** What a user sees of their own row: the attempts' statuses and reasons, not which channels they went to. */
function withoutChannels(log: LogDto): LogDto {
  return { ...log, channel: 0, channel_name: '', attempts: log.attempts.map((a) => ({ ...a, channel_id: 0, channel_name: '' })) };
}

function attemptsOf(text: string | null): LogAttempt[] {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as LogAttempt[]) : [];
  } catch {
    return [];
  }
}

/**
 * The filters of GET /api/log/ (docs/console.md §7), parsed by the route's query schema (contract
 * `logFilterQuery`: bounded like their columns, a number that is not a canonical integer refused, not guessed);
 * `self` drops username and channel and pins the caller.
 */
export function filterOf(query: LogFilterQuery, self?: Caller): LogFilter {
  const filter: LogFilter = {
    type: query.type,
    tokenName: query.token_name,
    modelName: query.model_name,
    startTimestamp: query.start_timestamp,
    endTimestamp: query.end_timestamp,
    // The playground finds the cost of its answer by the X-Request-Id the relay sent (with a time window, so the
    // (user_id, created_at) index narrows the rows first).
    requestId: query.request_id,
  };
  if (self) filter.userId = self.id;
  else {
    filter.username = query.username;
    filter.channelId = query.channel;
  }
  return filter;
}

/** Usage logs: everyone's for admins, one's own for users. */
export class LogService {
  constructor(private readonly logs: LogsRepository) {}

  /** `own`: a user's own rows, without the channels that served them (channels are the operator's business). */
  async list(filter: LogFilter, page: number, own = false): Promise<LogDto[]> {
    const rows = (await this.logs.list(filter, page)).map(toLogDto);
    return own ? rows.map(withoutChannels) : rows;
  }

  /** Sum of consumed quota (type 2) under the filter. */
  async stat(filter: LogFilter): Promise<{ quota: number }> {
    return { quota: await this.logs.sumQuota(filter) };
  }

  deleteBefore(timestamp: number): Promise<number> {
    return this.logs.deleteBefore(timestamp);
  }
}
