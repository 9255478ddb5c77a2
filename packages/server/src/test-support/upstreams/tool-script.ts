/**
 * For the real-client suite (relay/e2e/clients/): the tool a mock's tool-call answer calls, and with which
 * arguments, when the request declares a tool of that name (a coding agent's own file-reading tool, with a path in
 * the test's workspace). Without a script the mocks call the first declared tool with their recorded arguments.
 */
export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

let script: ScriptedCall[] = [];

/** The calls the mocks make from now on (the first one a request declares wins); none to go back to the recordings. */
export function scriptToolCalls(calls: ScriptedCall[]): void {
  script = calls;
}

/** The scripted call for a request declaring these tools, if any. */
export function scriptedCall(declared: Array<string | undefined>): ScriptedCall | undefined {
  return script.find((call) => declared.includes(call.name));
}

let measured = false;

/**
 * Whether the mocks report the prompt tokens of what they were sent (about one per six characters of the body)
 * instead of their recordings' fixed numbers: an agent's prompt is tens of kilobytes, and the gateway refuses to
 * bill a report far below what the prompt holds.
 */
export function reportMeasuredUsage(on: boolean): void {
  measured = on;
}

/** The prompt tokens to report for a request body, when measured usage is on. */
export function measuredPromptTokens(body: unknown): number | undefined {
  return measured ? Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 6)) : undefined;
}
