import { PROVIDERS } from '../../relay/providers/registry.js';

/** The channel the conformance battery builds vendor bodies for: a Coze user id, a knowledge base id. */
const CHANNEL = { baseUrl: 'http://upstream.test', key: 'ok', other: '10817', config: { user_id: 'model-relay' } };

/**
 * For a vendor whose wire is its own: the body its adapter writes from an OpenAI chat body, checked by its mock's
 * `problem`; the adapter's own refusal (a conversation it cannot send) counts as the problem.
 */
export function vendorBody(id: string, model: string, body: unknown, problem: (vendor: unknown) => string | null): string | null {
  const adapter = PROVIDERS.find((p) => p.id === id)!;
  try {
    const request = adapter.build({ endpoint: 'chat', dialect: 'openai-chat', channel: { type: adapter.channelTypes[0], ...CHANNEL }, model, stream: true, body: body as Record<string, unknown>, path: '/v1/chat/completions' });
    return problem(JSON.parse(String(request.body)));
  } catch (error) {
    return (error as Error).message;
  }
}
