import { RedemptionStatus, type RedemptionDto } from '@model-relay/contract';
import { Button, Popconfirm, Space, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useDeleteRedemption } from '../../api/redemptions/delete-redemption';
import { useRedemptionList } from '../../api/redemptions/get-redemptions';
import { useUpdateRedemptionStatus } from '../../api/redemptions/update-redemption-status';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { copyText } from '../../lib/clipboard';
import { formatTimestamp, renderQuota } from '../../lib/format';
import { toast } from '../../lib/toast';

/** Redemption status of docs/console.md §4: 1 unused, 2 disabled, 3 used. */
export function redemptionStatusTag(status: number) {
  switch (status) {
    case RedemptionStatus.Unused:
      return <Tag color="green">未使用</Tag>;
    case RedemptionStatus.Disabled:
      return <Tag color="red">已禁用</Tag>;
    case RedemptionStatus.Used:
      return <Tag color="default">已使用</Tag>;
    default:
      return <Tag>未知状态</Tag>;
  }
}

/** 兑换码: the admin's redemption codes (docs/console.md §2, "Redemption list"). */
export default function RedemptionsPage() {
  const navigate = useNavigate();
  const [keyword, setKeyword] = useState('');
  const list = useRedemptionList();
  const setStatus = useUpdateRedemptionStatus();
  const remove = useDeleteRedemption();

  // When copying fails, the code is put into the search box for manual copying (docs/console.md §4).
  const copy = async (code: RedemptionDto) => {
    if (await copyText(code.key)) toast.success('已复制到剪贴板！');
    else setKeyword(code.key);
  };
  const toggle = async (code: RedemptionDto) => {
    try {
      await setStatus.mutateAsync({ id: code.id, status: code.status === RedemptionStatus.Unused ? RedemptionStatus.Disabled : RedemptionStatus.Unused });
      toast.success('操作成功完成！');
    } catch {
      /* shown by the request client */
    }
  };
  const deleteCode = async (code: RedemptionDto) => {
    try {
      await remove.mutateAsync(code.id);
      toast.success('操作成功完成！');
    } catch {
      /* shown by the request client */
    }
  };

  const columns: ListColumn<RedemptionDto>[] = [
    { key: 'id', title: 'ID', dataIndex: 'id', width: 70, sort: 'id' },
    { key: 'name', title: '名称', dataIndex: 'name', sort: 'name' },
    { key: 'status', title: '状态', dataIndex: 'status', sort: 'status', render: redemptionStatusTag },
    { key: 'quota', title: '额度', dataIndex: 'quota', sort: 'quota', render: (quota: number) => renderQuota(quota) },
    { key: 'created_time', title: '创建时间', dataIndex: 'created_time', sort: 'created_time', render: (t: number) => formatTimestamp(t) },
    { key: 'redeemed_time', title: '兑换时间', dataIndex: 'redeemed_time', sort: 'redeemed_time', render: (t: number) => (t ? formatTimestamp(t) : '尚未兑换') },
    {
      key: 'actions',
      title: '操作',
      render: (_, code) => {
        const used = code.status === RedemptionStatus.Used;
        return (
          <Space size={4} wrap>
            <Button size="small" onClick={() => void copy(code)}>
              复制
            </Button>
            <Popconfirm title={`确定删除兑换码 ${code.name}（ID ${code.id}）？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void deleteCode(code)}>
              <Button size="small" danger>
                删除
              </Button>
            </Popconfirm>
            <Tooltip title={used ? '兑换码已被使用，不能再启用或禁用' : undefined}>
              <Button size="small" disabled={used} onClick={() => void toggle(code)}>
                {code.status === RedemptionStatus.Unused ? '禁用' : '启用'}
              </Button>
            </Tooltip>
            <Button size="small" disabled={used} onClick={() => navigate(`/redemption/edit/${code.id}`)}>
              编辑
            </Button>
          </Space>
        );
      },
    },
  ];

  return (
    <ListTable<RedemptionDto>
      title="兑换码"
      list={list}
      columns={columns}
      search={{ placeholder: '搜索兑换码的 ID 和名称 ...', value: keyword, onChange: setKeyword }}
      scrollX={900}
      empty={{ description: '还没有兑换码', action: { label: '创建第一批兑换码', onClick: () => navigate('/redemption/add') } }}
      footer={
        <Button type="primary" onClick={() => navigate('/redemption/add')}>
          添加新的兑换码
        </Button>
      }
    />
  );
}
