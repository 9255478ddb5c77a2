import type { ChannelUsage, ModelUsage, TokenUsage, UsageTotals, UserUsage } from '@model-relay/contract';
import type { ReactNode } from 'react';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { useStaticList } from '../../components/list-table/use-static-list';
import { renderQuota } from '../../lib/format';
import { meanLatency } from './chart-data';

const count = (n: number) => n.toLocaleString('en-US');

/** The counters every breakdown table shows after its name column, spending first (narrow screens scroll the rest), each sortable. */
function counterColumns<T extends UsageTotals>(): ListColumn<T>[] {
  return [
    { key: 'quota', title: '消费', dataIndex: 'quota', sort: 'quota', render: (q: number) => renderQuota(q) },
    { key: 'requests', title: '请求数', dataIndex: 'requests', sort: 'requests', render: count },
    { key: 'failures', title: '失败数', dataIndex: 'failures', sort: 'failures', render: count },
    { key: 'prompt_tokens', title: '输入 tokens', dataIndex: 'prompt_tokens', sort: 'prompt_tokens', render: count },
    { key: 'completion_tokens', title: '输出 tokens', dataIndex: 'completion_tokens', sort: 'completion_tokens', render: count },
    { key: 'cached_tokens', title: '缓存读取 tokens', dataIndex: 'cached_tokens', sort: 'cached_tokens', render: count },
    { key: 'latency', title: '平均耗时', render: (_: unknown, row: T) => meanLatency(row), sort: (a, b) => a.latency_ms / (a.requests + a.failures || 1) - b.latency_ms / (b.requests + b.failures || 1) },
  ];
}

function UsageTable<T extends UsageTotals>({ title, rows, loading, name, rowKey, extra }: { title: ReactNode; rows: T[] | undefined; loading: boolean; name: ListColumn<T>; rowKey: string; extra?: ListColumn<T>[] }) {
  const list = useStaticList(rows, loading);
  return (
    <ListTable<T>
      className="dashboard-table"
      title={title}
      list={list}
      columns={[name, ...(extra ?? []), ...counterColumns<T>()]}
      rowKey={rowKey}
      scrollX={900}
      empty={{ description: '所选范围内没有数据' }}
    />
  );
}

export function ModelTable({ rows, loading }: { rows: ModelUsage[] | undefined; loading: boolean }) {
  return <UsageTable<ModelUsage> title="按模型" rows={rows} loading={loading} rowKey="model" name={{ key: 'model', title: '模型', dataIndex: 'model', sort: 'model' }} />;
}

export function TokenTable({ rows, loading, showOwner }: { rows: TokenUsage[] | undefined; loading: boolean; showOwner: boolean }) {
  return (
    <UsageTable<TokenUsage>
      title="令牌排行"
      rows={rows}
      loading={loading}
      rowKey="token_id"
      name={{ key: 'token_name', title: '令牌', dataIndex: 'token_name', sort: 'token_name' }}
      extra={showOwner ? [{ key: 'user_id', title: '用户 ID', dataIndex: 'user_id', sort: 'user_id' }] : undefined}
    />
  );
}

export function UserTable({ rows, loading }: { rows: UserUsage[] | undefined; loading: boolean }) {
  return <UsageTable<UserUsage> title="用户排行" rows={rows} loading={loading} rowKey="user_id" name={{ key: 'username', title: '用户', dataIndex: 'username', sort: 'username' }} />;
}

export function ChannelTable({ rows, loading }: { rows: ChannelUsage[] | undefined; loading: boolean }) {
  return (
    <UsageTable<ChannelUsage>
      title="渠道排行"
      rows={rows}
      loading={loading}
      rowKey="channel_id"
      name={{ key: 'channel_name', title: '渠道', dataIndex: 'channel_name', sort: 'channel_name', render: (name: string, row) => (row.channel_id ? `#${row.channel_id} ${name}` : name) }}
    />
  );
}
