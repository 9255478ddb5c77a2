import { CHANNEL_KEY_HINTS, MODEL_MAPPING_EXAMPLE } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import { buildChannelBody, type ChannelFormState } from './channel-body';
import { EMPTY_CONFIG, parseChannelConfig } from './channel-key';

const base: ChannelFormState = { type: 1, name: 'main', groups: ['default', 'vip'], models: ['gpt-4o'], model_mapping: '', key: 'sk-1', base_url: '', other: '', priority: 0, weight: 0, batch: false };
const body = (state: Partial<ChannelFormState>, parts = EMPTY_CONFIG, editing = false) => {
  const result = buildChannelBody({ ...base, ...state }, parts, editing);
  return 'body' in result ? result.body : result.error;
};

describe('channel submit rules (docs/console.md §5)', () => {
  // covers S5-VALID-35, S5-VALID-36, S5-VALID-37, S5-VALID-38
  it('requires name and key when creating, a model unless type 43, and a JSON model mapping', () => {
    expect(body({ name: '' })).toBe('请填写渠道名称和渠道密钥！');
    expect(body({ key: '' })).toBe('请填写渠道名称和渠道密钥！');
    expect(body({ key: '' }, EMPTY_CONFIG, true)).toMatchObject({ key: '' });
    expect(body({ models: [] })).toBe('请至少选择一个模型！');
    expect(body({ type: 43, models: [] })).toMatchObject({ type: 43, models: '' });
    expect(body({ type: 43, models: ['hidden'] })).toMatchObject({ type: 43, models: '' });
    expect(body({ model_mapping: '{oops' })).toBe('模型重定向必须是合法的 JSON 格式！');
    expect(body({ model_mapping: '{"gpt-4o-2024-05-13":"gpt-4o"}' })).toMatchObject({ model_mapping: '{"gpt-4o-2024-05-13":"gpt-4o"}' });
  });

  // covers S5-VALID-39, S5-VALID-40, S3-ENTITY-15
  it('drops a trailing slash from the base URL, defaults the Azure API version, joins groups and models', () => {
    expect(body({ base_url: 'https://proxy.example.com/' })).toMatchObject({ base_url: 'https://proxy.example.com', group: 'default,vip', models: 'gpt-4o' });
    const endpoint = 'https://docs-test-001.openai.azure.com';
    expect(body({ type: 3, base_url: endpoint })).toMatchObject({ other: '2024-03-01-preview' });
    expect(body({ type: 3, base_url: endpoint, other: '2024-06-01' })).toMatchObject({ other: '2024-06-01' });
    // An Azure channel is called at its endpoint: without one it could answer nothing.
    expect(body({ type: 3 })).toBe('请填写 AZURE_OPENAI_ENDPOINT，例如 https://docs-test-001.openai.azure.com');
  });

  // covers S5-VALID-41, S5-VALID-42, S2-CHANNELFORM-09, S3-ENTITY-16
  it('composes AWS and Vertex keys from their fields and keeps the parts in config', () => {
    expect(body({ type: 33, key: '' }, { ...EMPTY_CONFIG, ak: 'AK', sk: 'SK', region: 'us-west-2' })).toMatchObject({ key: 'AK|SK|us-west-2', config: JSON.stringify({ region: 'us-west-2', ak: 'AK', sk: 'SK' }) });
    expect(body({ type: 33, key: '' }, { ...EMPTY_CONFIG, ak: 'AK' })).toBe('请填写渠道名称和渠道密钥！');
    const account = '{"type":"service_account","client_email":"sa@proj-1.iam.gserviceaccount.com","private_key":"k"}';
    expect(body({ type: 42, key: '' }, { ...EMPTY_CONFIG, region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: account })).toMatchObject({ key: `us-east5|proj-1|${account}` });
    // A downloaded service-account JSON spans lines: it stays one key, on one line, still valid JSON.
    const pretty = '{\n  "type": "service_account",\n  "client_email": "sa@proj-1.iam.gserviceaccount.com",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n"\n}\n';
    const vertex = body({ type: 42, key: '' }, { ...EMPTY_CONFIG, region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: pretty }) as { key: string };
    expect(vertex.key.split('|')).toHaveLength(3);
    expect(JSON.parse(vertex.key.split('|')[2]!)).toEqual(JSON.parse(pretty));
    expect(body({ type: 34 }, { ...EMPTY_CONFIG, user_id: 'u-1' })).toMatchObject({ key: 'sk-1', config: '{"user_id":"u-1"}' });
    expect(body({ type: 1 }, { ...EMPTY_CONFIG, region: 'left-over' })).toMatchObject({ config: '' });
  });

  it('refuses Vertex AI credentials that are not a service-account key file, and a region or project the relay cannot call', () => {
    const message = 'Vertex AI 渠道的密钥必须是服务账号的 JSON（"type": "service_account"，含 client_email 与 private_key）';
    const account = { type: 'service_account', client_email: 'sa@proj-1.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n' };
    const parts = (adc: unknown, fields: Partial<typeof EMPTY_CONFIG> = {}) => ({ ...EMPTY_CONFIG, region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: typeof adc === 'string' ? adc : JSON.stringify(adc, null, 2), ...fields });
    const vertex = (adc: unknown, fields: Partial<typeof EMPTY_CONFIG> = {}, editing = false) => body({ type: 42, key: '', models: ['gemini-2.5-pro'] }, parts(adc, fields), editing);
    for (const adc of ['AIza-an-api-key', '{"type": "service_account"', '[]', { ...account, type: 'authorized_user' }, { ...account, client_email: undefined }, { ...account, private_key: 7 }]) {
      expect(vertex(adc)).toBe(message);
      // Editing with new credentials checks them too, whether or not the region and project are filled in.
      expect(vertex(adc, {}, true)).toBe(message);
      expect(vertex(adc, { region: '', vertex_ai_project_id: '' }, true)).toBe(message);
    }
    expect(vertex(account, { region: 'US East' })).toBe('Vertex AI 区域无效：US East');
    expect(vertex(account, { vertex_ai_project_id: 'P' })).toBe('Vertex AI Project ID 无效：P');
    expect(vertex(account)).toMatchObject({ type: 42, config: JSON.stringify({ region: 'us-east5', vertex_ai_project_id: 'proj-1', vertex_ai_adc: JSON.stringify(account, null, 2) }) });
    // An edit leaving the credentials empty keeps the stored ones: nothing to check here, the server checks the result.
    expect(vertex('', {}, true)).toMatchObject({ type: 42, key: '' });
    expect(vertex(account, { region: '', vertex_ai_project_id: '' }, true)).toMatchObject({ type: 42, key: '' });
  });

  // covers S3-ENTITY-16
  it('reads a stored config back into the fields, ignoring unreadable text', () => {
    expect(parseChannelConfig('{"region":"us-west-2","ak":"AK","sk":"SK","other":1}')).toEqual({ ...EMPTY_CONFIG, region: 'us-west-2', ak: 'AK', sk: 'SK' });
    expect(parseChannelConfig('')).toEqual(EMPTY_CONFIG);
    expect(parseChannelConfig('null')).toEqual(EMPTY_CONFIG);
  });

  // covers S5-VALID-47, S5-VALID-48, S5-VALID-49
  it('sends integer priority and weight, skips empty ones, turns a negative weight into 0', () => {
    expect(body({ priority: 3.7, weight: -4 })).toMatchObject({ priority: 3, weight: 0 });
    const empty = body({ priority: null, weight: null }) as Record<string, unknown>;
    expect('priority' in empty || 'weight' in empty).toBe(false);
  });

  // covers S2-CHANNELFORM-08
  it('sends every key line only in batch mode', () => {
    expect(body({ key: 'a\nb', batch: true })).toMatchObject({ key: 'a\nb' });
    expect(body({ key: 'a\nb', batch: false })).toMatchObject({ key: 'a' });
  });

  // covers S5-VALID-43, S5-VALID-44, S5-VALID-45, S5-VALID-46, S2-CHANNELFORM-05
  it('offers the key format hints and the model redirect example', () => {
    expect(CHANNEL_KEY_HINTS[15]).toContain('APIKey|SecretKey');
    expect(CHANNEL_KEY_HINTS[18]).toContain('APPID|APISecret|APIKey');
    expect(CHANNEL_KEY_HINTS[22]).toContain('APIKey-AppId');
    expect(CHANNEL_KEY_HINTS[23]).toContain('AppId|SecretId|SecretKey');
    expect(JSON.parse(MODEL_MAPPING_EXAMPLE)).toMatchObject({ 'gpt-3.5-turbo-0301': 'gpt-3.5-turbo', 'gpt-4-0314': 'gpt-4' });
  });
});
