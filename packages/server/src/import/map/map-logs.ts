import { LogType } from '@model-relay/contract';
import type { NewLog } from '../../storage/schema.js';
import type { Product } from '../source/detect-product.js';
import type { SourceRow } from '../source/open-source.js';
import { bool, fit, int, jsonOf, str } from './values.js';

/** Log types both products share with ours (1 top-up, 2 consume, 3 manage, 4 system, 5 error); new-api's 6 (refund) is kept as a system entry. */
const KNOWN_TYPES = new Set<number>([LogType.TopUp, LogType.Consume, LogType.Manage, LogType.System, LogType.Error]);

/** Ids of the source's users, keys and channels as they are here. */
export interface LogIdMaps {
  user(sourceId: number): number;
  token(sourceId: number): number;
  channel(sourceId: number): number;
  channelName(sourceId: number): string;
}

export type LogValues = NewLog & { user_id: number; token_id: number; channel_id: number; created_at: number; quota: number };

export function mapLog(product: Product, row: SourceRow, ids: LogIdMaps): LogValues {
  const sourceType = int(row.type);
  const type = KNOWN_TYPES.has(sourceType) ? sourceType : LogType.System;
  const other = product === 'new-api' ? (jsonOf(row.other) as Record<string, unknown> | undefined) : undefined;
  const channel = int(row.channel_id ?? row.channel);
  let content = str(row.content);
  if (type !== sourceType) content = `[源日志类型 ${sourceType}${sourceType === 6 ? '：退款' : ''}] ${content}`;
  return {
    user_id: ids.user(int(row.user_id)),
    created_at: int(row.created_at),
    type,
    content,
    username: fit(str(row.username), 64)[0],
    token_name: fit(str(row.token_name), 64)[0],
    token_id: ids.token(int(row.token_id)),
    model_name: fit(str(row.model_name), 255)[0],
    quota: int(row.quota),
    prompt_tokens: int(row.prompt_tokens),
    completion_tokens: int(row.completion_tokens),
    channel_id: ids.channel(channel),
    channel_name: fit(ids.channelName(channel), 64)[0],
    request_id: fit(str(row.request_id), 64)[0],
    // one-api: elapsed_time in milliseconds; new-api: use_time in seconds.
    elapsed_time: product === 'new-api' ? int(row.use_time) * 1000 : int(row.elapsed_time),
    is_stream: bool(row.is_stream) ? 1 : 0,
    cached_tokens: int(other?.cache_tokens),
    cache_write_tokens: int(other?.cache_creation_tokens),
    error: type === LogType.Error ? content : null,
    attempts: null,
    routing: null,
  };
}
