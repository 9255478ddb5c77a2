import { vertexClaudeBody } from '../../relay/providers/vertex/adapter.js';
import { chatProblem } from '../mock-openai.js';
import { invokeModelBody } from '../../relay/providers/bedrock/invoke-body.js';
import { claudeSignatures } from './anthropic-replies.js';
import { responsesProblem } from '../mock-openai-responses.js';
import { validateMessagesBody } from './anthropic-validate.js';
import { fixtures } from './fixtures.js';
import { geminiCaches, geminiSignatures } from './gemini-replies.js';
import { parseModelId, validateConverse } from './bedrock-converse.js';
import { validateGenerateContent } from './gemini-validate.js';
import { cohereChatBody } from '../../relay/providers/cohere/chat-body.js';
import { validateCohereChat } from './cohere-validate.js';
import { sparkRequestFrame } from '../../relay/providers/spark/request-frame.js';
import { sparkVersion } from '../../relay/providers/spark/versions.js';
import { validateSparkFrame } from './spark.js';
import { hunyuanChatBody } from '../../relay/providers/hunyuan/hunyuan-body.js';
import { validateChatCompletions } from './hunyuan-validate.js';
import { ernieChatBody } from '../../relay/providers/baidu/ernie-request.js';
import { erniePath } from '../../relay/providers/baidu/endpoints.js';
import { validateErnieChat } from './baidu.js';
import { vendorBody } from './vendor-body.js';
import { cozeChatProblem } from './coze.js';
import { deeplProblem } from './deepl.js';
import { libraryAskProblem } from './aiproxy-library.js';

/**
 * The request checks of each provider's mock, for the conformance battery: null when the upstream would take
 * the body, else what it would say. One line per provider id (the folder name under relay/providers/).
 */
type Validate = (body: unknown) => string | null;

/** What the Gemini and Vertex mocks know: the thought signatures and cached contents their fixtures hand out. */
const google = (provider: 'gemini' | 'vertex') => ({ signatures: geminiSignatures(fixtures(provider)), cachedContents: geminiCaches(fixtures(provider)) });

const VALIDATORS: Record<string, (dialect: string, model: string) => Validate> = {
  'openai-compatible': (dialect) => (body) => (dialect === 'openai-responses' ? responsesProblem(body)?.message : chatProblem(body as Record<string, unknown>)) ?? null,
  azure: () => (body) => chatProblem(body as Record<string, unknown>) ?? null,
  anthropic: (_dialect, model) => (body) => validateMessagesBody(body, { platform: 'anthropic', model, signatures: new Set(), strictTurns: true })?.message ?? null,
  gemini: (_dialect, model) => (body) => validateGenerateContent(body, { platform: 'gemini', model, ...google('gemini') })?.message ?? null,
  // Claude on Vertex takes the Messages body as the adapter sends it: model in the URL, anthropic_version in the body.
  vertex: (dialect, model) =>
    dialect === 'anthropic'
      ? (body) => validateMessagesBody(vertexClaudeBody(body as Record<string, unknown>), { platform: 'vertex', model, signatures: claudeSignatures() })?.message ?? null
      : (body) => validateGenerateContent(body, { platform: 'vertex', model, ...google('vertex') })?.message ?? null,
  // What the Bedrock adapter sends: Converse bodies as they are, Claude's Messages bodies made InvokeModel's.
  bedrock: (dialect, model) => (body) =>
    dialect === 'anthropic'
      ? (validateMessagesBody(invokeModelBody(body as Record<string, unknown>), { platform: 'bedrock', model, signatures: new Set(), strictTurns: true })?.message ?? null)
      : validateConverse(body, { family: parseModelId(model)?.family ?? '', stream: false, signatures: new Set() }),
  // What the Cohere adapter sends: the OpenAI body written as Cohere's v2 chat body.
  cohere: () => (body) => validateCohereChat(cohereChatBody(body as Record<string, unknown>, false)),
  // What the Spark adapter sends over the WebSocket: the frame written from the OpenAI body, for the model's version.
  spark: (_dialect, model) => (body) => validateSparkFrame(sparkRequestFrame(body as Record<string, unknown>, sparkVersion(model), 'app12345'), { domain: sparkVersion(model).domain }),
  // What the Hunyuan adapter sends for a TC3 key: the OpenAI body written as ChatCompletions.
  hunyuan: (_dialect, model) => (body) => validateChatCompletions(hunyuanChatBody(body as Record<string, unknown>, model, false))?.message ?? null,
  // What the Baidu adapter makes of an OpenAI body: ERNIE's, checked as ERNIE's chat API checks it.
  baidu: (_dialect, model) => (body) => validateErnieChat(ernieChatBody(body as Record<string, unknown>, model, false), erniePath('chat', model).split('/').pop()),
  // Vendors of their own wire: the adapter writes the vendor's body from the OpenAI one, and the mock checks that.
  coze: (_dialect, model) => (body) => vendorBody('coze', model, body, cozeChatProblem),
  deepl: (_dialect, model) => (body) => vendorBody('deepl', model, body, deeplProblem),
  'aiproxy-library': (_dialect, model) => (body) => vendorBody('aiproxy-library', model, body, libraryAskProblem),
};

export function validatorFor(provider: string, dialect: string, model: string): Validate {
  const make = VALIDATORS[provider];
  if (!make) throw new Error(`no request validator for provider ${provider}: add one to test-support/upstreams/validators.ts`);
  return make(dialect, model);
}
