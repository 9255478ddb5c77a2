import { DownOutlined } from '@ant-design/icons';
import { TokenStatus, type TokenDto } from '@model-relay/contract';
import { Alert, Button, Dropdown, Popconfirm, Select, Space, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useDeleteToken } from '../../api/tokens/delete-token';
import { useTokenList } from '../../api/tokens/get-tokens';
import { revealTokenKey } from '../../api/tokens/reveal-token-key';
import { useUpdateTokenStatus } from '../../api/tokens/update-token-status';
import { useSelf } from '../../api/users/get-self';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { copyText } from '../../lib/clipboard';
import { formatTimestamp, renderQuota } from '../../lib/format';
import { useStatus } from '../../lib/session';
import { toast } from '../../lib/toast';
import { CLIENT_APPS, clientLink, type ClientApp } from './client-links';

const clientItems = CLIENT_APPS.map((app) => ({ key: app.key, label: app.label }));

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

/** 我的令牌: the caller's API keys (docs/console.md §2, "Token list"). */
export default function TokensPage() {
  const navigate = useNavigate();
  const status = useStatus();
  const [order, setOrder] = useState('');
  const [keyword, setKeyword] = useState('');
  const list = useTokenList(order);
  const setStatus = useUpdateTokenStatus();
  const remove = useDeleteToken();
  // A key spends its owner's balance: its own quota is only a cap. Show the balance where it is the real limit.
  const balance = useSelf().data?.quota;
  const server = status?.server_address || window.location.origin;

  // When copying fails, the value is put into the search box for manual copying (docs/console.md §4).
  const copy = async (text: string) => {
    if (await copyText(text)) toast.success('已复制到剪贴板！');
    else setKeyword(text);
  };
  /** The whole key is asked for only at the moment of an action (lists show it masked). */
  const withKey = async (token: TokenDto, act: (key: string) => unknown) => {
    try {
      await act(await revealTokenKey(token.id));
    } catch {
      /* shown by the request client */
    }
  };
  const copyAs = (token: TokenDto, app?: ClientApp) =>
    withKey(token, (key) => copy(app ? clientLink(app, key, server, status?.chat_link ?? '') : `sk-${key}`));
  const openChat = (token: TokenDto, app: ClientApp) => withKey(token, (key) => window.open(clientLink(app, key, server, status?.chat_link ?? ''), '_blank'));

  const toggle = async (token: TokenDto) => {
    try {
      await setStatus.mutateAsync({ id: token.id, status: token.status === TokenStatus.Enabled ? TokenStatus.Disabled : TokenStatus.Enabled });
      toast.success('操作成功完成！');
    } catch {
      /* shown by the request client */
    }
  };
  const deleteToken = async (token: TokenDto) => {
    try {
      await remove.mutateAsync(token.id);
      toast.success('操作成功完成！');
    } catch {
      /* shown by the request client */
    }
  };

  const remaining = (quota: number, token: TokenDto) => {
    const own = token.unlimited_quota ? <Tag color="blue">无限制</Tag> : <span>{renderQuota(quota)}</span>;
    if (balance === undefined || (!token.unlimited_quota && quota <= balance)) return own;
    return (
      <Space orientation="vertical" size={0}>
        {own}
        <Tooltip title="令牌额度只是上限：每次请求都从账户余额中扣除，实际可用额度不超过账户余额。">
          <Typography.Text type="warning" style={{ fontSize: 12 }}>
            账户余额仅 {renderQuota(balance)}
          </Typography.Text>
        </Tooltip>
      </Space>
    );
  };

  const columns: ListColumn<TokenDto>[] = [
    { key: 'name', title: '名称', dataIndex: 'name' },
    {
      key: 'key',
      title: '密钥',
      dataIndex: 'key',
      render: (key: string) => (
        <Typography.Text code copyable={false} style={{ whiteSpace: 'nowrap' }}>
          sk-{key}
        </Typography.Text>
      ),
    },
    { key: 'status', title: '状态', dataIndex: 'status', render: tokenStatusTag },
    { key: 'used_quota', title: '已用额度', dataIndex: 'used_quota', render: (quota: number) => renderQuota(quota) },
    { key: 'remain_quota', title: '剩余额度', dataIndex: 'remain_quota', render: remaining },
    { key: 'created_time', title: '创建时间', dataIndex: 'created_time', render: (t: number) => formatTimestamp(t) },
    { key: 'expired_time', title: '过期时间', dataIndex: 'expired_time', render: (t: number) => (t === -1 ? '永不过期' : formatTimestamp(t)) },
    {
      key: 'actions',
      title: '操作',
      render: (_, token) => (
        <Space size={4} wrap>
          <Space.Compact size="small">
            <Button size="small" onClick={() => void copyAs(token)}>
              复制
            </Button>
            <Dropdown menu={{ items: clientItems, onClick: ({ key }) => void copyAs(token, key as ClientApp) }}>
              <Button size="small" icon={<DownOutlined />} aria-label="复制为客户端链接" />
            </Dropdown>
          </Space.Compact>
          <Space.Compact size="small">
            <Button size="small" onClick={() => void openChat(token, 'web')}>
              聊天
            </Button>
            <Dropdown menu={{ items: clientItems, onClick: ({ key }) => void openChat(token, key as ClientApp) }}>
              <Button size="small" icon={<DownOutlined />} aria-label="在客户端中打开" />
            </Dropdown>
          </Space.Compact>
          <Popconfirm title={`确定删除令牌 ${token.name}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void deleteToken(token)}>
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

  const lowBalance =
    balance !== undefined && balance <= 0 ? (
      <Alert
        type="warning"
        showIcon
        style={{ marginBottom: 16 }}
        title={`账户余额为 ${renderQuota(balance)}：令牌的剩余额度只是上限，请求从账户余额中扣费，余额不足时令牌无法使用。`}
        action={<Link to="/topup">去充值</Link>}
      />
    ) : null;

  return (
    <ListTable<TokenDto>
      title="我的令牌"
      list={list}
      columns={columns}
      notice={lowBalance}
      search={{ placeholder: '搜索令牌的名称 ...', value: keyword, onChange: setKeyword }}
      scrollX={1100}
      empty={{ description: '还没有令牌', action: { label: '创建第一个令牌', onClick: () => navigate('/token/add') } }}
      footer={
        <Space wrap>
          <Button type="primary" onClick={() => navigate('/token/add')}>
            添加新的令牌
          </Button>
          <Select aria-label="排序方式" value={order} options={ORDERS} style={{ width: 160 }} onChange={setOrder} />
        </Space>
      }
    />
  );
}
