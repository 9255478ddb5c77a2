import { TokenStatus, type TokenDto } from '@model-relay/contract';
import { Button, Card, Dropdown, Input, Popconfirm, Select, Space, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import { usePagedList } from '../../components/use-paged-list';
import { api } from '../../lib/api';
import { copyText } from '../../lib/clipboard';
import { formatTimestamp, renderQuota } from '../../lib/format';
import { useStatus } from '../../lib/session';
import { toast } from '../../lib/toast';
import { CLIENT_APPS, clientLink, type ClientApp } from './client-links';

const ORDERS = [
  { value: '', label: '默认排序' },
  { value: 'remain_quota', label: '按剩余额度排序' },
  { value: 'used_quota', label: '按已用额度排序' },
];

export function tokenStatusTag(status: number) {
  switch (status) {
    case TokenStatus.Enabled:
      return <Tag color="green">已启用</Tag>;
    case TokenStatus.Disabled:
      return <Tag color="red">已禁用</Tag>;
    case TokenStatus.Expired:
      return <Tag color="gold">已过期</Tag>;
    case TokenStatus.Exhausted:
      return <Tag color="default">已耗尽</Tag>;
    default:
      return <Tag>未知状态</Tag>;
  }
}

/** 我的令牌: the caller's API keys (spec section 2, "Token list"). */
export default function TokensPage() {
  const navigate = useNavigate();
  const status = useStatus();
  const [order, setOrder] = useState('');
  const [keyword, setKeyword] = useState('');
  const listUrl = useCallback((p: number) => `/api/token/?p=${p}&order=${order}`, [order]);
  const searchUrl = useCallback((k: string) => `/api/token/search?keyword=${encodeURIComponent(k)}`, []);
  const list = usePagedList<TokenDto>(listUrl, searchUrl);
  const server = status?.server_address || window.location.origin;

  // When copying fails, the value is put into the search box for manual copying (spec section 4).
  const copy = async (text: string) => {
    if (await copyText(text)) toast.success('已复制到剪贴板！');
    else setKeyword(text);
  };

  const toggle = async (token: TokenDto) => {
    const next = token.status === TokenStatus.Enabled ? TokenStatus.Disabled : TokenStatus.Enabled;
    const res = await api<TokenDto>('/api/token/?status_only=true', { method: 'PUT', body: { id: token.id, status: next } });
    if (!res.success || !res.data) return;
    toast.success('操作成功完成！');
    list.setRows((rows) => rows.map((row) => (row.id === token.id ? res.data! : row)));
  };

  const remove = async (token: TokenDto) => {
    const res = await api(`/api/token/${token.id}/`, { method: 'DELETE' });
    if (!res.success) return;
    toast.success('操作成功完成！');
    list.setRows((rows) => rows.filter((row) => row.id !== token.id));
  };

  const openChat = (token: TokenDto, app: ClientApp) => window.open(clientLink(app, token.key, server, status?.chat_link ?? ''), '_blank');

  const columns: ColumnsType<TokenDto> = [
    { title: '名称', dataIndex: 'name' },
    { title: '状态', dataIndex: 'status', render: tokenStatusTag },
    { title: '已用额度', dataIndex: 'used_quota', render: (quota: number) => renderQuota(quota) },
    {
      title: '剩余额度',
      dataIndex: 'remain_quota',
      render: (quota: number, token) => (token.unlimited_quota ? <Tag color="blue">无限制</Tag> : renderQuota(quota)),
    },
    { title: '创建时间', dataIndex: 'created_time', render: (t: number) => formatTimestamp(t) },
    { title: '过期时间', dataIndex: 'expired_time', render: (t: number) => (t === -1 ? '永不过期' : formatTimestamp(t)) },
    {
      title: '操作',
      key: 'actions',
      render: (_, token) => (
        <Space size={4} wrap>
          <Dropdown.Button
            size="small"
            onClick={() => void copy(`sk-${token.key}`)}
            menu={{ items: CLIENT_APPS.map((app) => ({ key: app.key, label: app.label })), onClick: ({ key }) => void copy(clientLink(key as ClientApp, token.key, server, status?.chat_link ?? '')) }}
          >
            复制
          </Dropdown.Button>
          <Dropdown.Button size="small" onClick={() => openChat(token, 'web')} menu={{ items: CLIENT_APPS.map((app) => ({ key: app.key, label: app.label })), onClick: ({ key }) => openChat(token, key as ClientApp) }}>
            聊天
          </Dropdown.Button>
          <Popconfirm title={`确定删除令牌 ${token.name}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void remove(token)}>
            <Button size="small" danger>
              删除
            </Button>
          </Popconfirm>
          <Tooltip title={token.status === TokenStatus.Expired || token.status === TokenStatus.Exhausted ? '先编辑过期时间或额度' : undefined}>
            <Button size="small" onClick={() => void toggle(token)}>
              {token.status === TokenStatus.Enabled ? '禁用' : '启用'}
            </Button>
          </Tooltip>
          <Button size="small" onClick={() => navigate(`/token/edit/${token.id}`)}>
            编辑
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Card className="page-card" title="我的令牌">
      <Input.Search
        placeholder="搜索令牌的名称 ..."
        value={keyword}
        onChange={(e) => setKeyword(e.target.value)}
        onSearch={(value) => void list.search(value)}
        allowClear
        style={{ marginBottom: 16 }}
      />
      <Table<TokenDto>
        rowKey="id"
        columns={columns}
        dataSource={list.rows}
        loading={list.loading}
        scroll={{ x: 1000 }}
        pagination={{ current: list.activePage, pageSize: 10, total: list.total, showSizeChanger: false, onChange: list.onPageChange }}
        footer={() => (
          <Space wrap>
            <Button type="primary" onClick={() => navigate('/token/add')}>
              添加新的令牌
            </Button>
            <Select aria-label="排序方式" value={order} options={ORDERS} style={{ width: 160 }} onChange={setOrder} />
          </Space>
        )}
      />
    </Card>
  );
}
