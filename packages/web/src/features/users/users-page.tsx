import { Role, UserStatus, roleLabel, type UserDto } from '@model-relay/contract';
import { Button, Card, Input, Popconfirm, Popover, Select, Space, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useCallback, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useHeaderSort } from '../../components/use-header-sort';
import { usePagedList } from '../../components/use-paged-list';
import { api } from '../../lib/api';
import { renderQuota, truncateName } from '../../lib/format';
import { toast } from '../../lib/toast';

type Row = UserDto & { deleted?: boolean };

const ORDERS = [
  { value: '', label: '默认排序' },
  { value: 'quota', label: '按剩余额度排序' },
  { value: 'used_quota', label: '按已用额度排序' },
  { value: 'request_count', label: '按请求次数排序' },
];

function statusTag(status: number) {
  if (status === UserStatus.Enabled) return <Tag color="green">已激活</Tag>;
  if (status === UserStatus.Disabled) return <Tag color="red">已封禁</Tag>;
  return <Tag>未知状态</Tag>;
}

/** 管理用户: the admin user list of spec section 2. */
export default function UsersPage() {
  const navigate = useNavigate();
  const [order, setOrder] = useState('');
  const [keyword, setKeyword] = useState('');
  const listUrl = useCallback((p: number) => `/api/user/?p=${p}&order=${order}`, [order]);
  const searchUrl = useCallback((k: string) => `/api/user/search?keyword=${encodeURIComponent(k)}`, []);
  const list = usePagedList<Row>(listUrl, searchUrl);

  const manage = async (user: Row, action: 'promote' | 'demote' | 'delete' | 'disable' | 'enable') => {
    const res = await api<{ role: number; status: number }>('/api/user/manage', { method: 'POST', body: { username: user.username, action } });
    if (!res.success) return;
    toast.success('操作成功完成！');
    list.setRows((rows) =>
      rows.map((row) => (row.id !== user.id ? row : action === 'delete' ? { ...row, deleted: true } : { ...row, role: res.data!.role, status: res.data!.status })),
    );
  };

  const { rows, title: sortable } = useHeaderSort<Row>(list.rows);

  const columns: ColumnsType<Row> = [
    { ...sortable('ID', 'id'), dataIndex: 'id', width: 70 },
    {
      ...sortable('用户名', 'username'),
      dataIndex: 'username',
      render: (_, user) => (
        <Popover content={<div>{user.display_name || user.username}<br />{user.email || '无邮箱'}</div>}>
          <span>{truncateName(user.username)}</span>
        </Popover>
      ),
    },
    {
      ...sortable('分组', 'group'),
      dataIndex: 'group',
      render: (group: string) => (group ? group.split(',').map((g) => <Tag key={g}>{g}</Tag>) : <Tag>default</Tag>),
    },
    {
      ...sortable('统计信息', 'quota'),
      key: 'stats',
      render: (_, user) => (
        <Space size={4} wrap>
          <Tooltip title="剩余额度"><Tag color="green">{renderQuota(user.quota)}</Tag></Tooltip>
          <Tooltip title="已用额度"><Tag color="orange">{renderQuota(user.used_quota)}</Tag></Tooltip>
          <Tooltip title="请求次数"><Tag color="blue">{user.request_count}</Tag></Tooltip>
        </Space>
      ),
    },
    { ...sortable('用户角色', 'role'), dataIndex: 'role', render: (role: number) => roleLabel(role) },
    { ...sortable('状态', 'status'), dataIndex: 'status', render: (status: number, user) => (user.deleted ? <Tag>已删除</Tag> : statusTag(status)) },
    {
      title: '操作',
      key: 'actions',
      render: (_, user) => {
        const locked = user.role >= Role.Root || Boolean(user.deleted);
        return (
          <Space size={4} wrap>
            <Button size="small" disabled={locked} onClick={() => void manage(user, 'promote')}>提升</Button>
            <Button size="small" disabled={locked} onClick={() => void manage(user, 'demote')}>降级</Button>
            <Popconfirm title={`确定是否要删除用户 ${user.username}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void manage(user, 'delete')} disabled={locked}>
              <Button size="small" danger disabled={locked}>删除</Button>
            </Popconfirm>
            {user.status === UserStatus.Enabled ? (
              <Button size="small" disabled={locked} onClick={() => void manage(user, 'disable')}>禁用</Button>
            ) : (
              <Button size="small" disabled={locked} onClick={() => void manage(user, 'enable')}>启用</Button>
            )}
            <Button size="small" disabled={Boolean(user.deleted)} onClick={() => navigate(`/user/edit/${user.id}`)}>编辑</Button>
          </Space>
        );
      },
    },
  ];

  return (
    <Card className="page-card" title={<Typography.Title level={4} style={{ margin: 0 }}>管理用户</Typography.Title>}>
      <Input.Search
        placeholder="搜索用户的 ID，用户名，显示名称，以及邮箱地址 ..."
        value={keyword}
        onChange={(e) => setKeyword(e.target.value)}
        onSearch={(value) => void list.search(value.trim())}
        allowClear
        style={{ marginBottom: 16 }}
      />
      <Table<Row>
        rowKey="id"
        columns={columns}
        dataSource={rows}
        loading={list.loading}
        scroll={{ x: 900 }}
        pagination={{ current: list.activePage, pageSize: 10, total: list.total, showSizeChanger: false, onChange: list.onPageChange }}
        footer={() => (
          <Space wrap>
            <Link to="/user/add"><Button type="primary">添加新的用户</Button></Link>
            <Select aria-label="排序方式" value={order} options={ORDERS} style={{ width: 160 }} onChange={(value) => setOrder(value)} />
          </Space>
        )}
      />
    </Card>
  );
}
