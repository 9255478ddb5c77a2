import { LogType, type LogAttempt, type LogDto } from '@model-relay/contract';
import { Alert, Descriptions, Table, Tag } from 'antd';

/** How the client spoke to the gateway (the log's dialect), in words. */
const DIALECTS: Record<string, string> = {
  'openai-chat': 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  anthropic: 'Anthropic Messages',
  gemini: 'Gemini',
  'gemini-embeddings': 'Gemini embedContent',
};
export const dialectLabel = (dialect: string) => DIALECTS[dialect] ?? (dialect || '—');

const ms = (value: number) => (value > 0 ? `${value.toLocaleString('en-US')} 毫秒` : '—');
/** A whole request: milliseconds below a second (a fast answer is not "0.00 秒"), seconds above. */
const duration = (value: number) => (value < 1000 ? `${Math.max(0, Math.round(value))} 毫秒` : `${(value / 1000).toFixed(2)} 秒`);

/**
 * The detail of one request, opened from its log row: timing, stream, channel (admins), dialect, every kind of
 * token, and for a failed request (type 5) the error and the channels tried, each with why it was left.
 */
export function LogDetail({ log, admin }: { log: LogDto; admin: boolean }) {
  const failed = log.type === LogType.Error;
  const attempts = log.attempts ?? [];
  const items = [
    { key: 'request_id', label: '请求 ID', children: <code>{log.request_id || '—'}</code> },
    { key: 'elapsed', label: '总耗时', children: duration(log.elapsed_time) },
    { key: 'first_byte', label: '首字时间', children: ms(log.first_byte_ms) },
    { key: 'stream', label: '流式', children: log.is_stream ? '是' : '否' },
    { key: 'dialect', label: '接口格式', children: dialectLabel(log.dialect) },
    ...(admin ? [{ key: 'channel', label: '渠道', children: log.channel ? `#${log.channel} ${log.channel_name}` : '—' }] : []),
    { key: 'prompt', label: '输入 tokens', children: log.prompt_tokens },
    { key: 'completion', label: '输出 tokens', children: log.completion_tokens },
    { key: 'cached', label: '缓存读取 tokens', children: log.cached_tokens },
    { key: 'cache_write', label: '缓存写入 tokens', children: log.cache_write_tokens },
    { key: 'reasoning', label: '推理 tokens', children: log.reasoning_tokens },
    ...(log.routing?.affinity ? [{ key: 'affinity', label: '会话粘性', children: '是：沿用该会话上次应答的渠道' }] : []),
    ...(log.routing && log.routing.models.length > 1
      ? [{ key: 'fallback', label: '模型回退', span: 'filled' as const, children: `${log.routing.models.join(' → ')}（请求的模型为 ${log.routing.requested_model}，由 ${log.model_name} 应答并计费）` }]
      : []),
    ...(log.content ? [{ key: 'content', label: failed ? '说明' : '计费说明', span: 'filled' as const, children: log.content }] : []),
  ];
  return (
    <div className="log-detail" aria-label="请求详情">
      {failed && <Alert type="error" showIcon style={{ marginBottom: 12 }} title="请求失败，未扣费" description={log.error || '未记录失败原因'} />}
      <Descriptions size="small" bordered column={{ xs: 1, sm: 2, lg: 3 }} items={items} />
      {attempts.length > 0 && (
        <Table<LogAttempt & { n: number }>
          style={{ marginTop: 12 }}
          size="small"
          title={() => `尝试记录（共 ${attempts.length} 次）`}
          rowKey="n"
          pagination={false}
          dataSource={attempts.map((a, i) => ({ ...a, n: i + 1 }))}
          columns={[
            { key: 'n', title: '#', dataIndex: 'n', width: 48 },
            ...(admin ? [{ key: 'channel', title: '渠道', render: (_: unknown, a: LogAttempt) => (a.channel_id ? `#${a.channel_id} ${a.channel_name}` : '—') }] : []),
            { key: 'status', title: '状态', dataIndex: 'status', render: (status: number) => (status ? <Tag color={status >= 500 ? 'red' : status >= 400 ? 'orange' : 'green'}>HTTP {status}</Tag> : <Tag>未连接</Tag>) },
            { key: 'reason', title: '离开原因', dataIndex: 'reason' },
          ]}
        />
      )}
    </div>
  );
}
