import { Role, UserStatus, roleLabel, type ManageAction } from '@model-relay/contract';
import { Button, Popconfirm, Popover, Select, Space, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useUserList, type UserRow } from '../../api/users/get-users';
import { useManageUser } from '../../api/users/manage-user';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { renderQuota, truncateName } from '../../lib/format';
import { toast } from '../../lib/toast';

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

/** 管理用户: the admin user list of docs/console.md §2. */
export default function UsersPage() {
  const navigate = useNavigate();
  const [order, setOrder] = useState('');
  const list = useUserList(order);
  const manageUser = useManageUser();

  const manage = async (user: UserRow, action: ManageAction) => {
    try {
      await manageUser.mutateAsync({ username: user.username, action });
      toast.success('操作成功完成！');
    } catch {
      /* shown by the request client */
    }
  };

  const columns: ListColumn<UserRow>[] = [
    { key: 'id', title: 'ID', dataIndex: 'id', width: 70, sort: 'id' },
    {
      key: 'username',
      title: '用户名',
      dataIndex: 'username',
      sort: 'username',
      render: (_, user) => (
        <Popover content={<div>{user.display_name || user.username}<br />{user.email || '无邮箱'}</div>}>
          <span>{truncateName(user.username)}</span>
        </Popover>
      ),
    },
    {
      key: 'group',
      title: '分组',
      dataIndex: 'group',
      sort: 'group',
      render: (group: string) => (group ? group.split(',').map((g) => <Tag key={g}>{g}</Tag>) : <Tag>default</Tag>),
    },
    {
      key: 'stats',
      title: '统计信息',
      sort: 'quota',
      render: (_, user) => (
        <Space size={4} wrap>
          <Tooltip title="剩余额度"><Tag color="green">{renderQuota(user.quota)}</Tag></Tooltip>
          <Tooltip title="已用额度"><Tag color="orange">{renderQuota(user.used_quota)}</Tag></Tooltip>
          <Tooltip title="请求次数"><Tag color="blue">{user.request_count}</Tag></Tooltip>
        </Space>
      ),
    },
    { key: 'role', title: '用户角色', dataIndex: 'role', sort: 'role', render: (role: number) => roleLabel(role) },
    { key: 'status', title: '状态', dataIndex: 'status', sort: 'status', render: (status: number, user) => (user.deleted ? <Tag>已删除</Tag> : statusTag(status)) },
    {
      key: 'actions',
      title: '操作',
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
    <ListTable<UserRow>
      title={<Typography.Title level={4} style={{ margin: 0 }}>管理用户</Typography.Title>}
      list={list}
      columns={columns}
      search={{ placeholder: '搜索用户的 ID，用户名，显示名称，以及邮箱地址 ...' }}
      scrollX={900}
      empty={{ description: '还没有用户', action: { label: '添加第一个用户', onClick: () => navigate('/user/add') } }}
      footer={
        <Space wrap>
          <Link to="/user/add"><Button type="primary">添加新的用户</Button></Link>
          <Select aria-label="排序方式" value={order} options={ORDERS} style={{ width: 160 }} onChange={(value) => setOrder(value)} />
        </Space>
      }
    />
  );
}
