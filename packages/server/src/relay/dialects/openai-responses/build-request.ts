import type { AssistantPart, ChatRequest, ImagePart, TextPart, ToolResultPart } from '../../canonical.js';
import { usesCompletionTokensField } from '../openai-chat/build-request.js';
import { imageToUrl } from '../shared.js';
import { carry } from './carrier.js';

type Item = Record<string, unknown>;

const EFFORT_BY_BUDGET = (budget: number): 'low' | 'medium' | 'high' => (budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high');

/**
 * A canonical request as an OpenAI Responses body (https://platform.openai.com/docs/api-reference/responses/create):
 * the system prompt as `instructions` (or a developer message when it has several parts), the conversation as
 * input items (messages, function_call, function_call_output, reasoning carrying signatures), function tools in
 * the flat Responses shape. The gateway keeps no state: `store` is false and the whole history is sent.
 */
export function buildResponsesRequest(request: ChatRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: request.model };
  const input: Item[] = [];
  const system = request.system.filter((p) => p.text);
  if (system.length === 1) body.instructions = system[0].text;
  else if (system.length > 1) input.push({ type: 'message', role: 'developer', content: system.map(inputText) });

  for (const message of request.messages) {
    if (message.role === 'user') {
      const content: Item[] = [];
      for (const part of message.content) {
        // Outputs first: they answer the calls of the turn before; the user's own words follow them.
        if (part.type === 'tool_result') input.push({ type: 'function_call_output', call_id: part.callId, output: toolOutput(part) });
        else if (part.type === 'text') {
          if (part.text) content.push(inputText(part));
        } else content.push(inputImage(part));
      }
      if (content.length > 0) input.push({ type: 'message', role: 'user', content });
      continue;
    }
    let text: Item[] = [];
    const flush = () => {
      if (text.length > 0) input.push({ type: 'message', role: 'assistant', content: text });
      text = [];
    };
    for (const part of message.content) {
      if (part.type === 'text') {
        if (part.text) text.push({ type: 'output_text', text: part.text, annotations: [] });
        continue;
      }
      flush();
      input.push(...assistantItems(part));
    }
    flush();
  }
  body.input = input;

  if (request.tools.length > 0) {
    // Responses makes function tools strict unless told otherwise; a translated schema may not meet strict mode's rules.
    body.tools = request.tools.map((t) => ({ type: 'function', name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters, strict: false }));
  }
  const choice = request.toolChoice;
  if (choice) body.tool_choice = choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type;
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.webSearch) {
    const domains = request.webSearch.allowedDomains;
    body.tools = [...((body.tools as unknown[]) ?? []), { type: 'web_search', ...(domains ? { filters: { allowed_domains: domains } } : {}) }];
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  const reasoning = request.reasoning;
  // Only reasoning models take `reasoning`; the others refuse the parameter.
  if (reasoning && reasoning.enabled !== false && usesCompletionTokensField(request.model)) {
    body.reasoning = { effort: reasoning.effort ?? (reasoning.budgetTokens ? EFFORT_BY_BUDGET(reasoning.budgetTokens) : 'medium') };
  }
  const format = request.responseFormat;
  if (format?.type === 'json_schema') body.text = { format: { type: 'json_schema', name: format.name, schema: format.schema, ...(format.strict ? { strict: true } : {}) } };
  else if (format) body.text = { format: { type: format.type } };
  // safety_identifier takes at most 64 characters; a longer end-user id (Claude Code's) is left out.
  if (request.user && request.user.length <= 64) body.safety_identifier = request.user;
  body.store = false;
  if (request.stream) body.stream = true;
  return body;
}

const inputText = (part: TextPart): Item => ({ type: 'input_text', text: part.text });
const inputImage = (part: ImagePart): Item => ({ type: 'input_image', image_url: imageToUrl(part.source), detail: 'auto' });

function toolOutput(part: ToolResultPart): string | Item[] {
  if (part.content.every((p) => p.type === 'text')) return part.content.map((p) => (p as TextPart).text).join('\n');
  return part.content.map((p) => (p.type === 'text' ? inputText(p) : inputImage(p)));
}

/** Reasoning and tool calls as items; reasoning no other provider could verify (no signature) is not sent. */
function assistantItems(part: Exclude<AssistantPart, TextPart>): Item[] {
  if (part.type === 'tool_call') {
    const call: Item = { type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments || '{}' };
    return part.signature ? [{ type: 'reasoning', summary: [], encrypted_content: carry({ toolSignature: part.signature }) }, call] : [call];
  }
  if (part.redacted !== undefined) return [{ type: 'reasoning', summary: [], encrypted_content: carry({ redacted: part.redacted }) }];
  if (part.signature === undefined) return [];
  return [{ type: 'reasoning', summary: part.text ? [{ type: 'summary_text', text: part.text }] : [], encrypted_content: carry({ signature: part.signature }) }];
}
