import { describe, expect, it } from 'vitest';
import type { ChannelTarget } from '../types.js';
import { vertexAdapter } from './adapter.js';
import { readVertexChannel } from './vertex-channel.js';

const SERVICE_ACCOUNT = JSON.stringify({ type: 'service_account', project_id: 'sa-project', client_email: 'ok@sa-project.iam.gserviceaccount.com', private_key: 'k' });
const channel = (fields: Partial<ChannelTarget>): ChannelTarget => ({ type: 42, baseUrl: '', key: '', other: '', config: {}, credentials: { kind: 'bearer', token: 'ya29.t' }, ...fields });
const build = (target: ChannelTarget, model: string, stream = false, body: Record<string, unknown> = { model, contents: [{ parts: [{ text: 'hi' }] }] }) =>
  vertexAdapter.build({ endpoint: 'chat', dialect: vertexAdapter.dialects(target, model)[0], channel: target, model, stream, body, path: '/v1/chat/completions' });

describe('Vertex AI channels', () => {
  // covers S3-ENTITY-16 (region, vertex_ai_project_id, vertex_ai_adc in config)
  it('reads region, project and credentials from the config first, then the composed key, then the service account', () => {
    // The console composes "region|project|JSON"; a pasted multi-line JSON can leave only its first line in the key.
    expect(readVertexChannel(channel({ key: 'us-east5|proj-one|{', config: { region: 'us-east5', vertex_ai_project_id: 'proj-one', vertex_ai_adc: SERVICE_ACCOUNT } }))).toEqual({ region: 'us-east5', project: 'proj-one', credentials: SERVICE_ACCOUNT });
    expect(readVertexChannel(channel({ key: `europe-west1|proj-two|${SERVICE_ACCOUNT}` }))).toEqual({ region: 'europe-west1', project: 'proj-two', credentials: SERVICE_ACCOUNT });
    expect(readVertexChannel(channel({ key: SERVICE_ACCOUNT }))).toEqual({ region: 'global', project: 'sa-project', credentials: SERVICE_ACCOUNT });
    expect(() => readVertexChannel(channel({ key: 'us-east5|proj|not json' }))).toThrow('凭证');
    expect(() => readVertexChannel(channel({ key: `evil.example.com/x|proj|${SERVICE_ACCOUNT}` }))).toThrow('区域无效');
  });

  it('Gemini models: generateContent on the regional host (or the global one), SSE streams, the token as a bearer', () => {
    const regional = build(channel({ key: `us-central1|proj-one|${SERVICE_ACCOUNT}` }), 'gemini-2.5-flash', true);
    expect(regional.url).toBe('https://us-central1-aiplatform.googleapis.com/v1/projects/proj-one/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(regional.headers.authorization).toBe('Bearer ya29.t');
    // The model is in the URL; Vertex wants a role on every content.
    expect(JSON.parse(String(regional.body))).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const global = build(channel({ key: `global|proj-one|${SERVICE_ACCOUNT}` }), 'gemini-2.5-pro');
    expect(global.url).toBe('https://aiplatform.googleapis.com/v1/projects/proj-one/locations/global/publishers/google/models/gemini-2.5-pro:generateContent');
    const overridden = build(channel({ key: `us-central1|proj-one|${SERVICE_ACCOUNT}`, baseUrl: 'http://127.0.0.1:9' }), 'gemini-2.5-flash');
    expect(overridden.url).toBe('http://127.0.0.1:9/v1/projects/proj-one/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent');
  });

  it('Claude models: rawPredict / streamRawPredict, the version with @, the body without model and with anthropic_version', () => {
    const target = channel({ key: `us-east5|proj-one|${SERVICE_ACCOUNT}` });
    expect(vertexAdapter.dialects(target, 'claude-sonnet-4-5@20250929')).toEqual(['anthropic']);
    const request = build(target, 'claude-sonnet-4-5-20250929', true, { model: 'claude-sonnet-4-5-20250929', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(request.url).toBe('https://us-east5-aiplatform.googleapis.com/v1/projects/proj-one/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    expect(JSON.parse(String(request.body))).toEqual({ anthropic_version: 'vertex-2023-10-16', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(build(target, 'claude-opus-4-1@20250805', false, { max_tokens: 1, messages: [] }).url).toMatch(/claude-opus-4-1@20250805:rawPredict$/);
  });
});
