import { DEFAULT_REDEMPTION_COUNT, DEFAULT_REDEMPTION_QUOTA, REDEMPTION_COUNT_MAX, REDEMPTION_NAME_MAX, firstIssueMessage, redemptionCreateSchema, redemptionUpdateSchema } from '@model-relay/contract';
import { Button, Card, Form, Input, InputNumber, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useCreateRedemptions } from '../../api/redemptions/create-redemptions';
import { useRedemption } from '../../api/redemptions/get-redemption';
import { useUpdateRedemption } from '../../api/redemptions/update-redemption';
import { downloadText } from '../../lib/download';
import { renderQuota } from '../../lib/format';
import { toast } from '../../lib/toast';

interface FormState {
  name: string;
  quota: number | null;
  count: number | null;
}

/** /redemption/add and /redemption/edit/{id} (docs/console.md §2, "Redemption form"): name, quota, count on creation. */
export default function RedemptionFormPage() {
  const { id } = useParams();
  const editing = id !== undefined;
  const navigate = useNavigate();
  // Defaults of docs/console.md §5 and §9: quota 100000, count 1 (an edit shows the code's own once loaded).
  const [state, setState] = useState<FormState>({ name: '', quota: editing ? null : DEFAULT_REDEMPTION_QUOTA, count: DEFAULT_REDEMPTION_COUNT });
  const loaded = useRedemption(editing ? Number(id) : undefined).data;
  const create = useCreateRedemptions();
  const update = useUpdateRedemption();

  useEffect(() => {
    if (loaded) setState((s) => ({ ...s, name: loaded.name, quota: loaded.quota }));
  }, [loaded]);

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setState((s) => ({ ...s, [key]: value }));

  const submit = async () => {
    // The server's own schema: the same messages here and in the API.
    try {
      if (editing) {
        const parsed = redemptionUpdateSchema.safeParse({ id, name: state.name, quota: state.quota ?? '' });
        if (!parsed.success) return toast.error(firstIssueMessage(parsed.error));
        await update.mutateAsync(parsed.data);
        toast.success('兑换码更新成功！');
        navigate('/redemption');
        return;
      }
      const parsed = redemptionCreateSchema.safeParse({ name: state.name, quota: state.quota ?? '', count: state.count ?? '' });
      if (!parsed.success) return toast.error(firstIssueMessage(parsed.error));
      const codes = await create.mutateAsync(parsed.data);
      // The codes exist only in this answer on the admin's side: they are saved as a file named after the name.
      downloadText(`${parsed.data.name}.txt`, `${codes.join('\n')}\n`);
      toast.success(`兑换码创建成功！已生成 ${codes.length} 个并下载`);
      navigate('/redemption');
    } catch {
      /* shown by the request client */
    }
  };

  return (
    <Card className="page-card" title={editing ? '更新兑换码信息' : '创建新的兑换码'} style={{ maxWidth: 640 }}>
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item label="名称" required>
          <Input placeholder="请输入名称" value={state.name} onChange={(e) => set('name', e.target.value)} maxLength={REDEMPTION_NAME_MAX} />
        </Form.Item>
        <Form.Item label={`额度${state.quota ? `（${renderQuota(state.quota)}）` : ''}`}>
          <InputNumber aria-label="额度" precision={0} style={{ width: '100%' }} placeholder="请输入单个兑换码中包含的额度" value={state.quota} onChange={(v) => set('quota', v === null ? null : Math.trunc(Number(v)))} />
        </Form.Item>
        {!editing && (
          <Form.Item label="生成数量" extra={`一次最多 ${REDEMPTION_COUNT_MAX} 个；创建后兑换码以文本文件下载`}>
            <InputNumber aria-label="生成数量" precision={0} style={{ width: '100%' }} placeholder="请输入生成数量" value={state.count} onChange={(v) => set('count', v === null ? null : Math.trunc(Number(v)))} />
          </Form.Item>
        )}
        <Space>
          <Button onClick={() => navigate('/redemption')}>取消</Button>
          <Button type="primary" htmlType="submit" loading={create.isPending || update.isPending}>
            提交
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
