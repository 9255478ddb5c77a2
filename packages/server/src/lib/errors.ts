/**
 * An error whose message is meant for the user (Chinese, safe to show). The /api error handler turns it
 * into `{success:false, message}`; any other error becomes a generic message and is logged with detail.
 */
export class UserFacingError extends Error {
  constructor(
    message: string,
    /** HTTP status for the few cases the contract fixes (401 not logged in, 429 rate limited, 400 bad JSON). */
    readonly httpStatus: number = 200,
  ) {
    super(message);
    this.name = 'UserFacingError';
  }
}

export const fail = (message: string, httpStatus = 200): never => {
  throw new UserFacingError(message, httpStatus);
};
