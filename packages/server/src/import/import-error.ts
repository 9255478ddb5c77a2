/** A failure the user can act on: its message (Chinese) is printed as it is, never with a stack trace. */
export class ImportError extends Error {
  constructor(
    message: string,
    /** 2: the command was used wrongly (bad arguments); 1: the import could not be done. */
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}
