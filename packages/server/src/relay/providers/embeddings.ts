/**
 * OpenAI's embeddings answer, as the vendors whose own embedding APIs answer differently are written back to an
 * OpenAI client (Cohere, Ollama, Gemini). The openai SDKs ask for `encoding_format: "base64"` unless told otherwise;
 * openai-node and openai-python take a float array too, but a client that asked for base64 itself expects a string.
 */

/** An embedding as OpenAI's `encoding_format: "base64"` sends it: little-endian float32s, base64. */
export function float32Base64(vector: unknown): string {
  const values = Array.isArray(vector) ? vector.map(Number) : [];
  return Buffer.from(new Float32Array(values).buffer).toString('base64');
}

/** OpenAI's embeddings list of `vectors` (floats, or base64 when asked), with the prompt tokens the vendor reported (0: none). */
export function openAiEmbeddingList(vectors: readonly unknown[], model: string, base64: boolean, promptTokens: number): Record<string, unknown> {
  const data = vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector }));
  const out: Record<string, unknown> = { object: 'list', data, model };
  if (promptTokens > 0) out.usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  return out;
}
