import type { LogDto } from '@model-relay/contract';
import { Button, Card, DatePicker, Form, Input, Select, Space, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useCallback, useState } from 'react';
import { usePagedList } from '../../components/use-paged-list';
import { api } from '../../lib/api';
import { formatTimestamp, renderQuota } from '../../lib/format';
import { isAdmin, useUser } from '../../lib/session';
import { LOG_TYPES, defaultLogFilters, logQuery, type LogFilters } from './log-query';

type LogRow = LogDto;

/** 日志: usage logs, everyone's for admins and one's own for users (spec section 2, "Log screen"). */
export default function LogsPage() {
  const user = useUser();
  const admin = isAdmin(user);
  const [draft, setDraft] = useState<LogFilters>(() => defaultLogFilters());
  const [filters, setFilters] = useState<LogFilters>(draft);
  const [total, setTotal] = useState<number | undefined>();
  const base = admin ? '/api/log/' : '/api/log/self/';
  const listUrl = useCallback((p: number) => `${base}?${logQuery(filters, admin, p)}`, [base, filters, admin]);
  const searchUrl = useCallback(() => listUrl(0), [listUrl]);
  const list = usePagedList<LogRow>(listUrl, searchUrl);

  const showTotal = async () => {
    const res = await api<{ quota: number }>(`${admin ? '/api/log/stat' : '/api/log/self/stat'}?${logQuery(filters, admin)}`);
    if (res.success && res.data) setTotal(res.data.quota);
  };

  const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const columns: ColumnsType<LogRow> = [
    { title: '时间', dataIndex: 'created_at', render: (t: number) => formatTimestamp(t) },
    ...(admin
      ? [
          { title: '渠道', dataIndex: 'channel', render: (c: number) => (c ? <Tag>{c}</Tag> : '') },
          { title: '用户', dataIndex: 'username', render: (u: string) => (u ? <Tag>{u}</Tag> : '') },
        ]
      : []),
    { title: '令牌', dataIndex: 'token_name', render: (t: string) => (t ? <Tag>{t}</Tag> : '') },
    {
      title: '类型',
      dataIndex: 'type',
      render: (type: number) => {
        const info = LOG_TYPES.find((t) => t.value === type);
        return <Tag color={info?.color}>{info?.label ?? '未知'}</Tag>;
      },
    },
    { title: '模型', dataIndex: 'model_name', render: (m: string) => (m ? <Tag>{m}</Tag> : '') },
    { title: '提示', dataIndex: 'prompt_tokens', render: (n: number, row) => (row.type === 2 ? n : '') },
    { title: '补全', dataIndex: 'completion_tokens', render: (n: number, row) => (row.type === 2 ? n : '') },
    { title: '额度', dataIndex: 'quota', render: (q: number) => (q ? renderQuota(q, 6) : '') },
    {
      title: '详情',
      dataIndex: 'content',
      render: (content: string, row) => (
        <Tooltip title={row.type === 2 ? `耗时 ${(row.elapsed_time / 1000).toFixed(2)} 秒${row.is_stream ? '，流式' : ''}` : undefined}>
          <span>{content}</span>
        </Tooltip>
      ),
    },
  ];

  return (
    <Card
      className="page-card"
      title={
        <Space>
          <span>使用明细</span>
          <Button size="small" type="link" onClick={() => void showTotal()}>
            {total === undefined ? '点击查看总消耗额度' : `总消耗额度：${renderQuota(total)}`}
          </Button>
        </Space>
      }
    >
      <Form layout="inline" style={{ marginBottom: 16, rowGap: 8 }} onFinish={() => {
        setTotal(undefined);
        setFilters(draft);
      }}>
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
      <Table<LogRow>
        rowKey="id"
        columns={columns}
        dataSource={list.rows}
        loading={list.loading}
        scroll={{ x: 1100 }}
        pagination={{ current: list.activePage, pageSize: 10, total: list.total, showSizeChanger: false, onChange: list.onPageChange }}
      />
    </Card>
  );
}
