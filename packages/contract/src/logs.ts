/** A usage log row as GET /api/log/ and /api/log/self/ return it (spec section 3, "Log"). */
export interface LogDto {
  id: number;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** channel id */
  channel: number;
  request_id: string;
  /** milliseconds */
  elapsed_time: number;
  is_stream: boolean;
}
