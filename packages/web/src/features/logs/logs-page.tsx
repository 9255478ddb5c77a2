import { LogType, type LogDto } from '@model-relay/contract';
import { Button, DatePicker, Form, Input, Select, Space, Tag, Tooltip } from 'antd';
import { useCallback, useState } from 'react';
import { getLogStat } from '../../api/logs/get-log-stat';
import { useLogList } from '../../api/logs/get-logs';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { formatTimestamp, renderQuota } from '../../lib/format';
import { isAdmin, useUser } from '../../lib/session';
import { LogDetail } from './log-detail';
import { LOG_TYPES, defaultLogFilters, logQuery, type LogFilters } from './log-query';

type LogRow = LogDto;

/** 日志: usage logs, everyone's for admins and one's own for users (docs/console.md §2, "Log screen"). */
export default function LogsPage() {
  const user = useUser();
  const admin = isAdmin(user);
  const [draft, setDraft] = useState<LogFilters>(() => defaultLogFilters());
  const [filters, setFilters] = useState<LogFilters>(draft);
  const [total, setTotal] = useState<number | undefined>();
  const query = useCallback((page?: number) => logQuery(filters, admin, page), [filters, admin]);
  const list = useLogList(admin, query);

  const showTotal = async () => {
    try {
      setTotal((await getLogStat(admin, query())).quota);
    } catch {
      /* shown by the request client */
    }
  };

  const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const columns: ListColumn<LogRow>[] = [
    { key: 'created_at', title: '时间', dataIndex: 'created_at', render: (t: number) => formatTimestamp(t) },
    ...(admin
      ? [
          { key: 'channel', title: '渠道', dataIndex: 'channel', render: (c: number) => (c ? <Tag>{c}</Tag> : '') },
          { key: 'username', title: '用户', dataIndex: 'username', render: (u: string) => (u ? <Tag>{u}</Tag> : '') },
        ]
      : []),
    { key: 'token_name', title: '令牌', dataIndex: 'token_name', render: (t: string) => (t ? <Tag>{t}</Tag> : '') },
    {
      key: 'type',
      title: '类型',
      dataIndex: 'type',
      render: (type: number) => {
        const info = LOG_TYPES.find((t) => t.value === type);
        return <Tag color={info?.color}>{info?.label ?? '未知'}</Tag>;
      },
    },
    { key: 'model_name', title: '模型', dataIndex: 'model_name', render: (m: string) => (m ? <Tag>{m}</Tag> : '') },
    { key: 'prompt_tokens', title: '提示', dataIndex: 'prompt_tokens', render: (n: number, row) => (row.type === 2 ? n : '') },
    { key: 'completion_tokens', title: '补全', dataIndex: 'completion_tokens', render: (n: number, row) => (row.type === 2 ? n : '') },
    { key: 'quota', title: '额度', dataIndex: 'quota', render: (q: number) => (q ? renderQuota(q) : '') },
    {
      key: 'content',
      title: '详情',
      dataIndex: 'content',
      render: (content: string, row) => (
        <Tooltip title={row.type === 2 ? `耗时 ${(row.elapsed_time / 1000).toFixed(2)} 秒${row.is_stream ? '，流式' : ''}` : undefined}>
          <span>{content}</span>
        </Tooltip>
      ),
    },
  ];

  const filterForm = (
    <Form
      layout="inline"
      style={{ marginBottom: 16, rowGap: 8 }}
      onFinish={() => {
        setTotal(undefined);
        setFilters(draft);
      }}
    >
      <Form.Item label="令牌名称"><Input aria-label="令牌名称" value={draft.token_name} onChange={(e) => set('token_name', e.target.value)} placeholder="可选值" /></Form.Item>
      <Form.Item label="模型名称"><Input aria-label="模型名称" value={draft.model_name} onChange={(e) => set('model_name', e.target.value)} placeholder="可选值" /></Form.Item>
      <Form.Item label="起始时间"><DatePicker showTime value={draft.start} onChange={(v) => v && set('start', v)} /></Form.Item>
      <Form.Item label="结束时间"><DatePicker showTime value={draft.end} onChange={(v) => v && set('end', v)} /></Form.Item>
      <Form.Item label="日志类型">
        <Select aria-label="日志类型" style={{ width: 100 }} value={draft.type} options={LOG_TYPES.map((t) => ({ value: t.value, label: t.label }))} onChange={(v) => set('type', v)} />
      </Form.Item>
      {admin && (
        <>
          <Form.Item label="渠道 ID"><Input aria-label="渠道 ID" value={draft.channel} onChange={(e) => set('channel', e.target.value)} placeholder="可选值" /></Form.Item>
          <Form.Item label="用户名称"><Input aria-label="用户名称" value={draft.username} onChange={(e) => set('username', e.target.value)} placeholder="可选值" /></Form.Item>
        </>
      )}
      <Form.Item><Button type="primary" htmlType="submit">查询</Button></Form.Item>
    </Form>
  );

  return (
    <ListTable<LogRow>
      title={
        <Space>
          <span>使用明细</span>
          <Button size="small" type="link" onClick={() => void showTotal()}>
            {total === undefined ? '点击查看总消耗额度' : `总消耗额度：${renderQuota(total)}`}
          </Button>
        </Space>
      }
      list={list}
      columns={columns}
      filters={filterForm}
      scrollX={1100}
      empty={{ description: '没有符合条件的日志' }}
      // Relay requests (consumed or failed) open to their detail: timing, dialect, tokens, the channels tried.
      expandable={{ expandedRowRender: (row) => <LogDetail log={row} admin={admin} />, rowExpandable: (row) => row.type === LogType.Consume || row.type === LogType.Error }}
    />
  );
}
