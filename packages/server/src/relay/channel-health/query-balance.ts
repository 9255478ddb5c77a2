import { providerInfo } from '@model-relay/contract';
import type { ChannelRow } from '../../storage/schema.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';

/**
 * Balance queries for the channel types whose balance the console shows (docs/console.md §9): OpenAI (1) and
 * custom (8) in dollars (or, for a SiliconFlow-style custom channel, its account balance), CloseAI (4) and API2GPT (12) in yuan, OpenAI-SB (5) in yuan x 10000, AI Proxy (10)
 * and AIGC2D (13) in quota points; plus OpenRouter (20), Moonshot (25) and DeepSeek (36), which publish a balance endpoint.
 * Each entry names the vendor's documented endpoint and the field holding the amount.
 */
type Getter = (path: string, headers?: Record<string, string>) => Promise<unknown>;
type BalanceReader = (get: Getter, channel: ChannelRow) => Promise<number>;

const num = (value: unknown): number => {
  const n = typeof value === 'string' ? Number.parseFloat(value) : Number(value);
  if (!Number.isFinite(n)) throw new Error('上游返回的余额格式不正确');
  return n;
};

/** OpenAI's billing endpoints: hard limit minus this period's usage (usage is in cents). */
const openAiBalance: BalanceReader = async (get) => {
  const subscription = (await get('/v1/dashboard/billing/subscription')) as { hard_limit_usd?: unknown };
  const now = new Date();
  const start = new Date(now.getTime() - 99 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  const end = new Date(now.getTime() + 24 * 3600 * 1000).toISOString().slice(0, 10);
  const usage = (await get(`/v1/dashboard/billing/usage?start_date=${start}&end_date=${end}`)) as { total_usage?: unknown };
  return num(subscription.hard_limit_usd) - num(usage.total_usage ?? 0) / 100;
};

const creditGrants =
  (field: 'total_available' | 'total_remaining'): BalanceReader =>
  async (get) =>
    num(((await get('/dashboard/billing/credit_grants')) as Record<string, unknown>)[field]);

/**
 * A custom channel may be OpenAI itself or another vendor's OpenAI-compatible API: OpenAI's billing endpoints first,
 * then SiliconFlow's account endpoint (GET /v1/user/info, data.totalBalance in CNY), which the aggregators in its
 * style also answer.
 */
const customBalance: BalanceReader = async (get, channel) => {
  try {
    return await openAiBalance(get, channel);
  } catch (openAiError) {
    try {
      return num(((await get('/v1/user/info')) as { data?: { totalBalance?: unknown } }).data?.totalBalance);
    } catch {
      throw openAiError;
    }
  }
};

/** One reader per type whose catalogue entry says it has a balance endpoint (contract providers.ts). */
export const BALANCE_READERS: Record<number, { read: BalanceReader }> = {
  1: { read: openAiBalance },
  8: { read: customBalance },
  4: { read: creditGrants('total_available') },
  12: { read: creditGrants('total_remaining') },
  13: { read: creditGrants('total_available') },
  5: {
    read: async (get, channel) => num(((await get(`/sb-api/user/status?api_key=${encodeURIComponent(channel.key)}`)) as { data?: { credit?: unknown } }).data?.credit),
  },
  10: {
    read: async (get, channel) => num(((await get('/api/report/getUserOverview', { 'api-key': channel.key })) as { data?: { totalPoints?: unknown } }).data?.totalPoints),
  },
  20: {
    read: async (get) => {
      const data = ((await get('/v1/credits')) as { data?: { total_credits?: unknown; total_usage?: unknown } }).data;
      return num(data?.total_credits) - num(data?.total_usage ?? 0);
    },
  },
  // https://platform.moonshot.cn/docs/api/balance: available_balance in CNY
  25: {
    read: async (get) => num(((await get('/v1/users/me/balance')) as { data?: { available_balance?: unknown } }).data?.available_balance),
  },
  36: {
    read: async (get) => num(((await get('/user/balance')) as { balance_infos?: Array<{ total_balance?: unknown }> }).balance_infos?.[0]?.total_balance),
  },
};

export const supportsBalance = (type: number): boolean => providerInfo(type).balance && type in BALANCE_READERS;

export async function queryBalance(pools: UpstreamPools, channel: ChannelRow): Promise<number> {
  const reader = BALANCE_READERS[channel.type];
  if (!reader || !supportsBalance(channel.type)) throw new Error('该渠道类型不支持查询余额');
  const base = channel.base_url || providerInfo(channel.type).baseUrl;
  if (!base) throw new Error('请先填写渠道的代理地址');
  const get: Getter = async (path, headers = {}) => {
    const url = new URL(`${base}${path}`);
    const response = await pools.get(url.origin).request({
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: { authorization: `Bearer ${channel.key}`, ...headers },
    });
    const text = await response.body.text();
    if (response.statusCode >= 400) throw new Error(`上游返回 HTTP ${response.statusCode}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error('上游返回的不是 JSON');
    }
  };
  return reader.read(get, channel);
}
