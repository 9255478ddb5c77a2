import dayjs, { type Dayjs } from 'dayjs';

export interface LogFilters {
  token_name: string;
  model_name: string;
  start: Dayjs;
  end: Dayjs;
  type: number;
  channel: string;
  username: string;
}

/** The default window runs from epoch 0 to now plus one hour (docs/console.md §7). */
export function defaultLogFilters(now = dayjs()): LogFilters {
  return { token_name: '', model_name: '', start: dayjs.unix(0), end: now.add(1, 'hour'), type: 0, channel: '', username: '' };
}

/** Query string of the log list and stat calls; username and channel only for admins. */
export function logQuery(filters: LogFilters, admin: boolean, page?: number): string {
  const params = new URLSearchParams();
  if (page !== undefined) params.set('p', String(page));
  params.set('type', String(filters.type));
  params.set('token_name', filters.token_name.trim());
  params.set('model_name', filters.model_name.trim());
  params.set('start_timestamp', String(filters.start.unix()));
  params.set('end_timestamp', String(filters.end.unix()));
  if (admin) {
    params.set('username', filters.username.trim());
    params.set('channel', filters.channel.trim());
  }
  return params.toString();
}

/** Log types of docs/console.md §4 (0 all, filter only; 1 top-up, 2 consumption, 3 management, 4 system) and 5, a failed request. */
export const LOG_TYPES = [
  { value: 0, label: '全部', color: 'default' },
  { value: 1, label: '充值', color: 'cyan' },
  { value: 2, label: '消费', color: 'green' },
  { value: 3, label: '管理', color: 'orange' },
  { value: 4, label: '系统', color: 'purple' },
  { value: 5, label: '错误', color: 'red' },
];
