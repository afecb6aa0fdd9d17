// A rule a decider refuses. The transports map the code to a status (409, 403, 404, 400).
export type DomainErrorCode = 'NOT_FOUND' | 'CONFLICT' | 'FORBIDDEN' | 'VALIDATION';

export class DomainError extends Error {
  constructor(
    public readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}
