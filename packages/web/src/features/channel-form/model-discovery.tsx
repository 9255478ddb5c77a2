import { Checkbox, Empty, Modal, Space, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';

interface Props {
  /** The upstream's list; undefined while the dialog is closed. */
  upstream: string[] | undefined;
  /** The models the form holds now. */
  current: string[];
  onAdd(models: string[]): void;
  onClose(): void;
}

/**
 * The channel form's 获取模型列表 dialog: what the upstream lists that the channel does not have yet (ticked to be
 * added), and what the channel lists that the upstream no longer does (shown, left to the admin to remove).
 */
export function ModelDiscovery({ upstream, current, onAdd, onClose }: Props) {
  const fresh = useMemo(() => (upstream ?? []).filter((m) => !current.includes(m)), [upstream, current]);
  const gone = useMemo(() => (upstream ? current.filter((m) => !upstream.includes(m)) : []), [upstream, current]);
  const [ticked, setTicked] = useState<string[]>([]);
  useEffect(() => setTicked(fresh), [fresh]);

  return (
    <Modal
      open={upstream !== undefined}
      title="上游模型列表"
      okText={`添加选中的 ${ticked.length} 个模型`}
      cancelText="取消"
      okButtonProps={{ disabled: ticked.length === 0 }}
      onOk={() => onAdd(ticked)}
      onCancel={onClose}
      width={640}
    >
      <Typography.Paragraph>{`上游共列出 ${upstream?.length ?? 0} 个模型，其中 ${fresh.length} 个是本渠道还没有的。`}</Typography.Paragraph>
      {fresh.length === 0 ? (
        <Empty description="没有新模型" image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <>
          <Checkbox
            checked={ticked.length === fresh.length}
            indeterminate={ticked.length > 0 && ticked.length < fresh.length}
            onChange={(e) => setTicked(e.target.checked ? fresh : [])}
          >
            全选
          </Checkbox>
          <div style={{ maxHeight: 320, overflow: 'auto', marginTop: 8 }}>
            <Checkbox.Group value={ticked} onChange={(v) => setTicked(v as string[])} aria-label="新模型">
              <Space orientation="vertical">
                {fresh.map((m) => (
                  <Checkbox key={m} value={m}>
                    {m} <Tag color="green">新</Tag>
                  </Checkbox>
                ))}
              </Space>
            </Checkbox.Group>
          </div>
        </>
      )}
      {gone.length > 0 && (
        <Typography.Paragraph type="warning" style={{ marginTop: 12, marginBottom: 0 }}>
          {`上游已不再列出（可能已下线）：${gone.join('、')}`}
        </Typography.Paragraph>
      )}
    </Modal>
  );
}
