import { CHANNEL_TYPES, MODEL_MAPPING_EXAMPLE } from '@model-relay/contract';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { message } from 'antd';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetChannelModelsMemory } from '../../lib/channel-models';
import { mockApi, renderWith, users } from '../../test-support';
import ChannelFormPage from './channel-form-page';

const ok = (data?: unknown) => () => ({ success: true, message: '', data });
const perType = { 1: ['gpt-4o', 'gpt-4o-mini'], 3: ['gpt-4o'], 14: ['claude-3-haiku', 'claude-3-opus'], 33: ['claude-3-haiku'], 42: ['gemini-1.5-pro'], 43: [] };
const stored = {
  id: 7, type: 1, name: 'openai-main', key: '', status: 1, weight: 2, priority: 5, created_time: 0, test_time: 0, response_time: 800, base_url: 'https://proxy.example.com',
  other: '', balance: 12.5, balance_updated_time: 0, models: 'gpt-4o,gpt-4o-mini', group: 'default,vip', used_quota: 0, request_count: 0,
  model_mapping: '{"gpt-4o-2024-05-13":"gpt-4o"}', config: '', system_prompt: '',
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
beforeEach(() => resetChannelModelsMemory());
afterEach(() => message.destroy());

const page = (
  <Routes>
    <Route path="/channel/add" element={<ChannelFormPage />} />
    <Route path="/channel/edit/:id" element={<ChannelFormPage />} />
    <Route path="/channel" element={<div>channel list screen</div>} />
  </Routes>
);

/** Renders /channel/add (or an edit path) with GET /api/models and GET /api/group/ answered; returns the recorded calls. */
async function renderForm(handlers: Parameters<typeof mockApi>[0] = {}, path = '/channel/add') {
  const calls = mockApi({ 'GET /api/models': ok(perType), 'GET /api/group/': ok(['default', 'vip']), 'POST /api/channel/': ok(1), 'PUT /api/channel/': ok(stored), ...handlers });
  renderWith(page, { user: users.root, path });
  await waitFor(() => expect(calls.some((c) => c.url === '/api/models')).toBe(true));
  return calls;
}

const input = (placeholder: string | RegExp) => screen.getByPlaceholderText(placeholder) as HTMLInputElement;
const nameInput = () => input('请为渠道命名');
const keyInput = () => screen.getByRole('textbox', { name: '密钥' }) as HTMLInputElement;
const mappingInput = () => screen.getByRole('textbox', { name: '模型重定向' }) as HTMLTextAreaElement;
const baseUrlInput = () => input(/请输入代理地址|请输入 AZURE_OPENAI_ENDPOINT/);
const typeName = (text: string) => fireEvent.change(nameInput(), { target: { value: text } });
const submit = () => fireEvent.click(screen.getByRole('button', { name: '提交' }));
/** The values shown as chips in a multi-select (groups or models). */
const chips = (label: string) => [...(screen.getByRole('combobox', { name: label }).closest('.ant-select')?.querySelectorAll('.ant-select-selection-item') ?? [])].map((el) => el.getAttribute('title'));
const sent = (calls: ReturnType<typeof mockApi>, method: 'POST' | 'PUT') => calls.filter((c) => c.method === method && c.url === '/api/channel/');

/** Opens a select (optionally typing a search) and clicks the option with that title. */
async function pick(label: string, title: string, search?: string) {
  const box = screen.getByRole('combobox', { name: label });
  fireEvent.mouseDown(box);
  if (search !== undefined) fireEvent.change(box, { target: { value: search } });
  const option = await waitFor(() => {
    const found = [...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')].find((el) => el.getAttribute('title') === title);
    expect(found).toBeTruthy();
    return found as HTMLElement;
  });
  fireEvent.click(option);
}
const pickType = (text: string) => pick('渠道类型', text, text);

// Antd selects in happy-dom are slow to drive; leave room on a busy machine.
describe('channel form: add', { timeout: 15_000 }, () => {
  // covers S2-ROUTES-08, S2-CHANNELFORM-01, S3-ENTITY-13
  it('offers every type of the catalogue, grouped as main types, knowledge bases and proxies', async () => {
    await renderForm();
    expect(screen.getByText('创建新的渠道')).toBeTruthy();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '渠道类型' }));
    await waitFor(() => expect(document.querySelector('.ant-select-item-group[title="主要类型"]')).toBeTruthy());
    for (const { text } of CHANNEL_TYPES) {
      fireEvent.change(screen.getByRole('combobox', { name: '渠道类型' }), { target: { value: text } });
      expect([...document.querySelectorAll('.ant-select-item-option')].map((el) => el.getAttribute('title'))).toContain(text);
    }
    fireEvent.change(screen.getByRole('combobox', { name: '渠道类型' }), { target: { value: 'FastGPT' } });
    await waitFor(() => expect(document.querySelector('.ant-select-item-group[title="知识库"]')).toBeTruthy());
    fireEvent.change(screen.getByRole('combobox', { name: '渠道类型' }), { target: { value: 'OpenRouter' } });
    await waitFor(() => expect(document.querySelector('.ant-select-item-group[title="代理"]')).toBeTruthy());
  });

  // covers S2-CHANNELFORM-01, S2-CHANNELFORM-02, S2-CHANNELFORM-03, S2-CHANNELFORM-04, S2-CHANNELFORM-05, S2-CHANNELFORM-06, S2-CHANNELFORM-07, S3-ENTITY-13, S3-ENTITY-14, S3-ENTITY-15, S3-ENTITY-17, S3-ENTITY-19, S5-VALID-39, S7-API-36, S7-API-46, S8-ERRORS-27
  it('sends type, name, groups and models joined with commas, the mapping, key and base URL by POST, without test_model', async () => {
    const calls = await renderForm();
    await pickType('Anthropic Claude');
    typeName('  claude-main  ');
    expect(chips('分组')).toEqual(['default']);
    await pick('分组', 'vip');
    expect(chips('分组')).toEqual(['default', 'vip']);
    // The per-type list of GET /api/models fills the models of the chosen type (14), then a custom name is added.
    expect(chips('模型')).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    expect(chips('模型')).toEqual(['claude-3-haiku', 'claude-3-opus']);
    fireEvent.change(input('输入自定义模型名称'), { target: { value: 'claude-x, claude-3-opus' } });
    fireEvent.click(screen.getByRole('button', { name: '填入' }));
    expect(chips('模型')).toEqual(['claude-3-haiku', 'claude-3-opus', 'claude-x']);
    // The model redirect shows an example mapping dated names to base names.
    expect(mappingInput().placeholder).toContain(MODEL_MAPPING_EXAMPLE);
    expect(mappingInput().placeholder).toContain('"gpt-4-0314": "gpt-4"');
    fireEvent.change(mappingInput(), { target: { value: '{"claude-3-haiku-20240307":"claude-3-haiku"}' } });
    expect(keyInput().placeholder).toBe('请输入渠道对应的鉴权密钥');
    fireEvent.change(keyInput(), { target: { value: 'sk-ant-1' } });
    fireEvent.change(baseUrlInput(), { target: { value: 'https://proxy.example.com/' } });
    submit();

    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toEqual({
      type: 14, name: 'claude-main', key: 'sk-ant-1', base_url: 'https://proxy.example.com', other: '', model_mapping: '{"claude-3-haiku-20240307":"claude-3-haiku"}',
      models: 'claude-3-haiku,claude-3-opus,claude-x', group: 'default,vip', config: '', priority: 0, weight: 0,
    });
    expect(await screen.findByText('渠道创建成功！')).toBeTruthy();
    expect(await screen.findByText('channel list screen')).toBeTruthy();
  });

  it('获取模型列表 asks the upstream with the form\'s key, shows what is new (ticked) and what is gone, and adds the ticked ones', async () => {
    const calls = await renderForm({ 'POST /api/channel/fetch_models': ok(['gpt-4o', 'gpt-4.1', 'o3']) });
    await pick('模型', 'gpt-4o-mini');
    await pick('模型', 'gpt-4o');
    fireEvent.change(keyInput(), { target: { value: 'sk-live' } });
    fireEvent.click(screen.getByRole('button', { name: '获取模型列表' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/channel/fetch_models')).toBe(true));
    expect(calls.find((c) => c.url === '/api/channel/fetch_models')?.body).toMatchObject({ type: 1, key: 'sk-live', base_url: '' });
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('上游共列出 3 个模型，其中 2 个是本渠道还没有的。');
    expect(dialog.textContent).toContain('上游已不再列出（可能已下线）：gpt-4o-mini');
    // untick o3, add gpt-4.1 only
    fireEvent.click(screen.getByRole('checkbox', { name: /o3/ }));
    fireEvent.click(screen.getByRole('button', { name: '添加选中的 1 个模型' }));
    await waitFor(() => expect(chips('模型')).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1']));
  });

  // covers S2-CHANNELFORM-06, S5-VALID-43, S5-VALID-44, S5-VALID-45, S5-VALID-46
  it('shows the key format hint of the chosen type', async () => {
    await renderForm();
    const hints: Array<[string, string]> = [['百度文心千帆', 'APIKey|SecretKey'], ['讯飞星火认知', 'APPID|APISecret|APIKey'], ['知识库：FastGPT', 'APIKey-AppId'], ['腾讯混元', 'AppId|SecretId|SecretKey']];
    for (const [text, hint] of hints) {
      await pickType(text);
      await waitFor(() => expect(keyInput().placeholder).toContain(hint));
    }
  });

  // covers S2-CHANNELFORM-08
  it('batch create takes one key per line and sends them all', async () => {
    const calls = await renderForm();
    typeName('bulk');
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.click(screen.getByRole('checkbox', { name: '批量创建（一行一个密钥）' }));
    expect(keyInput().tagName).toBe('TEXTAREA');
    expect(keyInput().placeholder).toBe('请输入密钥，一行一个');
    fireEvent.change(keyInput(), { target: { value: 'sk-a\nsk-b\nsk-c' } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 1, name: 'bulk', key: 'sk-a\nsk-b\nsk-c', models: 'gpt-4o,gpt-4o-mini', group: 'default' });
  });

  // covers S5-VALID-40
  it('Azure shows the API version field and sends 2024-03-01-preview in other when it is left empty', async () => {
    const calls = await renderForm();
    await pickType('Azure OpenAI');
    expect(input('2024-03-01-preview').value).toBe('');
    expect(input('请输入 AZURE_OPENAI_ENDPOINT')).toBeTruthy();
    typeName('azure');
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.change(keyInput(), { target: { value: 'az-key' } });
    fireEvent.change(baseUrlInput(), { target: { value: 'https://docs-test-001.openai.azure.com' } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 3, key: 'az-key', other: '2024-03-01-preview', models: 'gpt-4o', base_url: 'https://docs-test-001.openai.azure.com' });
  });

  // covers S5-VALID-41, S2-CHANNELFORM-09, S3-ENTITY-16
  it('AWS composes the key as AK|SK|region from its own fields and keeps them in config', async () => {
    const calls = await renderForm();
    typeName('bedrock');
    await pickType('AWS');
    expect(screen.queryByRole('textbox', { name: '密钥' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.change(input('AWS IAM Access Key (AK)'), { target: { value: 'AKIA1' } });
    fireEvent.change(input('AWS IAM Secret Key (SK)'), { target: { value: 'secret1' } });
    fireEvent.change(input(/^区域 Region/), { target: { value: 'us-west-2' } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 33, key: 'AKIA1|secret1|us-west-2', models: 'claude-3-haiku', config: JSON.stringify({ region: 'us-west-2', ak: 'AKIA1', sk: 'secret1' }) });
  });

  // covers S5-VALID-42, S2-CHANNELFORM-09, S3-ENTITY-16
  it('Vertex AI composes the key as region|project id|credentials JSON and keeps the parts in config', async () => {
    const calls = await renderForm();
    typeName('vertex');
    await pickType('VertexAI');
    expect(screen.queryByRole('textbox', { name: '密钥' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.change(input(/^Vertex AI 区域 Region/), { target: { value: 'us-east5' } });
    fireEvent.change(input('Vertex AI Project ID'), { target: { value: 'proj-1' } });
    fireEvent.change(input('Google Cloud Application Default Credentials JSON'), { target: { value: '{"type":"service_account"}' } });
    submit();
    // Credentials that are not a service-account key file could log in nowhere: refused before anything is sent.
    expect(await screen.findByText('Vertex AI 渠道的密钥必须是服务账号的 JSON（"type": "service_account"，含 client_email 与 private_key）')).toBeTruthy();
    expect(sent(calls, 'POST')).toHaveLength(0);
    const account = '{"type":"service_account","client_email":"sa@proj-1.iam.gserviceaccount.com","private_key":"k"}';
    fireEvent.change(input('Google Cloud Application Default Credentials JSON'), { target: { value: account } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({
      type: 42, key: `us-east5|proj-1|${account}`, models: 'gemini-1.5-pro',
      config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: account }),
    });
  });

  // covers S2-CHANNELFORM-09, S3-ENTITY-16
  it('Coze keeps the user ID in config', async () => {
    const calls = await renderForm();
    typeName('coze');
    await pickType('Coze');
    fireEvent.change(input('输入自定义模型名称'), { target: { value: 'coze-bot' } });
    fireEvent.click(screen.getByRole('button', { name: '填入' }));
    fireEvent.change(keyInput(), { target: { value: 'pat-1' } });
    fireEvent.change(input('生成该密钥的用户 ID'), { target: { value: 'u-42' } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 34, key: 'pat-1', models: 'coze-bot', config: '{"user_id":"u-42"}' });
  });

  it('the AI Proxy knowledge base keeps its 知识库 ID in other', async () => {
    const calls = await renderForm();
    typeName('library');
    await pickType('知识库：AI Proxy');
    fireEvent.change(input('输入自定义模型名称'), { target: { value: 'gpt-4o-mini' } });
    fireEvent.click(screen.getByRole('button', { name: '填入' }));
    fireEvent.change(keyInput(), { target: { value: 'ak-1' } });
    fireEvent.change(input('请输入知识库 ID'), { target: { value: ' 10817 ' } });
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 21, key: 'ak-1', models: 'gpt-4o-mini', other: '10817' });
  });

  // covers S5-VALID-35, S5-VALID-36, S5-VALID-37, S5-VALID-38, S1-PRODUCT-01
  it('rejects a missing name or key, no model and an invalid mapping in Chinese without sending; type 43 needs no model', async () => {
    const calls = await renderForm();
    submit();
    expect(await screen.findByText('请填写渠道名称和渠道密钥！')).toBeTruthy();
    typeName('main');
    submit();
    await waitFor(() => expect(screen.getAllByText('请填写渠道名称和渠道密钥！')).toHaveLength(2));
    fireEvent.change(keyInput(), { target: { value: 'sk-1' } });
    submit();
    expect(await screen.findByText('请至少选择一个模型！')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.change(mappingInput(), { target: { value: '{"gpt-4o-2024-05-13": ' } });
    submit();
    expect(await screen.findByText('模型重定向必须是合法的 JSON 格式！')).toBeTruthy();
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);

    fireEvent.change(mappingInput(), { target: { value: '' } });
    await pickType('Proxy');
    expect(screen.queryByRole('combobox', { name: '模型' })).toBeNull();
    submit();
    await waitFor(() => expect(sent(calls, 'POST')).toHaveLength(1));
    expect(sent(calls, 'POST')[0]?.body).toMatchObject({ type: 43, name: 'main', key: 'sk-1', models: '' });
  });

  // covers S8-ERRORS-09
  it('a refused save shows the server message and stays on the form', async () => {
    await renderForm({ 'POST /api/channel/': () => ({ success: false, message: '渠道名称已存在' }) });
    typeName('dup');
    fireEvent.click(screen.getByRole('button', { name: '填入相关模型' }));
    fireEvent.change(keyInput(), { target: { value: 'sk-1' } });
    submit();
    expect(await screen.findByText('渠道名称已存在')).toBeTruthy();
    expect(screen.queryByText('channel list screen')).toBeNull();
  });
});

describe('channel form: edit', { timeout: 15_000 }, () => {
  // covers S2-ROUTES-08, S2-CHANNELFORM-02, S2-CHANNELFORM-03, S2-CHANNELFORM-04, S2-CHANNELFORM-05, S2-CHANNELFORM-06, S2-CHANNELFORM-07, S3-ENTITY-13, S3-ENTITY-14, S3-ENTITY-15, S3-ENTITY-17, S3-ENTITY-19, S5-VALID-47, S5-VALID-49, S7-API-45, S7-API-47, S8-ERRORS-28
  it('loads the channel, splits groups and models into lists, and saves the full channel by PUT with an empty key kept', async () => {
    const calls = await renderForm({ 'GET /api/channel/7': ok(stored) }, '/channel/edit/7');
    expect(screen.getByText('更新渠道信息')).toBeTruthy();
    await waitFor(() => expect(nameInput().value).toBe('openai-main'));
    expect(calls.some((c) => c.method === 'GET' && c.url === '/api/channel/7')).toBe(true);
    expect(chips('分组')).toEqual(['default', 'vip']);
    expect(chips('模型')).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(mappingInput().value).toBe('{"gpt-4o-2024-05-13":"gpt-4o"}');
    expect(baseUrlInput().value).toBe('https://proxy.example.com');
    expect(keyInput().value).toBe('');
    expect(screen.getByText('留空表示不修改密钥')).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: '批量创建（一行一个密钥）' })).toBeNull();
    await waitFor(() => expect((screen.getByRole('spinbutton', { name: '优先级' }) as HTMLInputElement).value).toBe('5'), { timeout: 3000 });
    expect((screen.getByRole('spinbutton', { name: '权重' }) as HTMLInputElement).value).toBe('2');

    typeName('openai-renamed');
    const weight = screen.getByRole('spinbutton', { name: '权重' });
    fireEvent.change(weight, { target: { value: '-3' } });
    fireEvent.blur(weight);
    submit();
    await waitFor(() => expect(sent(calls, 'PUT')).toHaveLength(1));
    expect(sent(calls, 'PUT')[0]?.body).toEqual({
      id: 7, type: 1, name: 'openai-renamed', key: '', base_url: 'https://proxy.example.com', other: '', model_mapping: '{"gpt-4o-2024-05-13":"gpt-4o"}',
      models: 'gpt-4o,gpt-4o-mini', group: 'default,vip', config: '', priority: 5, weight: 0,
    });
    expect(sent(calls, 'POST')).toEqual([]);
    expect(await screen.findByText('渠道更新成功！')).toBeTruthy();
  });

  // covers S3-ENTITY-16, S5-VALID-41, S7-API-47
  it('an AWS channel comes back with its fields from config (the server blanks the SK); saving with the SK left empty keeps it', async () => {
    const aws = { ...stored, type: 33, models: 'claude-3-haiku', base_url: '', model_mapping: '', config: JSON.stringify({ region: 'us-west-2', ak: 'AKIA1', sk: '' }) };
    const calls = await renderForm({ 'GET /api/channel/7': ok(aws) }, '/channel/edit/7');
    await waitFor(() => expect(input('AWS IAM Access Key (AK)').value).toBe('AKIA1'));
    expect(input(/^区域 Region/).value).toBe('us-west-2');
    expect(input('AWS IAM Secret Key (SK)，留空表示不修改').value).toBe('');
    fireEvent.change(input(/^区域 Region/), { target: { value: 'eu-central-1' } });
    submit();
    await waitFor(() => expect(sent(calls, 'PUT')).toHaveLength(1));
    // No key is composed without the SK; the server keeps the stored SK and makes the key from the merged config.
    expect(sent(calls, 'PUT')[0]?.body).toMatchObject({ id: 7, type: 33, key: '', config: JSON.stringify({ region: 'eu-central-1', ak: 'AKIA1', sk: '' }) });
  });

  it('warns under the models about the chosen ones without a ratio (asked of the server, which knows the default prices)', async () => {
    const calls = await renderForm({ 'GET /api/pricing/unpriced': (_body, url) => ok(new URL(url, 'http://x').searchParams.get('models')!.split(',').filter((m) => m.startsWith('my-')))() });
    expect(screen.queryByText(/没有设置模型倍率/)).toBeNull();
    fireEvent.change(input('输入自定义模型名称'), { target: { value: 'gpt-4o, my-model' } });
    fireEvent.click(screen.getByRole('button', { name: '填入' }));
    expect(await screen.findByText('以下模型没有设置模型倍率，调用时将按默认倍率 30 计费（可在 设置 → 运营设置 中设置）：my-model')).toBeTruthy();
    expect(calls.filter((c) => c.url.startsWith('/api/pricing/unpriced')).at(-1)!.url).toBe(`/api/pricing/unpriced?models=${encodeURIComponent('gpt-4o,my-model')}`);
    fireEvent.click(screen.getByRole('button', { name: '清除所有模型' }));
    await waitFor(() => expect(screen.queryByText(/没有设置模型倍率/)).toBeNull());
  });
});
