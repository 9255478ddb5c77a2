import type { APIRequestContext, Page } from '@playwright/test';
import { expect, type GatewayServer } from './fixtures.js';

/** Signs in through the login form. */
export async function login(page: Page, url: string, username: string, password: string): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录' }).click();
}

/** A channel of the default group pointing at a local mock upstream (the upstream key picks the mock's behaviour). */
export async function addChannel(root: APIRequestContext, fields: { name: string; baseUrl: string; models: string; key?: string }): Promise<number> {
  const res = await root.post('/api/channel/', { data: { name: fields.name, type: 1, key: fields.key ?? 'ok', base_url: fields.baseUrl, models: fields.models, group: 'default' } });
  expect((await res.json()).success).toBe(true);
  const list = (await (await root.get(`/api/channel/search?keyword=${encodeURIComponent(fields.name)}`)).json()).data as Array<{ id: number; name: string }>;
  return list.find((c) => c.name === fields.name)!.id;
}

/** An ordinary user with quota and one key; returns their API client and the whole key (sk-...). */
export async function userWithKey(gateway: GatewayServer, root: APIRequestContext, username: string, keyName: string): Promise<{ api: APIRequestContext; key: string; id: number }> {
  await root.post('/api/user/', { data: { username, password: 'password123' } });
  const user = (await (await root.get(`/api/user/search?keyword=${username}`)).json()).data.find((u: { username: string }) => u.username === username);
  await root.put('/api/user/', { data: { id: user.id, quota: 100_000_000 } });
  const api = await gateway.apiAs(username, 'password123');
  const token = (await (await api.post('/api/token/', { data: { name: keyName, unlimited_quota: true } })).json()).data;
  const key = (await (await api.post(`/api/token/${token.id}/key`)).json()).data.key as string;
  return { api, key: `sk-${key}`, id: user.id };
}

/** One chat completion through the gateway, as any OpenAI client would send it. */
export async function chat(url: string, key: string, model: string): Promise<void> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  await response.text();
}
