import { ChannelStatus, channelTypeInfo, type ChannelDto } from '@model-relay/contract';
import { Alert, Button, Card, Input, InputNumber, Popconfirm, Select, Space, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import { useHeaderSort } from '../../components/use-header-sort';
import { usePagedList } from '../../components/use-paged-list';
import { api } from '../../lib/api';
import { formatTimestamp } from '../../lib/format';
import { isPromptDue, markPromptSeen } from '../../lib/storage';
import { toast } from '../../lib/toast';
import { renderBalance, responseTimeColor } from './channel-display';

const NOTICE_TOPIC = 'channel-test';

function statusTag(status: number) {
  if (status === ChannelStatus.Enabled) return <Tag color="green">已启用</Tag>;
  if (status === ChannelStatus.ManuallyDisabled) return <Tag color="red">已手动禁用</Tag>;
  if (status === ChannelStatus.AutoDisabled) return <Tag color="gold">已被自动禁用</Tag>;
  return <Tag>未知状态</Tag>;
}


/** 渠道: the channel list of spec section 2. */
export default function ChannelsPage() {
  const navigate = useNavigate();
  const [keyword, setKeyword] = useState('');
  const [showNotice, setShowNotice] = useState(() => isPromptDue(NOTICE_TOPIC));
  const [testModels, setTestModels] = useState<Record<number, string>>({});
  const listUrl = useCallback((p: number) => `/api/channel/?p=${p}`, []);
  const searchUrl = useCallback((k: string) => `/api/channel/search?keyword=${encodeURIComponent(k)}`, []);
  const list = usePagedList<ChannelDto>(listUrl, searchUrl);

  const patch = (id: number, changes: Partial<ChannelDto>) => list.setRows((rows) => rows.map((row) => (row.id === id ? { ...row, ...changes } : row)));

  const update = async (channel: ChannelDto, changes: Partial<ChannelDto>) => {
    const res = await api<ChannelDto>('/api/channel/', { method: 'PUT', body: { id: channel.id, ...changes } });
    if (!res.success || !res.data) return;
    toast.success('操作成功完成！');
    patch(channel.id, res.data);
  };

  const test = async (channel: ChannelDto) => {
    const model = testModels[channel.id] ?? '';
    const res = await api<{ time: number; model: string }>(`/api/channel/test/${channel.id}?model=${encodeURIComponent(model)}`);
    if (!res.success || !res.data) return;
    toast.info(`通道 ${channel.name} 测试成功，模型 ${res.data.model}，耗时 ${res.data.time.toFixed(2)} 秒。`);
    patch(channel.id, { response_time: Math.round(res.data.time * 1000), test_time: Math.floor(Date.now() / 1000) });
  };

  const refreshBalance = async (channel: ChannelDto) => {
    const res = await api<{ balance: number }>(`/api/channel/update_balance/${channel.id}/`);
    if (!res.success || !res.data) return;
    patch(channel.id, { balance: res.data.balance, balance_updated_time: Math.floor(Date.now() / 1000) });
    toast.success(`通道 ${channel.name} 余额更新成功！`);
  };

  const remove = async (channel: ChannelDto) => {
    const res = await api(`/api/channel/${channel.id}/`, { method: 'DELETE' });
    if (!res.success) return;
    toast.success('操作成功完成！');
    list.setRows((rows) => rows.filter((row) => row.id !== channel.id));
  };

  const testAll = async (scope: 'all' | 'disabled') => {
    const res = await api(`/api/channel/test?scope=${scope}`);
    if (res.success) toast.info('已成功开始测试通道，请刷新页面查看结果。');
  };

  const deleteDisabled = async () => {
    const res = await api<number>('/api/channel/disabled', { method: 'DELETE' });
    if (res.success) {
      toast.success(`已删除所有禁用渠道，共计 ${res.data ?? 0} 个`);
      await list.reload();
    }
  };

  const { rows, title: sortTitle } = useHeaderSort<ChannelDto>(list.rows);

  const columns: ColumnsType<ChannelDto> = [
    { ...sortTitle('ID', 'id'), dataIndex: 'id', width: 60 },
    { ...sortTitle('名称', 'name'), dataIndex: 'name' },
    { ...sortTitle('分组', 'group'), dataIndex: 'group', render: (group: string) => group.split(',').filter(Boolean).map((g) => <Tag key={g}>{g}</Tag>) },
    {
      ...sortTitle('类型', 'type'),
      dataIndex: 'type',
      render: (type: number) => {
        const info = channelTypeInfo(type);
        return <Tag color={info.color}>{info.text}</Tag>;
      },
    },
    { ...sortTitle('状态', 'status'), dataIndex: 'status', render: statusTag },
    {
      ...sortTitle('响应时间', 'response_time'),
      dataIndex: 'response_time',
      render: (ms: number, channel) => {
        const { color, text } = responseTimeColor(ms);
        return (
          <Tooltip title={channel.test_time ? `上次测试时间：${formatTimestamp(channel.test_time)}` : '未测试'}>
            <Tag color={color}>{text}</Tag>
          </Tooltip>
        );
      },
    },
    {
      ...sortTitle('余额', 'balance'),
      dataIndex: 'balance',
      render: (balance: number, channel) => {
        const text = renderBalance(channel.type, balance);
        if (text === undefined) return <span>不支持</span>;
        return (
          <Tooltip title="点击更新余额">
            <Tag style={{ cursor: 'pointer' }} onClick={() => void refreshBalance(channel)}>
              {text}
            </Tag>
          </Tooltip>
        );
      },
    },
    {
      ...sortTitle('优先级', 'priority'),
      dataIndex: 'priority',
      render: (priority: number, channel) => (
        <InputNumber
          aria-label={`渠道 ${channel.id} 优先级`}
          size="small"
          precision={0}
          defaultValue={priority}
          style={{ width: 80 }}
          onBlur={(e) => {
            const value = e.target.value.trim();
            if (value === '' || Number(value) === priority) return;
            void update(channel, { priority: Math.trunc(Number(value)) });
          }}
        />
      ),
    },
    {
      title: '测试模型',
      key: 'test_model',
      render: (_, channel) => (
        <Select
          size="small"
          aria-label={`渠道 ${channel.id} 测试模型`}
          style={{ width: 140 }}
          placeholder="默认第一个模型"
          value={testModels[channel.id]}
          options={channel.models.split(',').filter(Boolean).map((m) => ({ value: m, label: m }))}
          onChange={(value) => setTestModels((s) => ({ ...s, [channel.id]: value }))}
          allowClear
        />
      ),
    },
    {
      title: '操作',
      key: 'actions',
      render: (_, channel) => (
        <Space size={4} wrap>
          <Button size="small" onClick={() => void test(channel)}>测试</Button>
          <Popconfirm title={`确定删除渠道 ${channel.name}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void remove(channel)}>
            <Button size="small" danger>删除</Button>
          </Popconfirm>
          {channel.status === ChannelStatus.Enabled ? (
            <Button size="small" onClick={() => void update(channel, { status: ChannelStatus.ManuallyDisabled })}>禁用</Button>
          ) : (
            <Button size="small" onClick={() => void update(channel, { status: ChannelStatus.Enabled })}>启用</Button>
          )}
          <Button size="small" onClick={() => navigate(`/channel/edit/${channel.id}`)}>编辑</Button>
        </Space>
      ),
    },
  ];

  return (
    <Card className="page-card" title="渠道管理">
      {showNotice && (
        <Alert
          type="info"
          closable
          style={{ marginBottom: 16 }}
          title="OpenAI 渠道已经不再支持通过 key 获取余额，因此余额显示为 0。对于支持的渠道类型，请点击余额进行刷新。渠道测试仅支持 chat 模型，优先使用所选的测试模型，否则使用该渠道的第一个模型。"
          onClose={() => {
            markPromptSeen(NOTICE_TOPIC);
            setShowNotice(false);
          }}
        />
      )}
      <Input.Search
        placeholder="搜索渠道的 ID，名称和密钥 ..."
        value={keyword}
        onChange={(e) => setKeyword(e.target.value)}
        onSearch={(value) => void list.search(value)}
        allowClear
        style={{ marginBottom: 16 }}
      />
      <Table<ChannelDto>
        rowKey="id"
        columns={columns}
        dataSource={rows}
        loading={list.loading}
        scroll={{ x: 1100 }}
        pagination={{ current: list.activePage, pageSize: 10, total: list.total, showSizeChanger: false, onChange: list.onPageChange }}
        footer={() => (
          <Space wrap>
            <Button type="primary" onClick={() => navigate('/channel/add')}>添加新的渠道</Button>
            <Button onClick={() => void testAll('all')}>测试所有渠道</Button>
            <Button onClick={() => void testAll('disabled')}>测试禁用渠道</Button>
            <Popconfirm title="确定删除所有已禁用的渠道？" okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void deleteDisabled()}>
              <Button danger>删除禁用渠道</Button>
            </Popconfirm>
            <Button onClick={() => void list.reload()}>刷新</Button>
          </Space>
        )}
      />
    </Card>
  );
}
