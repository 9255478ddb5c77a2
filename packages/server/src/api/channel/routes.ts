import { CHANNEL_MODELS, ChannelType, allBuiltInModels, fetchModelsSchema, parseJsonObject } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';
import { idParam as idOf, nowSeconds, pageOf, parseInput, queryString } from '../../lib/validate.js';
import { listUpstreamModels } from '../../relay/channel-health/list-models.js';
import { queryBalance } from '../../relay/channel-health/query-balance.js';
import { testChannel } from '../../relay/channel-health/test-channel.js';

/** /api/channel (admin) and /api/models. */
export function channelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const channels = ctx.services.channels;
  const admin = { preHandler: requireAdmin(ctx) };
  const health = { store: ctx.relay.store, options: ctx.options, pools: ctx.relay.pools, notifier: ctx.notifier, credentials: ctx.relay.credentials };
  const idParam = (params: unknown) => idOf(params, '渠道');

  app.get('/api/models', { preHandler: requireUser(ctx) }, async () => ({ success: true, message: '', data: CHANNEL_MODELS }));

  app.get('/api/channel/', admin, async (request) => ({ success: true, message: '', data: await channels.list(pageOf(request.query)) }));
  app.get('/api/channel/search', admin, async (request) => ({
    success: true,
    message: '',
    data: await channels.search(queryString(request.query, 'keyword')),
  }));
  app.get('/api/channel/models', admin, async () => ({
    success: true,
    message: '',
    data: allBuiltInModels().map((id) => ({ id, object: 'model', owned_by: 'model-relay' })),
  }));
  app.get('/api/channel/test', admin, async (request) => {
    const scope = queryString(request.query, 'scope') === 'disabled' ? 'disabled' : 'all';
    if (!(await ctx.channelTests.start(scope))) return { success: false, message: '测试已在运行中' };
    return { success: true, message: '' };
  });
  // The console polls this to show the progress of "test all" and refresh the rows when it ends.
  app.get('/api/channel/test/status', admin, async () => ({ success: true, message: '', data: await ctx.channelTests.progress() }));
  app.get('/api/channel/test/:id', admin, async (request) => {
    const channel = await channels.row(idParam(request.params));
    const model = queryString(request.query, 'model').trim() || undefined;
    const result = await testChannel(health, channel, model);
    // The channel as the test left it (time, failure reason, an automatic status change) for the console's row.
    const after = await channels.get(channel.id);
    return { success: result.success, message: result.message, time: result.time, model: result.model, data: { time: result.time, model: result.model, channel: after } };
  });
  const updateBalance = async (request: { params: unknown }) => {
    const channel = await channels.row(idParam(request.params));
    let balance: number;
    try {
      balance = await queryBalance(ctx.relay.pools, channel);
    } catch (error) {
      return fail(`余额查询失败：${(error as Error).message}`);
    }
    await ctx.relay.store.recordBalance(channel.id, balance, nowSeconds());
    return { success: true, message: '', balance, data: { balance } };
  };
  app.get('/api/channel/update_balance/:id', admin, updateBalance);
  app.get('/api/channel/update_balance/:id/', admin, updateBalance);
  // The channel form's 获取模型列表: what the upstream lists for this key (the form compares it with its own list).
  app.post('/api/channel/fetch_models', admin, async (request) => {
    const input = parseInput(fetchModelsSchema, request.body);
    const stored = input.id !== undefined && !input.key.trim() ? await channels.row(input.id) : undefined;
    const key = (stored?.key ?? input.key).split('\n')[0].trim();
    if (!key && input.type !== ChannelType.Ollama) return fail('请先填写密钥');
    const target = { type: input.type, baseUrl: input.base_url.trim().replace(/\/+$/, ''), key, other: input.other, config: parseJsonObject(input.config) ?? {} };
    try {
      return { success: true, message: '', data: await listUpstreamModels(ctx.relay.pools, target) };
    } catch (error) {
      return fail(`获取模型列表失败：${(error as Error).message}`);
    }
  });
  app.delete('/api/channel/disabled', admin, async () => ({ success: true, message: '', data: await channels.deleteDisabled() }));
  app.get('/api/channel/:id', admin, async (request) => ({ success: true, message: '', data: await channels.get(idParam(request.params)) }));
  app.post('/api/channel/', admin, async (request) => ({ success: true, message: '', data: await channels.create(request.body) }));
  app.put('/api/channel/', admin, async (request) => ({ success: true, message: '', data: await channels.update(request.body) }));
  const remove = async (request: { params: unknown }) => {
    await channels.delete(idParam(request.params));
    return { success: true, message: '' };
  };
  app.delete('/api/channel/:id', admin, remove);
  app.delete('/api/channel/:id/', admin, remove);
}
