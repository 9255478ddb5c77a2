import { GoogleGenAI } from '@google/genai';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { GoogleAuth, JWT } from 'google-auth-library';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixtures } from './fixtures.js';
import { startMockVertex, type MockVertex } from './vertex.js';
import type { ServiceAccountKey } from './vertex-oauth.js';

// Self-test of the Vertex AI mock: the official google-auth-library logs in with the generated service-account key
// (its hard-wired token URL is pointed at the mock through its own fetch option), @google/genai in Vertex mode calls
// Gemini through it, and raw requests call Claude (rawPredict / streamRawPredict).
const fx = fixtures('vertex');
const PROJECT = 'relay-test-project';
const REGION = 'us-central1';
let mock: MockVertex;

/** google-auth-library always posts to https://oauth2.googleapis.com/token: send that one request to the mock. */
const toMock: typeof fetch = (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  return fetch(url.startsWith('https://oauth2.googleapis.com/token') ? mock.tokenUri : input, init);
};
const authOptions = (key: ServiceAccountKey) => ({
  credentials: { client_email: key.client_email, private_key: key.private_key },
  scopes: ['https://www.googleapis.com/auth/cloud-platform'],
  clientOptions: { transporterOptions: { fetchImplementation: toMock } },
});
const genai = (key: ServiceAccountKey, location = REGION) =>
  new GoogleGenAI({ vertexai: true, project: key.project_id, location, googleAuthOptions: authOptions(key), httpOptions: { baseUrl: mock.url, apiVersion: 'v1' } });

async function accessToken(key: ServiceAccountKey): Promise<string> {
  const client = new JWT({ email: key.client_email, key: key.private_key, scopes: ['https://www.googleapis.com/auth/cloud-platform'], transporterOptions: { fetchImplementation: toMock } });
  return (await client.getAccessToken()).token!;
}

function assertion(claims: Record<string, unknown>, privateKey: string): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${head}.${createSign('RSA-SHA256').update(head).sign(privateKey).toString('base64url')}`;
}
async function exchange(jwt: string) {
  const res = await fetch(mock.tokenUri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }) });
  return { status: res.status, body: (await res.json()) as any };
}

async function call(token: string | undefined, path: string, body: unknown) {
  const res = await fetch(`${mock.url}/v1/projects/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}
const claude = (model: string, method: string) => `${PROJECT}/locations/us-east5/publishers/anthropic/models/${model}:${method}`;
const gemini = (method: string, project = PROJECT, region = REGION) => `${project}/locations/${region}/publishers/google/models/gemini-2.5-flash:${method}`;

beforeAll(async () => {
  mock = await startMockVertex();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

describe('Vertex AI token endpoint', () => {
  it('google-auth-library exchanges a signed JWT for an access token and caches it', async () => {
    const key = mock.serviceAccount();
    expect(key).toMatchObject({ type: 'service_account', project_id: PROJECT, client_email: `ok@${PROJECT}.iam.gserviceaccount.com`, token_uri: mock.tokenUri });
    const before = mock.tokenExchanges.length;
    const client = new GoogleAuth(authOptions(key));
    const first = await client.getAccessToken();
    const second = await client.getAccessToken();
    expect(first).toMatch(/^ya29\.c\./);
    expect(second).toBe(first);
    expect(mock.tokenExchanges.length - before).toBe(1);
    const form = mock.requests.find((r) => r.path === '/token')!.body as Record<string, string>;
    expect(form.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(JSON.parse(Buffer.from(form.assertion.split('.')[1], 'base64url').toString())).toMatchObject({ iss: key.client_email, scope: 'https://www.googleapis.com/auth/cloud-platform' });
  });

  it('verifies the assertion: signature, scope, lifetime and account', async () => {
    const key = mock.serviceAccount();
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: key.client_email, scope: 'https://www.googleapis.com/auth/cloud-platform', aud: key.token_uri, iat: now, exp: now + 3600 };
    expect(await exchange(assertion(claims, key.private_key))).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3599 } });
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(await exchange(assertion(claims, stranger))).toEqual({ status: 400, body: fx.json('errors.json').token_invalid_grant.body });
    expect(await exchange(assertion({ ...claims, scope: 'https://www.googleapis.com/auth/drive' }, key.private_key))).toEqual({ status: 400, body: fx.json('errors.json').token_invalid_scope.body });
    expect((await exchange(assertion({ ...claims, exp: now + 7200 }, key.private_key))).body.error_description).toMatch(/^Invalid JWT: Token must be a short-lived token \(60 minutes\)/);
    const revoked = mock.serviceAccount({ revoked: true });
    expect((await exchange(assertion({ ...claims, iss: revoked.client_email }, key.private_key))).body).toEqual({ error: 'invalid_grant', error_description: 'Invalid grant: account not found' });
  });
});

describe('Gemini on Vertex through @google/genai', () => {
  it('generateContent, generateContentStream and countTokens with one cached token', async () => {
    const key = mock.serviceAccount();
    const ai = genai(key);
    const before = mock.tokenExchanges.length;
    const request = fx.json('text.request.json');
    const answer = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: request.contents, config: { systemInstruction: request.systemInstruction } });
    expect(answer.text).toBe('Hello! How can I help you today?');
    expect(answer.usageMetadata).toEqual(fx.json('text.response.json').usageMetadata);
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: request.contents })) chunks.push(chunk);
    expect(chunks.map((c) => c.text).join('')).toBe('Hello! How can I help you today?');
    expect((await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: request.contents })).totalTokens).toBe(6);

    const calls = mock.requests.filter((r) => r.path !== '/token');
    expect(calls.map((r) => r.path)).toEqual([
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:generateContent`,
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:streamGenerateContent`,
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/gemini-2.5-flash:countTokens`,
    ]);
    expect(calls[0].headers.authorization).toMatch(/^Bearer ya29\.c\./);
    expect(mock.tokenExchanges.length - before).toBe(1);
  });

  it('calls a function and answers its response; the thought signature round-trips', async () => {
    const ai = genai(mock.serviceAccount());
    const request = fx.json('tools.request.json');
    const call = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: request.contents, config: { tools: request.tools } });
    expect(call.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const next = [...request.contents, call.candidates![0].content!, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: '15°C' } } }] }];
    expect((await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: next, config: { tools: request.tools } })).text).toBe("It's 15°C and partly cloudy in Paris.");
  });

  it('streams the recorded bytes: JSON array by default, SSE with alt=sse', async () => {
    const token = await accessToken(mock.serviceAccount());
    expect((await call(token, gemini('streamGenerateContent'), fx.json('text.request.json'))).text).toBe(fx.text('text.stream.json'));
    expect((await call(token, gemini('streamGenerateContent?alt=sse'), fx.json('text.request.json'))).text).toBe(fx.text('text.stream.txt'));
  });
});

describe('Claude on Vertex', () => {
  it('rawPredict and streamRawPredict answer the recorded payloads; count-tokens counts', async () => {
    const token = await accessToken(mock.serviceAccount());
    expect((await call(token, claude('claude-sonnet-4-5@20250929', 'rawPredict'), fx.json('claude-text.request.json'))).body).toEqual(fx.json('claude-text.response.json'));
    const streamed = await call(token, claude('claude-sonnet-4-5@20250929', 'streamRawPredict'), { ...fx.json('claude-text.request.json'), stream: true });
    expect(streamed.text).toBe(fx.text('claude-text.stream.txt'));
    expect((await call(token, claude('claude-sonnet-4-5@20250929', 'streamRawPredict'), { ...fx.json('claude-tools.request.json'), stream: true })).text).toBe(fx.text('claude-tools.stream.txt'));
    const { anthropic_version, ...rest } = fx.json('claude-text.request.json');
    const count = await call(token, claude('count-tokens', 'rawPredict'), { anthropic_version, model: 'claude-sonnet-4-5@20250929', system: rest.system, messages: rest.messages });
    expect(count.body).toEqual({ input_tokens: 12 });
  });

  it('refuses a Messages body that still has the model, or lacks anthropic_version, in Anthropic shape', async () => {
    const token = await accessToken(mock.serviceAccount());
    const withModel = await call(token, claude('claude-sonnet-4-5@20250929', 'rawPredict'), { ...fx.json('claude-text.request.json'), model: 'claude-sonnet-4-5' });
    expect(withModel).toMatchObject({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'model: Extra inputs are not permitted' } } });
    const { anthropic_version: _drop, ...noVersion } = fx.json('claude-text.request.json');
    expect((await call(token, claude('claude-sonnet-4-5@20250929', 'rawPredict'), noVersion)).body.error.message).toBe('anthropic_version: Field required');
  });

  it('answers overload in Anthropic shape and quota in Google shape', async () => {
    const overloaded = await call(await accessToken(mock.serviceAccount({ mode: 'overloaded-529' })), claude('claude-sonnet-4-5@20250929', 'rawPredict'), fx.json('claude-text.request.json'));
    expect(overloaded).toMatchObject({ status: 529, body: { type: 'error', error: { type: 'overloaded_error' } } });
    const limited = await call(await accessToken(mock.serviceAccount({ mode: 'fail-429' })), claude('claude-sonnet-4-5@20250929', 'rawPredict'), fx.json('claude-text.request.json'));
    expect(limited).toMatchObject({ status: 429, body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } });
  });
});

describe('Vertex refuses what Vertex refuses', () => {
  it('no token, a token it never issued, another project, an unknown region', async () => {
    const token = await accessToken(mock.serviceAccount());
    const text = fx.json('text.request.json');
    expect((await call(undefined, gemini('generateContent'), text)).body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect((await call('ya29.c.forged', gemini('generateContent'), text)).body).toEqual(fx.json('errors.json').unauthenticated.body);
    expect((await call(token, gemini('generateContent', 'other-project'), text)).body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    expect((await call(token, gemini('generateContent', PROJECT, 'mars-north1'), text)).body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('requires a role on every content', async () => {
    const token = await accessToken(mock.serviceAccount());
    const res = await call(token, gemini('generateContent'), { contents: [{ parts: [{ text: 'Hello' }] }] });
    expect(res.body).toEqual({ error: { code: 400, message: 'Please use a valid role: user, model.', status: 'INVALID_ARGUMENT' } });
  });

  it('refuses a token once it has expired', async () => {
    const short = await startMockVertex({ tokenTtlSeconds: 1 });
    try {
      const key = short.serviceAccount();
      const now = Math.floor(Date.now() / 1000);
      const jwt = assertion({ iss: key.client_email, scope: 'https://www.googleapis.com/auth/cloud-platform', aud: key.token_uri, iat: now, exp: now + 3600 }, key.private_key);
      const res = await fetch(short.tokenUri, { method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }) });
      const { access_token } = (await res.json()) as { access_token: string };
      const path = `${short.url}/v1/projects/${gemini('generateContent')}`;
      const send = () => fetch(path, { method: 'POST', headers: { authorization: `Bearer ${access_token}` }, body: JSON.stringify(fx.json('text.request.json')) });
      expect((await send()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await send()).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});
