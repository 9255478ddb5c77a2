import {
  CHANNEL_MODELS,
  ChannelType,
  allBuiltInModels,
  channelInputSchema,
  channelTestAllQuery,
  channelTestQuery,
  fetchModelsSchema,
  idParams,
  jsonObjectBody,
  pageQuery,
  parseJsonObject,
  searchQuery,
} from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { fail } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/validate.js';
import { listUpstreamModels } from '../../relay/channel-health/list-models.js';
import { queryBalance } from '../../relay/channel-health/query-balance.js';
import { testChannel } from '../../relay/channel-health/test-channel.js';

/** /api/channel (admin) and /api/models. */
export function channelRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const channels = ctx.services.channels;
  const admin = { preValidation: requireAdmin(ctx) };
  const health = { store: ctx.relay.store, options: ctx.options, pools: ctx.relay.pools, notifier: ctx.notifier, credentials: ctx.relay.credentials };
  const params = idParams('渠道');

  app.get('/api/models', { preValidation: requireUser(ctx) }, async () => ok(CHANNEL_MODELS));

  app.get('/api/channel/', { ...admin, schema: { querystring: pageQuery } }, async (request) => ok(await channels.list(request.query.p)));
  app.get('/api/channel/search', { ...admin, schema: { querystring: searchQuery() } }, async (request) => ok(await channels.search(request.query.keyword)));
  app.get('/api/channel/models', admin, async () => ok(allBuiltInModels().map((id) => ({ id, object: 'model', owned_by: 'model-relay' }))));
  app.get('/api/channel/test', { ...admin, schema: { querystring: channelTestAllQuery } }, async (request) => {
    const scope = request.query.scope === 'disabled' ? 'disabled' : 'all';
    if (!(await ctx.channelTests.start(scope))) return fail('测试已在运行中');
    return ok();
  });
  // The console polls this to show the progress of "test all" and refresh the rows when it ends.
  app.get('/api/channel/test/status', admin, async () => ok(await ctx.channelTests.progress()));
  // Not the plain envelope: the console reads the test's success, message, time and model at the top level.
  app.get('/api/channel/test/:id', { ...admin, schema: { params, querystring: channelTestQuery } }, async (request) => {
    const channel = await channels.row(request.params.id);
    const model = request.query.model.trim() || undefined;
    const result = await testChannel(health, channel, model);
    // The channel as the test left it (time, failure reason, an automatic status change) for the console's row.
    const after = await channels.get(channel.id);
    return { success: result.success, message: result.message, time: result.time, model: result.model, data: { time: result.time, model: result.model, channel: after } };
  });
  for (const url of ['/api/channel/update_balance/:id', '/api/channel/update_balance/:id/']) {
    app.get(url, { ...admin, schema: { params } }, async (request) => {
      const channel = await channels.row(request.params.id);
      let balance: number;
      try {
        balance = await queryBalance(ctx.relay.pools, channel);
      } catch (error) {
        return fail(`余额查询失败：${(error as Error).message}`);
      }
      await ctx.relay.store.recordBalance(channel.id, balance, nowSeconds());
      // `balance` at the top level too, as one-api's console reads it.
      return { ...ok({ balance }), balance };
    });
  }
  // The channel form's 获取模型列表: what the upstream lists for this key (the form compares it with its own list).
  app.post('/api/channel/fetch_models', { ...admin, schema: { body: fetchModelsSchema } }, async (request) => {
    const input = request.body;
    const stored = input.id !== undefined && !input.key.trim() ? await channels.row(input.id) : undefined;
    const key = (stored?.key ?? input.key).split('\n')[0].trim();
    if (!key && input.type !== ChannelType.Ollama) return fail('请先填写密钥');
    const target = { type: input.type, baseUrl: input.base_url.trim().replace(/\/+$/, ''), key, other: input.other, config: parseJsonObject(input.config) ?? {} };
    try {
      return ok(await listUpstreamModels(ctx.relay.pools, target));
    } catch (error) {
      return fail(`获取模型列表失败：${(error as Error).message}`);
    }
  });
  app.delete('/api/channel/disabled', admin, async () => ok(await channels.deleteDisabled()));
  app.get('/api/channel/:id', { ...admin, schema: { params } }, async (request) => ok(await channels.get(request.params.id)));
  app.post('/api/channel/', { ...admin, schema: { body: channelInputSchema } }, async (request) => ok(await channels.create(request.body)));
  // {id} plus the changed fields: which fields were sent decides between an inline edit and a full update, so the
  // service reads the body as sent (channelIdSchema, then channelPatchSchema or channelInputSchema).
  app.put('/api/channel/', { ...admin, schema: { body: jsonObjectBody } }, async (request) => ok(await channels.update(request.body)));
  for (const url of ['/api/channel/:id', '/api/channel/:id/']) {
    app.delete(url, { ...admin, schema: { params } }, async (request) => {
      await channels.delete(request.params.id);
      return ok();
    });
  }
}
