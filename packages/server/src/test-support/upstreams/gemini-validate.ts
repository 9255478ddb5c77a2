import { sniffImage } from './sniff-image.js';

/**
 * What generateContent refuses, for the Gemini API and for Gemini on Vertex AI. The API parses proto JSON, so both
 * lowerCamel and snake_case field names are accepted and an unknown field is an error.
 */
export interface GoogleProblem {
  code: number;
  status: string;
  message: string;
}
export interface GeminiRules {
  platform: 'gemini' | 'vertex';
  model: string;
  /** Thought signatures this mock issued: one sent back must be one of them, unchanged. */
  signatures: Set<string>;
  /** Cache names that exist (cachedContents/... or projects/.../cachedContents/...). */
  cachedContents: Set<string>;
}

const bad = (message: string): GoogleProblem => ({ code: 400, status: 'INVALID_ARGUMENT', message });
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const unknownField = (name: string, at?: string) => bad(`Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`);

/** Values whose keys are the caller's own data (function arguments, property names, JSON Schemas), not proto fields. */
const OPAQUE = new Set(['args', 'response', 'parametersJsonSchema', 'responseJsonSchema', 'example', 'default', 'enum', 'labels', 'partMetadata']);

/** proto JSON accepts `snake_case` and `lowerCamel`: bring every field name to lowerCamel, keeping the caller's data. */
export function normalizeProtoJson(value: unknown, mapKeys = false): unknown {
  if (Array.isArray(value)) return value.map((v) => normalizeProtoJson(v));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (mapKeys) out[key] = normalizeProtoJson(inner); // a property name of a schema: keep it, normalize its schema
    else {
      const name = camel(key);
      out[name] = OPAQUE.has(name) ? inner : normalizeProtoJson(inner, name === 'properties');
    }
  }
  return out;
}

const REQUEST_FIELDS = ['contents', 'tools', 'toolConfig', 'safetySettings', 'systemInstruction', 'generationConfig', 'cachedContent', 'model', 'labels', 'serviceTier'];
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'];
const PART_FIELDS = [...PART_DATA, 'thought', 'thoughtSignature', 'videoMetadata', 'partMetadata', 'mediaResolution', 'mediaProcessing'];
const TOOL_FIELDS = ['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'retrieval', 'computerUse', 'fileSearch', 'googleMaps', 'enterpriseWebSearch'];
const DECLARATION_FIELDS = ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior'];
const SCHEMA_FIELDS = ['anyOf', 'default', 'description', 'enum', 'example', 'format', 'items', 'maxItems', 'maxLength', 'maxProperties', 'maximum', 'minItems', 'minLength', 'minProperties', 'minimum', 'nullable', 'pattern', 'properties', 'propertyOrdering', 'required', 'title', 'type'];
const SCHEMA_TYPES = ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'];
const GENERATION_FIELDS = ['audioTranscriptionConfig', 'candidateCount', 'frequencyPenalty', 'logprobs', 'maxOutputTokens', 'mediaResolution', 'presencePenalty', 'responseJsonSchema', 'responseLogprobs', 'responseMimeType', 'responseModalities', 'responseSchema', 'seed', 'speechConfig', 'stopSequences', 'temperature', 'thinkingConfig', 'topK', 'topP', 'enableEnhancedCivicAnswers', 'routingConfig', 'modelSelectionConfig', 'audioTimestamp', 'enableAffectiveDialog', 'imageConfig'];
/** Placeholders the docs allow instead of a real signature (history built elsewhere). */
const DUMMY_SIGNATURES = ['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go'];

export function validateGenerateContent(raw: unknown, rules: GeminiRules): GoogleProblem | null {
  if (!isObject(raw)) return bad('Invalid JSON payload received. Expected an object.');
  const body = normalizeProtoJson(raw) as Record<string, any>;
  for (const key of Object.keys(body)) if (!REQUEST_FIELDS.includes(key)) return unknownField(snake(key));
  return (
    validateContents(body, rules) ??
    validateSystemInstruction(body.systemInstruction) ??
    validateTools(body) ??
    validateGenerationConfig(body.generationConfig, rules.model) ??
    validateCache(body, rules)
  );
}

function validateContents(body: Record<string, any>, rules: GeminiRules): GoogleProblem | null {
  const contents = body.contents;
  if (!Array.isArray(contents) || !contents.length) return bad('* GenerateContentRequest.contents: contents is not specified\n');
  for (const [i, content] of contents.entries()) {
    if (!isObject(content)) return bad(`Invalid value at 'contents[${i}]': expected an object.`);
    for (const key of Object.keys(content)) if (key !== 'role' && key !== 'parts') return unknownField(snake(key), `contents[${i}]`);
    const roleMissing = content.role === undefined || content.role === '';
    if ((roleMissing && rules.platform === 'vertex') || (!roleMissing && content.role !== 'user' && content.role !== 'model')) return bad('Please use a valid role: user, model.');
    if (!Array.isArray(content.parts) || !content.parts.length) return bad(`* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.\n`);
    for (const [j, part] of content.parts.entries()) {
      const problem = validatePart(part, `contents[${i}].parts[${j}]`, rules);
      if (problem) return problem;
    }
  }
  return validateFunctionTurns(contents) ?? validateSignatures(contents, rules);
}

function validatePart(part: unknown, at: string, rules: GeminiRules): GoogleProblem | null {
  if (!isObject(part)) return bad(`Invalid value at '${at}': expected an object.`);
  for (const key of Object.keys(part)) if (!PART_FIELDS.includes(key)) return unknownField(snake(key), at);
  const data = Object.keys(part).filter((k) => PART_DATA.includes(k));
  if (!data.length) return bad(`* GenerateContentRequest.${at}.data: required oneof field 'data' must have one initialized field\n`);
  if (data.length > 1) return bad(`Invalid value at '${at}' (oneof), oneof field 'data' is already set. Cannot set '${snake(data[1])}'`);
  if (part.text !== undefined && typeof part.text !== 'string') return bad(`Invalid value at '${at}.text' (TYPE_STRING), ${JSON.stringify(part.text)}`);
  if (part.inlineData !== undefined) {
    const { mimeType, data: bytes } = part.inlineData ?? {};
    if (typeof mimeType !== 'string' || !mimeType) return bad(`* GenerateContentRequest.${at}.inline_data.mime_type: mime_type is not specified\n`);
    if (typeof bytes !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(bytes)) return bad(`Invalid value at '${at}.inline_data.data' (TYPE_BYTES), Base64 decoding failed for "${String(bytes).slice(0, 20)}"`);
    if (mimeType.startsWith('image/') && !sniffImage(bytes)) return bad('Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');
  }
  if (part.functionCall !== undefined && (!isObject(part.functionCall) || typeof part.functionCall.name !== 'string' || !part.functionCall.name)) return bad(`* GenerateContentRequest.${at}.function_call.name: Name cannot be empty.\n`);
  if (part.functionResponse !== undefined) {
    if (!isObject(part.functionResponse) || typeof part.functionResponse.name !== 'string' || !part.functionResponse.name) return bad(`* GenerateContentRequest.${at}.function_response.name: Name cannot be empty.\n`);
    if (!isObject(part.functionResponse.response)) return bad(`* GenerateContentRequest.${at}.function_response.response: response must be a JSON object.\n`);
  }
  if (part.thoughtSignature !== undefined) {
    const signature = part.thoughtSignature;
    if (typeof signature !== 'string' || !(rules.signatures.has(signature) || DUMMY_SIGNATURES.includes(signature))) return bad('Corrupted thought signature.');
  }
  return null;
}

const hasPart = (content: any, field: string) => content.parts.some((p: any) => p[field] !== undefined);

function validateFunctionTurns(contents: any[]): GoogleProblem | null {
  for (const [i, content] of contents.entries()) {
    const previous = contents[i - 1];
    const calls = content.parts.filter((p: any) => p.functionCall);
    const responses = content.parts.filter((p: any) => p.functionResponse);
    if (calls.length && (content.role !== 'model' || !previous || previous.role === 'model')) {
      return bad('Please ensure that function call turn comes immediately after a user turn or after a function response turn.');
    }
    if (responses.length) {
      if (!previous || previous.role !== 'model' || !hasPart(previous, 'functionCall')) return bad('Please ensure that function response turn comes immediately after a function call turn.');
      if (previous.parts.filter((p: any) => p.functionCall).length !== responses.length) return bad('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
  }
  return null;
}

/**
 * Gemini 3 checks signatures strictly: in the current turn (everything after the last user message that is not just
 * function responses) the first function call of each model step must carry the signature it was issued with.
 */
function validateSignatures(contents: any[], rules: GeminiRules): GoogleProblem | null {
  if (!/^gemini-3/.test(rules.model)) return null;
  let start = 0;
  contents.forEach((c, i) => {
    if (c.role !== 'model' && c.parts.some((p: any) => p.functionResponse === undefined)) start = i;
  });
  for (let i = start; i < contents.length; i++) {
    const first = contents[i].parts.find((p: any) => p.functionCall);
    if (contents[i].role === 'model' && first && first.thoughtSignature === undefined) {
      return bad(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${first.functionCall.name}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
  }
  return null;
}

function validateSystemInstruction(system: unknown): GoogleProblem | null {
  if (system === undefined) return null;
  if (!isObject(system) || !Array.isArray(system.parts) || !system.parts.length) return bad('* GenerateContentRequest.system_instruction.parts: contents.parts must not be empty.\n');
  for (const key of Object.keys(system)) if (key !== 'role' && key !== 'parts') return unknownField(snake(key), 'system_instruction');
  const notText = system.parts.findIndex((p: any) => !isObject(p) || typeof p.text !== 'string');
  return notText === -1 ? null : bad(`* GenerateContentRequest.system_instruction.parts[${notText}]: only text parts are supported in system_instruction.\n`);
}

function validateSchema(schema: unknown, at: string): GoogleProblem | null {
  if (!isObject(schema)) return bad(`Invalid value at '${at}': expected an object.`);
  for (const key of Object.keys(schema)) if (!SCHEMA_FIELDS.includes(key)) return unknownField(key, at);
  if (schema.type !== undefined && (typeof schema.type !== 'string' || !SCHEMA_TYPES.includes(schema.type.toUpperCase()))) {
    return bad(`Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), ${JSON.stringify(schema.type)}`);
  }
  for (const [name, inner] of Object.entries(schema.properties ?? {})) {
    const problem = validateSchema(inner, `${at}.properties[${name}].value`);
    if (problem) return problem;
  }
  if (schema.items !== undefined) return validateSchema(schema.items, `${at}.items`);
  for (const [k, inner] of (schema.anyOf ?? []).entries()) {
    const problem = validateSchema(inner, `${at}.any_of[${k}]`);
    if (problem) return problem;
  }
  return null;
}

function validateTools(body: Record<string, any>): GoogleProblem | null {
  const { tools, toolConfig } = body;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return bad("Invalid value at 'tools': expected a list.");
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool)) return bad(`Invalid value at 'tools[${i}]': expected an object.`);
      for (const key of Object.keys(tool)) if (!TOOL_FIELDS.includes(key)) return unknownField(snake(key), `tools[${i}]`);
      for (const [j, fn] of (tool.functionDeclarations ?? []).entries()) {
        const at = `tools[${i}].function_declarations[${j}]`;
        if (!isObject(fn)) return bad(`Invalid value at '${at}': expected an object.`);
        for (const key of Object.keys(fn)) if (!DECLARATION_FIELDS.includes(key)) return unknownField(snake(key), at);
        if (typeof fn.name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(fn.name)) {
          return bad(`* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`);
        }
        if (fn.parameters !== undefined && fn.parametersJsonSchema !== undefined) return bad(`* GenerateContentRequest.${at}: parameters and parameters_json_schema cannot both be set.\n`);
        const problem = fn.parameters === undefined ? null : validateSchema(fn.parameters, `${at}.parameters`);
        if (problem) return problem;
      }
    }
  }
  if (toolConfig !== undefined) {
    const mode = toolConfig?.functionCallingConfig?.mode;
    if (mode !== undefined && !['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'].includes(String(mode).toUpperCase())) {
      return bad(`Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), ${JSON.stringify(mode)}`);
    }
  }
  return null;
}

function validateGenerationConfig(config: unknown, model: string): GoogleProblem | null {
  if (config === undefined) return null;
  if (!isObject(config)) return bad("Invalid value at 'generation_config': expected an object.");
  for (const key of Object.keys(config)) if (!GENERATION_FIELDS.includes(key)) return unknownField(snake(key), 'generation_config');
  if (config.temperature !== undefined && (config.temperature < 0 || config.temperature > 2)) return bad('* GenerateContentRequest.generation_config.temperature: temperature must be in the range [0.0, 2.0]\n');
  if (config.topP !== undefined && (config.topP < 0 || config.topP > 1)) return bad('* GenerateContentRequest.generation_config.top_p: top_p must be in the range [0.0, 1.0]\n');
  if (config.maxOutputTokens !== undefined && !(Number.isInteger(config.maxOutputTokens) && config.maxOutputTokens > 0)) return bad('* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.\n');
  // Only the image models draw (gemini-2.5-flash-image, gemini-3-pro-image-preview...); an image model answers text too.
  const modalities: unknown[] = Array.isArray(config.responseModalities) ? config.responseModalities : [];
  const image = modalities.some((m) => String(m).toUpperCase() === 'IMAGE');
  if (image && !/-image/.test(model)) return bad('Model does not support the requested response modalities: image');
  const thinking = config.thinkingConfig;
  if (thinking === undefined) return null;
  if (!isObject(thinking)) return bad("Invalid value at 'generation_config.thinking_config': expected an object.");
  for (const key of Object.keys(thinking)) if (!['includeThoughts', 'thinkingBudget', 'thinkingLevel'].includes(key)) return unknownField(snake(key), 'generation_config.thinking_config');
  if (thinking.thinkingBudget !== undefined && thinking.thinkingLevel !== undefined) return bad('You can only set only one of thinking budget and thinking level.');
  if (thinking.thinkingLevel !== undefined && !/^gemini-3/.test(model)) return bad('Thinking level is not supported for this model.');
  const budget = thinking.thinkingBudget;
  if (budget === undefined) return null;
  if (!Number.isInteger(budget)) return bad(`Invalid value at 'generation_config.thinking_config.thinking_budget' (TYPE_INT32), ${JSON.stringify(budget)}`);
  const [min, max] = /pro/.test(model) ? [128, 32768] : /flash-lite/.test(model) ? [512, 24576] : [0, 24576];
  if (budget === -1) return null;
  if (budget === 0 && min > 0 && !/flash-lite/.test(model)) return bad('Budget 0 is invalid. This model only works in thinking mode.');
  if (budget === 0) return null;
  if (budget < min || budget > max) return bad(`The thinking budget ${budget} is invalid. Please choose a value between ${min} and ${max}.`);
  return null;
}

function validateCache(body: Record<string, any>, rules: GeminiRules): GoogleProblem | null {
  if (body.cachedContent === undefined) return null;
  if (!rules.cachedContents.has(body.cachedContent)) return { code: 403, status: 'PERMISSION_DENIED', message: `CachedContent not found (or permission denied)` };
  if (body.systemInstruction !== undefined || body.tools !== undefined || body.toolConfig !== undefined) {
    return bad('CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\nProposed fix: move those values to CachedContent from GenerateContent request.');
  }
  return null;
}
