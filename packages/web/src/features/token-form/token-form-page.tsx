import { DEFAULT_TOKEN_QUOTA, firstIssueMessage, splitList, TOKEN_NAME_MAX, TokenMessages, tokenInputSchema, type Limits } from '@model-relay/contract';
import { LimitInputs, NO_LIMITS } from '../../components/limit-inputs';
import { Button, Card, Checkbox, Form, Input, InputNumber, Select, Space } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useCreateToken } from '../../api/tokens/create-token';
import { useToken } from '../../api/tokens/get-token';
import { useUpdateToken } from '../../api/tokens/update-token';
import { useAvailableModels } from '../../api/users/get-available-models';
import { renderQuota } from '../../lib/format';
import { toast } from '../../lib/toast';
import { EXPIRY_SHORTCUTS, expiryFromShortcut, expiryText, parseExpiry } from './expiry';

interface FormState extends Limits {
  name: string;
  models: string[];
  subnet: string;
  expiry: string;
  remain_quota: number;
  unlimited_quota: boolean;
}

/** /token/add and /token/edit/{id} (docs/console.md §2, "Token form"). */
export default function TokenFormPage() {
  const { id } = useParams();
  const editing = Boolean(id);
  const navigate = useNavigate();
  // Defaults of docs/console.md §5 and §9: quota 500000 when creating, 0 when editing (until loaded); expiry -1.
  const [state, setState] = useState<FormState>({ name: '', models: [], subnet: '', expiry: '-1', remain_quota: editing ? 0 : DEFAULT_TOKEN_QUOTA, unlimited_quota: false, ...NO_LIMITS });
  const models = useAvailableModels().data ?? [];
  const loaded = useToken(editing ? Number(id) : undefined).data;
  const create = useCreateToken();
  const update = useUpdateToken();
  const saving = create.isPending || update.isPending;

  useEffect(() => {
    if (!loaded) return;
    setState({
      name: loaded.name,
      models: splitList(loaded.models),
      subnet: loaded.subnet,
      expiry: expiryText(loaded.expired_time),
      remain_quota: loaded.remain_quota,
      unlimited_quota: loaded.unlimited_quota,
      rpm_limit: loaded.rpm_limit ?? 0,
      tpm_limit: loaded.tpm_limit ?? 0,
      daily_quota_limit: loaded.daily_quota_limit ?? 0,
      monthly_quota_limit: loaded.monthly_quota_limit ?? 0,
    });
  }, [loaded]);

  const submit = async () => {
    if (!state.name.trim()) {
      toast.error(TokenMessages.nameRequired);
      return;
    }
    const expired = parseExpiry(state.expiry);
    if (expired === 'invalid') {
      toast.error(TokenMessages.expiryInvalid);
      return;
    }
    // The server's own schema checks the rest (name length, quota, the IP list) with the same messages.
    const parsed = tokenInputSchema.safeParse({
      name: state.name,
      models: state.models.join(','),
      subnet: splitList(state.subnet).join(','),
      expired_time: expired,
      remain_quota: Math.trunc(Number(state.remain_quota) || 0),
      unlimited_quota: state.unlimited_quota,
      rpm_limit: state.rpm_limit,
      tpm_limit: state.tpm_limit,
      daily_quota_limit: state.daily_quota_limit,
      monthly_quota_limit: state.monthly_quota_limit,
    });
    if (!parsed.success) {
      toast.error(firstIssueMessage(parsed.error));
      return;
    }
    try {
      if (editing) await update.mutateAsync({ ...parsed.data, id: Number(id) });
      else await create.mutateAsync(parsed.data);
      toast.success(editing ? '令牌更新成功！' : '令牌创建成功，请在列表页面点击复制获取令牌！');
      navigate('/token');
    } catch {
      /* shown by the request client */
    }
  };

  const set = <K extends keyof FormState>(key: K, value: FormState[K]) => setState((s) => ({ ...s, [key]: value }));
  return (
    <Card className="page-card" title={editing ? '更新令牌信息' : '创建新的令牌'} style={{ maxWidth: 720 }}>
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item label="名称" required>
          <Input placeholder="请输入名称" value={state.name} onChange={(e) => set('name', e.target.value)} maxLength={TOKEN_NAME_MAX} />
        </Form.Item>
        <Form.Item label="模型范围" extra="留空表示可以使用所有可用模型">
          <Select mode="multiple" aria-label="模型范围" placeholder="请选择允许使用的模型，留空则不进行限制" value={state.models} options={models.map((m) => ({ value: m, label: m }))} onChange={(v) => set('models', v)} allowClear />
        </Form.Item>
        <Form.Item label="IP 限制" extra="以英文逗号分隔的 IP 或 CIDR，留空表示不限制">
          <Input placeholder="例如：192.168.0.0/24,10.0.0.1" value={state.subnet} onChange={(e) => set('subnet', e.target.value)} />
        </Form.Item>
        <Form.Item label="过期时间" extra="格式 YYYY-MM-DD HH:mm:ss，-1 表示永不过期">
          <Input placeholder="请输入过期时间，格式为 yyyy-MM-dd HH:mm:ss，-1 表示无限制" value={state.expiry} onChange={(e) => set('expiry', e.target.value)} />
        </Form.Item>
        <Space wrap style={{ marginBottom: 16 }}>
          {EXPIRY_SHORTCUTS.map((s) => (
            <Button key={s.label} onClick={() => set('expiry', expiryFromShortcut(s.seconds))}>
              {s.label}
            </Button>
          ))}
        </Space>
        <Form.Item label={`额度${state.unlimited_quota ? '' : `（${renderQuota(Number(state.remain_quota) || 0)}）`}`}>
          <InputNumber aria-label="额度" precision={0} style={{ width: '100%' }} value={state.remain_quota} disabled={state.unlimited_quota} onChange={(v) => set('remain_quota', Math.trunc(Number(v ?? 0)))} />
        </Form.Item>
        <Form.Item>
          <Checkbox checked={state.unlimited_quota} onChange={(e) => set('unlimited_quota', e.target.checked)}>
            设为无限额度
          </Checkbox>
        </Form.Item>
        {/* Requests and tokens per minute, quota per day and month on this key (0 = none). */}
        <LimitInputs value={state} onChange={(limits: Limits) => setState((s) => ({ ...s, ...limits }))} />
        <Space>
          <Button onClick={() => navigate('/token')}>取消</Button>
          <Button type="primary" htmlType="submit" loading={saving}>
            提交
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
