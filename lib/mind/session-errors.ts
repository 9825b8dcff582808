// The errors a session's mind answers with, known to every room that talks to one (the routes map
// them to 404 / 409). Branded, because instanceof fails across the server.ts / Next bundle boundary.
const sessionPausedBrand = Symbol.for('agentcsd.SessionPausedError');

/** A message sent to a session that is not running. */
export class SessionPausedError extends Error {
  readonly [sessionPausedBrand] = true;

  static is(error: unknown): error is SessionPausedError {
    return typeof error === 'object' && error !== null && sessionPausedBrand in error;
  }

  constructor(readonly sessionId: string) {
    super('This session is paused: resume it to send messages.');
    this.name = 'SessionPausedError';
  }
}

const sessionNotFoundBrand = Symbol.for('agentcsd.SessionNotFoundError');

export class SessionNotFoundError extends Error {
  readonly [sessionNotFoundBrand] = true;

  /** instanceof fails across the server.ts / Next bundle boundary (two module copies): use this. */
  static is(error: unknown): error is SessionNotFoundError {
    return typeof error === 'object' && error !== null && sessionNotFoundBrand in error;
  }

  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} does not exist`);
    this.name = 'SessionNotFoundError';
  }
}
