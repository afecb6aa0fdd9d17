// An append that found its stream at another version than the command read: the event store throws
// it, the command handler retries on it and services/shared/errors.ts answers it as a conflict.
/** Version = number of events in the stream (0 = no stream). */
export type ExpectedVersion = 'any' | 'no_stream' | 'stream_exists' | number;

export class WrongExpectedVersionError extends Error {
  constructor(
    public readonly streamId: string,
    public readonly expected: ExpectedVersion,
    public readonly actual: number,
  ) {
    super(`Stream ${streamId}: expected version ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedVersionError';
  }
}
