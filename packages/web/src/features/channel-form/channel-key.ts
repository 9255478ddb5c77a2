/** Key composition of spec section 5: AWS (33) is AK|SK|region; Vertex AI (42) is region|project id|credentials JSON. */
export interface KeyParts {
  ak: string;
  sk: string;
  region: string;
  projectId: string;
  credentials: string;
}

export const EMPTY_KEY_PARTS: KeyParts = { ak: '', sk: '', region: '', projectId: '', credentials: '' };

export function composeKey(type: number, parts: KeyParts, plain: string): string {
  if (type === 33) return [parts.ak, parts.sk, parts.region].every((p) => p.trim()) ? `${parts.ak.trim()}|${parts.sk.trim()}|${parts.region.trim()}` : '';
  if (type === 42) return [parts.region, parts.projectId, parts.credentials].every((p) => p.trim()) ? `${parts.region.trim()}|${parts.projectId.trim()}|${parts.credentials.trim()}` : '';
  return plain;
}
