// Turns application errors into GraphQL errors with a code and the HTTP status Yoga should answer.
// Anything unknown stays a plain Error, which Yoga masks ('Unexpected error.') — no internals leak.
import { GraphQLError } from 'graphql';
// Yoga's own factory: its masking recognises these (a separately loaded graphql copy would not).
import { createGraphQLError } from 'graphql-yoga';
import { AppError, toAppError } from '../../shared/errors.js';

export function toGraphQLError(err: unknown): Error {
  if (err instanceof GraphQLError) return err;
  const appError = toAppError(err);
  if (appError.code === 'INTERNAL' && !(err instanceof AppError))
    return err instanceof Error ? err : new Error(String(err));
  return createGraphQLError(appError.message, {
    extensions: {
      code: appError.code,
      http: { status: appError.status },
      ...(appError.fieldErrors.length ? { fieldErrors: appError.fieldErrors } : {}),
    },
  });
}

/** Runs an application call and rethrows its failure as a GraphQL error. */
export async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toGraphQLError(err);
  }
}
