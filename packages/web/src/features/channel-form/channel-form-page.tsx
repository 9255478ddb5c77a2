import { AZURE_CHANNEL_TYPE, AZURE_DEFAULT_API_VERSION, CHANNEL_KEY_HINTS, CHANNEL_TYPES, MODEL_MAPPING_EXAMPLE, PROXY_CHANNEL_TYPE, channelInputSchema, firstIssueMessage, providerInfo, splitList } from '@model-relay/contract';
import { Alert, Button, Card, Checkbox, Form, Input, InputNumber, Select, Space, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useCreateChannels } from '../../api/channels/create-channels';
import { useChannel } from '../../api/channels/get-channel';
import { useUpdateChannel } from '../../api/channels/update-channel';
import { useFetchChannelModels } from '../../api/channels/fetch-channel-models';
import { ModelDiscovery } from './model-discovery';
import { useGroups } from '../../api/groups/get-groups';
import { useUnpricedAmong } from '../../api/pricing/get-unpriced-models';
import { channelModelsOf, loadChannelModels } from '../../lib/channel-models';
import { toast } from '../../lib/toast';
import { buildChannelBody, type ChannelFormState } from './channel-body';
import { EMPTY_CONFIG, composeKey, configText, parseChannelConfig, type ChannelConfig } from './channel-key';

const CATEGORY_LABELS = { main: '主要类型', knowledge: '知识库', proxy: '代理' } as const;

type State = ChannelFormState;

/** /channel/add and /channel/edit/{id} (docs/console.md §2, "Channel form"). */
export default function ChannelFormPage() {
  const { id } = useParams();
  const editing = Boolean(id);
  const navigate = useNavigate();
  const [state, setState] = useState<State>({ type: 1, name: '', groups: ['default'], models: [], model_mapping: '', key: '', base_url: '', other: '', priority: 0, weight: 0, batch: false });
  const [config, setConfig] = useState<ChannelConfig>(EMPTY_CONFIG);
  const groups = [...new Set(['default', ...(useGroups().data ?? [])])];
  const [customModel, setCustomModel] = useState('');
  const fetchModels = useFetchChannelModels();
  /** What the upstream listed, while the discovery dialog is open. */
  const [discovered, setDiscovered] = useState<string[] | undefined>(undefined);
  const unpriced = useUnpricedAmong(state.models).data ?? [];
  const [, setModelsLoaded] = useState(0);
  const loaded = useChannel(editing ? Number(id) : undefined).data;
  const create = useCreateChannels();
  const update = useUpdateChannel();
  const saving = create.isPending || update.isPending;
  const set = <K extends keyof State>(key: K, value: State[K]) => setState((s) => ({ ...s, [key]: value }));

  useEffect(() => {
    loadChannelModels().then(() => setModelsLoaded((n) => n + 1)).catch(() => undefined);
  }, []);
  useEffect(() => {
    if (!loaded) return;
    const c = loaded;
    setState({
      type: c.type,
      name: c.name,
      groups: splitList(c.group),
      models: splitList(c.models),
      model_mapping: c.model_mapping,
      key: '',
      base_url: c.base_url,
      other: c.other,
      priority: c.priority,
      weight: c.weight,
      batch: false,
    });
    setConfig(parseChannelConfig(c.config));
  }, [loaded]);

  const typeOptions = useMemo(
    () =>
      (Object.keys(CATEGORY_LABELS) as Array<keyof typeof CATEGORY_LABELS>).map((category) => ({
        label: CATEGORY_LABELS[category],
        options: CHANNEL_TYPES.filter((t) => t.category === category).map((t) => ({ value: t.value, label: <Tag color={t.color}>{t.text}</Tag>, title: t.text })),
      })),
    [],
  );
  const modelOptions = [...new Set([...channelModelsOf(state.type), ...state.models])].map((m) => ({ value: m, label: m }));

  const submit = async () => {
    const result = buildChannelBody(state, config, editing);
    if ('error' in result) {
      toast.info(result.error);
      return;
    }
    const { body } = result;
    // The server's own schema checks the body too (model mapping and config JSON), with the same messages.
    const parsed = channelInputSchema.safeParse(body);
    if (!parsed.success) {
      toast.info(firstIssueMessage(parsed.error));
      return;
    }
    try {
      if (editing) await update.mutateAsync({ ...body, id: Number(id) });
      else await create.mutateAsync(body);
      toast.success(editing ? '渠道更新成功！' : '渠道创建成功！');
      navigate('/channel');
    } catch {
      /* shown by the request client */
    }
  };

  const setField = (key: keyof ChannelConfig) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setConfig((c) => ({ ...c, [key]: e.target.value }));
  const keyHint = CHANNEL_KEY_HINTS[state.type] ?? '请输入渠道对应的鉴权密钥';

  return (
    <Card className="page-card" title={editing ? '更新渠道信息' : '创建新的渠道'} style={{ maxWidth: 860 }}>
      <Form layout="vertical" onFinish={() => void submit()}>
        <Form.Item label="类型">
          <Select aria-label="渠道类型" value={state.type} options={typeOptions} onChange={(v) => set('type', v)} showSearch optionFilterProp="title" />
        </Form.Item>
        {providerInfo(state.type).retired && (
          <Form.Item>
            <Alert type="warning" showIcon message={providerInfo(state.type).retired} />
          </Form.Item>
        )}
        <Form.Item label="名称">
          <Input placeholder="请为渠道命名" value={state.name} onChange={(e) => set('name', e.target.value)} />
        </Form.Item>
        {state.type === AZURE_CHANNEL_TYPE && (
          <Form.Item label="默认 API 版本" extra="请输入默认 API 版本，例如：2024-03-01-preview，该配置可以被实际的请求查询参数所覆盖">
            <Input placeholder={AZURE_DEFAULT_API_VERSION} value={state.other} onChange={(e) => set('other', e.target.value)} />
          </Form.Item>
        )}
        <Form.Item label={state.type === AZURE_CHANNEL_TYPE ? 'AZURE_OPENAI_ENDPOINT' : state.type === 8 ? 'Base URL' : '代理'} extra={state.type === AZURE_CHANNEL_TYPE ? '例如：https://docs-test-001.openai.azure.com' : '此项可选，用于通过代理站来进行 API 调用，请输入代理站地址，格式为：https://domain.com'}>
          <Input placeholder={state.type === AZURE_CHANNEL_TYPE ? '请输入 AZURE_OPENAI_ENDPOINT' : '请输入代理地址'} value={state.base_url} onChange={(e) => set('base_url', e.target.value)} />
        </Form.Item>
        <Form.Item label="分组">
          <Select mode="tags" aria-label="分组" placeholder="请选择可以使用该渠道的分组" value={state.groups} options={groups.map((g) => ({ value: g, label: g }))} onChange={(v) => set('groups', v)} />
        </Form.Item>
        {state.type !== PROXY_CHANNEL_TYPE && (
          <Form.Item label="模型">
            <Select mode="multiple" aria-label="模型" placeholder="请选择该渠道所支持的模型" value={state.models} options={modelOptions} onChange={(v) => set('models', v)} allowClear />
            <Space wrap style={{ marginTop: 8 }}>
              <Button onClick={() => set('models', [...new Set([...state.models, ...channelModelsOf(state.type)])])}>填入相关模型</Button>
              <Button onClick={() => set('models', [])}>清除所有模型</Button>
              <Button
                loading={fetchModels.isPending}
                onClick={() =>
                  fetchModels.mutate(
                    { id: editing ? Number(id) : undefined, type: state.type, key: composeKey(state.type, config, state.key), base_url: state.base_url, other: state.other, config: configText(state.type, config) },
                    { onSuccess: (upstream) => setDiscovered(upstream) },
                  )
                }
              >
                获取模型列表
              </Button>
              <Space.Compact>
                <Input placeholder="输入自定义模型名称" value={customModel} onChange={(e) => setCustomModel(e.target.value)} />
                <Button
                  onClick={() => {
                    const names = customModel.split(',').map((m) => m.trim()).filter(Boolean);
                    if (names.length) set('models', [...new Set([...state.models, ...names])]);
                    setCustomModel('');
                  }}
                >
                  填入
                </Button>
              </Space.Compact>
            </Space>
            {unpriced.length > 0 && (
              <Typography.Paragraph type="warning" style={{ marginTop: 8, marginBottom: 0 }}>
                {`以下模型没有设置模型倍率，调用时将按默认倍率 30 计费（可在 设置 → 运营设置 中设置）：${unpriced.slice(0, 12).join('、')}${unpriced.length > 12 ? ` 等 ${unpriced.length} 个` : ''}`}
              </Typography.Paragraph>
            )}
          </Form.Item>
        )}
        <ModelDiscovery
          upstream={discovered}
          current={state.models}
          onClose={() => setDiscovered(undefined)}
          onAdd={(added) => {
            set('models', [...new Set([...state.models, ...added])]);
            setDiscovered(undefined);
          }}
        />
        <Form.Item label="模型重定向" extra="此项可选，用于修改请求体中的模型名称，为一个 JSON 字符串，键为请求中模型名称，值为要替换的模型名称">
          <Input.TextArea aria-label="模型重定向" placeholder={`例如：\n${MODEL_MAPPING_EXAMPLE}`} autoSize={{ minRows: 3, maxRows: 10 }} value={state.model_mapping} onChange={(e) => set('model_mapping', e.target.value)} style={{ fontFamily: 'monospace' }} />
        </Form.Item>
        {state.type === 33 ? (
          <Space orientation="vertical" style={{ width: '100%', marginBottom: 24 }}>
            <Input placeholder="AWS IAM Access Key (AK)" value={config.ak} onChange={setField('ak')} />
            <Input.Password placeholder={editing ? "AWS IAM Secret Key (SK)，留空表示不修改" : "AWS IAM Secret Key (SK)"} value={config.sk} onChange={setField('sk')} />
            <Input placeholder="区域 Region，例如：us-west-2" value={config.region} onChange={setField('region')} />
          </Space>
        ) : state.type === 42 ? (
          <Space orientation="vertical" style={{ width: '100%', marginBottom: 24 }}>
            <Input placeholder="Vertex AI 区域 Region，例如：us-east5" value={config.region} onChange={setField('region')} />
            <Input placeholder="Vertex AI Project ID" value={config.vertex_ai_project_id} onChange={setField('vertex_ai_project_id')} />
            <Input.TextArea placeholder={editing ? "Google Cloud Application Default Credentials JSON，留空表示不修改" : "Google Cloud Application Default Credentials JSON"} value={config.vertex_ai_adc} onChange={setField('vertex_ai_adc')} autoSize={{ minRows: 3 }} />
          </Space>
        ) : (
          <Form.Item label="密钥" extra={editing ? '留空表示不修改密钥' : undefined}>
            {state.batch ? (
              <Input.TextArea aria-label="密钥" placeholder="请输入密钥，一行一个" autoSize={{ minRows: 3 }} value={state.key} onChange={(e) => set('key', e.target.value)} />
            ) : (
              <Input aria-label="密钥" placeholder={keyHint} value={state.key} onChange={(e) => set('key', e.target.value)} />
            )}
          </Form.Item>
        )}
        {state.type === 34 && (
          <Form.Item label="User ID">
            <Input placeholder="生成该密钥的用户 ID" value={config.user_id} onChange={setField('user_id')} />
          </Form.Item>
        )}
        {state.type === 37 && (
          <Form.Item label="Account ID" extra="Cloudflare 控制台 Workers AI 页面上的 Account ID，请求发往 /client/v4/accounts/{Account ID}/ai/v1">
            <Input placeholder="请输入 Account ID" value={config.user_id} onChange={setField('user_id')} />
          </Form.Item>
        )}
        {providerInfo(state.type).anthropicPath && (
          <Form.Item extra={`开启后，Claude Code 等 /v1/messages 客户端的请求原样转发到厂商的 Claude 兼容接口（${providerInfo(state.type).anthropicPath}/v1/messages），不做格式转换`}>
            <Checkbox checked={config.claude_api === 'on'} onChange={(e) => setConfig((c) => ({ ...c, claude_api: e.target.checked ? 'on' : '' }))}>
              使用厂商的 Claude 兼容接口
            </Checkbox>
          </Form.Item>
        )}
        {state.type === 21 && (
          <Form.Item label="知识库 ID" extra="AI Proxy 知识库的 ID（libraryId），问答将在该知识库中检索">
            <Input placeholder="请输入知识库 ID" value={state.other} onChange={(e) => set('other', e.target.value)} />
          </Form.Item>
        )}
        {!editing && (
          <Form.Item>
            <Checkbox checked={state.batch} onChange={(e) => set('batch', e.target.checked)}>
              批量创建（一行一个密钥）
            </Checkbox>
          </Form.Item>
        )}
        <Space size="large" wrap style={{ marginBottom: 24 }}>
          <span>
            优先级 <InputNumber aria-label="优先级" precision={0} value={state.priority} onChange={(v) => set('priority', v)} />
          </span>
          <span>
            权重 <InputNumber aria-label="权重" precision={0} value={state.weight} onChange={(v) => set('weight', v)} />
          </span>
        </Space>
        <div>
          <Space>
            <Button onClick={() => navigate('/channel')}>取消</Button>
            <Button type="primary" htmlType="submit" loading={saving}>
              提交
            </Button>
          </Space>
        </div>
      </Form>
    </Card>
  );
}
