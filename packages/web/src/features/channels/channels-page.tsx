import { ChannelStatus, channelTypeInfo, type ChannelDto } from '@model-relay/contract';
import { Alert, Button, InputNumber, Popconfirm, Progress, Select, Space, Tag, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { useDeleteChannel } from '../../api/channels/delete-channel';
import { useDeleteDisabledChannels } from '../../api/channels/delete-disabled-channels';
import { useChannelTestStatus } from '../../api/channels/get-channel-test-status';
import { useChannelList } from '../../api/channels/get-channels';
import { useTestAllChannels } from '../../api/channels/test-all-channels';
import { useTestChannel } from '../../api/channels/test-channel';
import { useUpdateChannel } from '../../api/channels/update-channel';
import { useUpdateChannelBalance } from '../../api/channels/update-channel-balance';
import { useUnpricedModels } from '../../api/pricing/get-unpriced-models';
import type { ListColumn } from '../../components/list-table/columns';
import { ListTable } from '../../components/list-table/list-table';
import { formatTimestamp } from '../../lib/format';
import { isPromptDue, markPromptSeen } from '../../lib/storage';
import { toast } from '../../lib/toast';
import { renderBalance, testResultDisplay } from './channel-display';

const NOTICE_TOPIC = 'channel-test';
/** How many unpriced model names the warning lists before it says "等 n 个". */
const UNPRICED_SHOWN = 12;

function statusTag(status: number) {
  if (status === ChannelStatus.Enabled) return <Tag color="green">已启用</Tag>;
  if (status === ChannelStatus.ManuallyDisabled) return <Tag color="red">已手动禁用</Tag>;
  if (status === ChannelStatus.AutoDisabled) return <Tag color="gold">已被自动禁用</Tag>;
  return <Tag>未知状态</Tag>;
}

/** 渠道: the channel list of docs/console.md §2. */
export default function ChannelsPage() {
  const navigate = useNavigate();
  const [showNotice, setShowNotice] = useState(() => isPromptDue(NOTICE_TOPIC));
  const [testModels, setTestModels] = useState<Record<number, string>>({});
  const [testing, setTesting] = useState<ReadonlySet<number>>(new Set());
  /** When the console started following a background run (ms); 0 when not following one. */
  const [watchingSince, setWatchingSince] = useState(0);
  const watchingRun = watchingSince > 0;
  const list = useChannelList();
  const update = useUpdateChannel();
  const test = useTestChannel();
  const balance = useUpdateChannelBalance();
  const remove = useDeleteChannel();
  const removeDisabled = useDeleteDisabledChannels();
  const testAll = useTestAllChannels();
  const status = useChannelTestStatus(watchingRun);
  const unpriced = useUnpricedModels().data ?? [];
  // Only an answer asked for after the start counts: an older one may describe the previous run.
  const run = status.dataUpdatedAt >= watchingSince ? status.data : undefined;

  const quietly = async (action: () => Promise<unknown>) => {
    try {
      await action();
      return true;
    } catch {
      return false; // shown by the request client
    }
  };

  const save = async (channel: ChannelDto, changes: Partial<ChannelDto>) => {
    if (await quietly(() => update.mutateAsync({ id: channel.id, ...changes }))) toast.success('操作成功完成！');
  };

  // One test at a time per row: its button spins and is disabled until the answer; the row takes the result.
  const runTest = async (channel: ChannelDto) => {
    setTesting((ids) => new Set(ids).add(channel.id));
    try {
      const outcome = await test.mutateAsync({ id: channel.id, model: testModels[channel.id] ?? '' });
      if (outcome.success) toast.info(`通道 ${channel.name} 测试成功，模型 ${outcome.model}，耗时 ${outcome.time.toFixed(2)} 秒。`);
      else toast.error(`渠道 ${channel.name} 测试失败：${outcome.message || '未知错误'}`);
    } catch {
      /* shown by the request client */
    } finally {
      setTesting((ids) => {
        const next = new Set(ids);
        next.delete(channel.id);
        return next;
      });
    }
  };

  const refreshBalance = async (channel: ChannelDto) => {
    if (await quietly(() => balance.mutateAsync(channel.id))) toast.success(`通道 ${channel.name} 余额更新成功！`);
  };

  const deleteChannel = async (channel: ChannelDto) => {
    if (await quietly(() => remove.mutateAsync(channel.id))) toast.success('操作成功完成！');
  };

  const startTests = async (scope: 'all' | 'disabled') => {
    try {
      const { started, message } = await testAll.mutateAsync(scope);
      // Started now, or one already runs: either way the progress is followed until it ends.
      if (started || message === '测试已在运行中') setWatchingSince(Date.now());
      if (!started) toast.info(message || '测试未能开始');
    } catch {
      /* shown by the request client */
    }
  };

  // The run ended: show its outcome and reload the rows with their new times, failures and statuses.
  const { reload } = list;
  useEffect(() => {
    if (!watchingRun || !run || run.running) return;
    setWatchingSince(0);
    toast.success(`渠道测试完成：共 ${run.total} 个，成功 ${run.total - run.failed} 个，失败 ${run.failed} 个`);
    void reload();
  }, [watchingRun, run, reload]);

  const deleteDisabled = async () => {
    try {
      const count = await removeDisabled.mutateAsync();
      toast.success(`已删除所有禁用渠道，共计 ${count ?? 0} 个`);
      await list.reload();
    } catch {
      /* shown by the request client */
    }
  };

  const columns: ListColumn<ChannelDto>[] = [
    { key: 'id', title: 'ID', dataIndex: 'id', width: 60, sort: 'id' },
    { key: 'name', title: '名称', dataIndex: 'name', sort: 'name' },
    { key: 'group', title: '分组', dataIndex: 'group', sort: 'group', render: (group: string) => group.split(',').filter(Boolean).map((g) => <Tag key={g}>{g}</Tag>) },
    {
      key: 'type',
      title: '类型',
      dataIndex: 'type',
      sort: 'type',
      render: (type: number) => {
        const info = channelTypeInfo(type);
        return <Tag color={info.color}>{info.text}</Tag>;
      },
    },
    {
      key: 'status',
      title: '状态',
      dataIndex: 'status',
      sort: 'status',
      render: (status: number, channel) => (
        <>
          {statusTag(status)}
          {channel.usage_anomalies > 0 && (
            <Tooltip title={`上游报告的用量有 ${channel.usage_anomalies} 次无法按原样计费（超出请求上限、无效或低于实际），已按上限或网关计数计费；日志中标有「用量异常」`}>
              <Tag color="orange">用量异常 {channel.usage_anomalies}</Tag>
            </Tooltip>
          )}
        </>
      ),
    },
    {
      key: 'response_time',
      title: '响应时间',
      dataIndex: 'response_time',
      sort: 'response_time',
      render: (ms: number, channel) => {
        const { color, text, failed } = testResultDisplay(ms, channel.test_error);
        const when = channel.test_time ? `上次测试时间：${formatTimestamp(channel.test_time)}` : '未测试';
        return (
          <Tooltip title={failed ? `${when}，失败原因：${channel.test_error}` : when}>
            <Tag color={color}>{text}</Tag>
          </Tooltip>
        );
      },
    },
    {
      key: 'balance',
      title: '余额',
      dataIndex: 'balance',
      sort: 'balance',
      render: (value: number, channel) => {
        const text = renderBalance(channel.type, value);
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
      key: 'priority',
      title: '优先级',
      dataIndex: 'priority',
      sort: 'priority',
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
            // Not a number (letters typed): nothing is sent, and the field shows the saved priority again.
            if (!Number.isFinite(Number(value))) {
              toast.error('优先级必须是整数');
              e.target.value = String(priority);
              return;
            }
            void save(channel, { priority: Math.trunc(Number(value)) });
          }}
        />
      ),
    },
    {
      key: 'test_model',
      title: '测试模型',
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
      key: 'actions',
      title: '操作',
      render: (_, channel) => (
        <Space size={4} wrap>
          <Button size="small" loading={testing.has(channel.id)} disabled={testing.has(channel.id)} onClick={() => void runTest(channel)}>
            测试
          </Button>
          <Popconfirm title={`确定删除渠道 ${channel.name}？`} okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void deleteChannel(channel)}>
            <Button size="small" danger>删除</Button>
          </Popconfirm>
          {channel.status === ChannelStatus.Enabled ? (
            <Button size="small" onClick={() => void save(channel, { status: ChannelStatus.ManuallyDisabled })}>禁用</Button>
          ) : (
            <Button size="small" onClick={() => void save(channel, { status: ChannelStatus.Enabled })}>启用</Button>
          )}
          <Button size="small" onClick={() => navigate(`/channel/edit/${channel.id}`)}>编辑</Button>
        </Space>
      ),
    },
  ];

  const runBusy = watchingRun || testAll.isPending;
  const notice = (
    <>
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
      {unpriced.length > 0 && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={`${unpriced.length} 个模型没有设置模型倍率，调用时将按默认倍率 30 计费`}
          description={
            <>
              {unpriced.slice(0, UNPRICED_SHOWN).join('、')}
              {unpriced.length > UNPRICED_SHOWN ? ` 等 ${unpriced.length} 个` : ''}。
              <Button type="link" size="small" onClick={() => navigate('/setting?tab=operation')}>前往运营设置设置倍率</Button>
            </>
          }
        />
      )}
      {watchingRun && (
        <div role="status" aria-label="渠道测试进度" style={{ marginBottom: 16 }}>
          <div>
            {run?.running && run.total > 0
              ? `正在测试${run.scope === 'disabled' ? '禁用' : '所有'}渠道：${run.done} / ${run.total}${run.failed ? `，失败 ${run.failed} 个` : ''}`
              : '正在开始测试渠道 ...'}
          </div>
          <Progress percent={run?.total ? Math.floor((run.done / run.total) * 100) : 0} status="active" />
        </div>
      )}
    </>
  );

  return (
    <ListTable<ChannelDto>
      title="渠道管理"
      list={list}
      columns={columns}
      notice={notice}
      search={{ placeholder: '搜索渠道的 ID，名称和密钥 ...' }}
      scrollX={1100}
      empty={{ description: '还没有渠道', action: { label: '添加第一个渠道', onClick: () => navigate('/channel/add') } }}
      footer={
        <Space wrap>
          <Button type="primary" onClick={() => navigate('/channel/add')}>添加新的渠道</Button>
          <Button loading={runBusy} disabled={runBusy} onClick={() => void startTests('all')}>测试所有渠道</Button>
          <Button loading={runBusy} disabled={runBusy} onClick={() => void startTests('disabled')}>测试禁用渠道</Button>
          <Popconfirm title="确定删除所有已禁用的渠道？" okText="删除" okButtonProps={{ danger: true }} cancelText="取消" onConfirm={() => void deleteDisabled()}>
            <Button danger>删除禁用渠道</Button>
          </Popconfirm>
          <Button onClick={() => void list.reload()}>刷新</Button>
        </Space>
      }
    />
  );
}
