/**
 * What Hunyuan's ChatCompletions and GetEmbedding check in a request body (https://cloud.tencent.com/document/api/1729/105701,
 * /102832), with the code Tencent Cloud API answers: a field it does not know is UnknownParameter (API 3.0 refuses it);
 * a bad value or conversation shape is InvalidParameter. Undefined when the body would be taken.
 */
export interface HunyuanProblem {
  code: string;
  message: string;
}

const CHAT_FIELDS = new Set(['Model', 'Messages', 'Stream', 'StreamModeration', 'TopP', 'Temperature', 'EnableEnhancement', 'Tools', 'ToolChoice', 'CustomTool', 'SearchInfo', 'Citation', 'EnableSpeedSearch', 'EnableMultimedia', 'EnableDeepSearch', 'Seed', 'ForceSearchEnhancement', 'Stop', 'EnableRecommendedQuestions', 'EnableDeepRead', 'WebSearchOptions', 'TopicChoice', 'EnableThinking']);
const MESSAGE_FIELDS = new Set(['Role', 'Content', 'Contents', 'ToolCallId', 'ToolCalls', 'FileIDs', 'ReasoningContent']);
const isRecord = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const problem = (code: string, message: string): HunyuanProblem => ({ code, message });

export function validateChatCompletions(body: unknown): HunyuanProblem | undefined {
  if (!isRecord(body)) return problem('InvalidParameter', 'The request body is not a JSON object.');
  for (const field of Object.keys(body)) if (!CHAT_FIELDS.has(field)) return problem('UnknownParameter', `The parameter \`${field}\` is not recognized`);
  if (typeof body.Model !== 'string' || !body.Model) return problem('MissingParameter', 'The request is missing a required parameter `Model`.');
  if (!Array.isArray(body.Messages) || body.Messages.length === 0) return problem('MissingParameter', 'The request is missing a required parameter `Messages`.');
  if (body.Messages.length > 40) return problem('InvalidParameter', 'Messages 长度最多为 40。');
  for (const [name, max] of [['Temperature', 2], ['TopP', 1]] as const) {
    if (body[name] !== undefined && (typeof body[name] !== 'number' || body[name] < 0 || body[name] > max)) return problem('InvalidParameterValue', `${name} 取值区间为 [0.0, ${max}.0]。`);
  }
  if (body.Stream !== undefined && typeof body.Stream !== 'boolean') return problem('InvalidParameterValue', 'Stream 应为布尔值。');
  if (body.Stop !== undefined && (!Array.isArray(body.Stop) || !body.Stop.every((s: unknown) => typeof s === 'string'))) return problem('InvalidParameterValue', 'Stop 应为字符串数组。');
  const toolNames = new Set<string>();
  for (const tool of (body.Tools as unknown[] | undefined) ?? []) {
    if (!isRecord(tool) || tool.Type !== 'function' || !isRecord(tool.Function) || typeof tool.Function.Name !== 'string' || !/^[A-Za-z0-9_-]+$/.test(tool.Function.Name)) return problem('InvalidParameter', 'Tools 中的 Function.Name 只能包含 a-z，A-Z，0-9，_ 或 -。');
    // Parameters is a JSON string, not an object.
    if (typeof tool.Function.Parameters !== 'string') return problem('InvalidParameterValue', 'Tools.Function.Parameters 应为 JSON 字符串。');
    try {
      JSON.parse(tool.Function.Parameters);
    } catch {
      return problem('InvalidParameterValue', 'Tools.Function.Parameters 不是合法的 JSON。');
    }
    toolNames.add(tool.Function.Name);
  }
  if (body.ToolChoice !== undefined && !['none', 'auto', 'custom'].includes(body.ToolChoice)) return problem('InvalidParameterValue', 'ToolChoice 可选值包括 none、auto、custom。');
  if (body.ToolChoice === 'custom' && !(isRecord(body.CustomTool) && toolNames.has(body.CustomTool.Function?.Name))) return problem('InvalidParameter', 'ToolChoice 为 custom 时 CustomTool 必填。');
  return validateMessages(body.Messages);
}

/** system (optional, first), then user (or tool results) and assistant in turn, starting and ending with user or tool. */
function validateMessages(messages: unknown[]): HunyuanProblem | undefined {
  const open = new Set<string>();
  let side: 'user' | 'assistant' | undefined;
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message)) return problem('InvalidParameter', `Messages[${index}] 不是对象。`);
    for (const field of Object.keys(message)) if (!MESSAGE_FIELDS.has(field)) return problem('UnknownParameter', `The parameter \`Messages.${index}.${field}\` is not recognized`);
    if (message.ReasoningContent !== undefined) return problem('InvalidParameter', 'Messages 中不能包含 ReasoningContent。');
    const role = message.Role;
    if (role === 'system') {
      if (index !== 0) return problem('InvalidParameter', 'system 角色如存在则必须位于列表的最开始。');
      if (typeof message.Content !== 'string' || !message.Content) return problem('InvalidParameter', 'Content 不能为空。');
      continue;
    }
    if (role !== 'user' && role !== 'assistant' && role !== 'tool') return problem('InvalidParameterValue', `Message.Role 可选值：system、user、assistant、tool，不能为 ${String(role)}。`);
    const turn = role === 'assistant' ? 'assistant' : 'user';
    if (side === undefined && turn !== 'user') return problem('InvalidParameter', '对话须以 user 提问开始。');
    // Tool results may follow one another (and the question that follows them); otherwise the sides alternate.
    if (side === turn && !(role === 'tool' || (role === 'user' && messages[index - 1] && (messages[index - 1] as any).Role === 'tool'))) return problem('InvalidParameter', 'user（tool）和 assistant 需交替出现（一问一答）。');
    side = turn;
    if (role === 'assistant') {
      const calls = Array.isArray(message.ToolCalls) ? message.ToolCalls : [];
      for (const call of calls) {
        if (!isRecord(call) || typeof call.Id !== 'string' || !call.Id || !isRecord(call.Function) || typeof call.Function.Name !== 'string' || typeof call.Function.Arguments !== 'string') return problem('InvalidParameter', 'ToolCalls 缺少 Id 或 Function。');
        open.add(call.Id);
      }
      if (!calls.length && (typeof message.Content !== 'string' || !message.Content)) return problem('InvalidParameter', 'Content 不能为空。');
    } else if (role === 'tool') {
      if (typeof message.ToolCallId !== 'string' || !open.has(message.ToolCallId)) return problem('InvalidParameter', 'tool 消息的 ToolCallId 须对应之前的工具调用。');
      if (typeof message.Content !== 'string' || !message.Content) return problem('InvalidParameter', 'Content 不能为空。');
    } else if (Array.isArray(message.Contents)) {
      if (message.Content !== undefined && message.Content !== '') return problem('InvalidParameter', 'Content 和 Contents 不能同时传入。');
      if (!message.Contents.some((c: any) => isRecord(c) && c.Type === 'text')) return problem('InvalidParameter', 'Contents 需包含至少一个 Type 为 text 的参数。');
      for (const content of message.Contents) {
        if (!isRecord(content) || !['text', 'image_url', 'video_url', 'video_frames'].includes(content.Type)) return problem('InvalidParameterValue', 'Contents.Type 取值不合法。');
        if (content.Type === 'image_url' && !(isRecord(content.ImageUrl) && typeof content.ImageUrl.Url === 'string' && /^(https?:\/\/|data:image\/[a-z]+;base64,)/.test(content.ImageUrl.Url))) return problem('InvalidParameterValue', 'ImageUrl.Url 须为 http(s) 地址或 data:image/...;base64, 开头的图片。');
      }
    } else if (typeof message.Content !== 'string' || !message.Content) return problem('InvalidParameter', 'Content 不能为空。');
  }
  const last = messages.at(-1) as Record<string, unknown>;
  if (last.Role !== 'user' && last.Role !== 'tool') return problem('InvalidParameter', '对话须以 user（或 tool）提问结束。');
  return undefined;
}

export function validateGetEmbedding(body: unknown): HunyuanProblem | undefined {
  if (!isRecord(body)) return problem('InvalidParameter', 'The request body is not a JSON object.');
  for (const field of Object.keys(body)) if (field !== 'Input' && field !== 'InputList') return problem('UnknownParameter', `The parameter \`${field}\` is not recognized`);
  if (typeof body.Input === 'string' && body.Input) return undefined;
  if (Array.isArray(body.InputList) && body.InputList.length > 0 && body.InputList.length <= 50 && body.InputList.every((s: unknown) => typeof s === 'string')) return undefined;
  return problem('InvalidParameter', 'Input 或 InputList（最多 50 条）必填。');
}
