/**
 * Where each model lives under `/rpc/2.0/ai_custom/v1/wenxinworkshop/`. ERNIE's v1 API names a model by the last
 * segment of its URL, not by a body field; the suffixes are the ones the Qianfan model list documents
 * (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/Nlks5zkzu, "接口地址后缀", and each model's API page). A model not
 * listed here is sent to its name in lower case, which is how the newer models are named (ernie-4.0-turbo-8k,
 * ernie-speed-pro-128k, ...) and what a user's own deployment's endpoint usually is.
 */
const CHAT: Record<string, string> = {
  'ernie-4.0-8k': 'completions_pro',
  'ernie-bot-4': 'completions_pro',
  'ernie-4.0-8k-preview-0518': 'completions_adv_pro',
  'ernie-3.5-8k': 'completions',
  'ernie-bot': 'completions',
  'ernie-lite-8k-0922': 'eb-instant',
  'ernie-bot-turbo': 'eb-instant',
  'ernie-lite-8k': 'ernie-lite-8k',
  'ernie-lite-8k-0308': 'ernie-lite-8k',
  'ernie-speed-8k': 'ernie_speed',
  'ernie-speed': 'ernie_speed',
  'ernie-speed-128k': 'ernie-speed-128k',
  'ernie-character-8k': 'ernie-char-8k',
  'ernie-character-fiction-8k': 'ernie-char-fiction-8k',
  'ernie-function-8k': 'ernie-func-8k',
  'ernie-functions-8k': 'ernie-func-8k',
  'ernie speed-appbuilder': 'ai_apaas',
  'ernie-lite-appbuilder-8k-0614': 'ai_apaas_lite',
  'bloomz-7b': 'bloomz_7b1',
  'llama-2-7b-chat': 'llama_2_7b',
  'llama-2-13b-chat': 'llama_2_13b',
  'llama-2-70b-chat': 'llama_2_70b',
  'meta-llama-3-8b': 'llama_3_8b',
  'meta-llama-3-70b': 'llama_3_70b',
  'chatglm2-6b-32k': 'chatglm2_6b_32k',
  'yi-34b-chat': 'yi_34b_chat',
  'mixtral-8x7b-instruct': 'mixtral_8x7b_instruct',
};

const EMBEDDINGS: Record<string, string> = {
  'embedding-v1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

const RERANKERS: Record<string, string> = {
  'bce-reranker-base': 'bce_reranker_base',
  'bce-reranker-base_v1': 'bce_reranker_base',
};

export type ErnieApi = 'chat' | 'embeddings' | 'reranker';

/** The URL path of a model's v1 API (after the base URL). */
export function erniePath(api: ErnieApi, model: string): string {
  const name = model.trim().toLowerCase();
  const table = api === 'chat' ? CHAT : api === 'embeddings' ? EMBEDDINGS : RERANKERS;
  return `/rpc/2.0/ai_custom/v1/wenxinworkshop/${api}/${encodeURIComponent(table[name] ?? name)}`;
}

/**
 * The largest `max_output_tokens` a chat model takes (the model list's "输出区间": [2, 2048] for the 8K models,
 * [2, 4096] for the 128K ones); a larger value is refused (336003), so it is lowered to what the model allows.
 */
export function maxOutputOf(model: string): number {
  return /128k/i.test(model) ? 4096 : 2048;
}
