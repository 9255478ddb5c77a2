/**
 * What a Responses client must hand back unchanged for a translated conversation to continue: Anthropic's
 * thinking signature, a redacted thinking block's data, Gemini's thought signature on a tool call. The
 * Responses API has one field clients keep and return as is: a reasoning item's `encrypted_content` (Codex CLI
 * asks for it with `include: ["reasoning.encrypted_content"]` and sends every reasoning item back). The gateway
 * writes these values there, marked as its own so that OpenAI's real encrypted reasoning (which only OpenAI can
 * read) is never mistaken for them and sent to another provider.
 */
export interface Carried {
  /** A thinking block's signature. */
  signature?: string;
  /** A redacted thinking block's data. */
  redacted?: string;
  /** The signature of the tool call that follows this reasoning item. */
  toolSignature?: string;
}

const PREFIX = 'mrelay1.';

export function carry(value: Carried): string {
  const compact = { s: value.signature, r: value.redacted, t: value.toolSignature };
  return PREFIX + Buffer.from(JSON.stringify(compact), 'utf8').toString('base64url');
}

/** The values the gateway wrote into an `encrypted_content`, or undefined for anything else (OpenAI's own). */
export function uncarry(text: unknown): Carried | undefined {
  if (typeof text !== 'string' || !text.startsWith(PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8')) as Record<string, unknown>;
    const pick = (value: unknown) => (typeof value === 'string' ? value : undefined);
    const carried: Carried = { signature: pick(parsed.s), redacted: pick(parsed.r), toolSignature: pick(parsed.t) };
    return carried.signature !== undefined || carried.redacted !== undefined || carried.toolSignature !== undefined ? carried : undefined;
  } catch {
    return undefined;
  }
}
