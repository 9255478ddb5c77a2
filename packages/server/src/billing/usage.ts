/** Token usage in OpenAI's terms: what a request used, as the provider reported it or as counted. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /**
   * Set when the upstream reported only a total for a completion (no prompt/completion split): the pipeline
   * then counts the prompt itself and bills the rest of the total as completion.
   */
  total_only?: number;
}
