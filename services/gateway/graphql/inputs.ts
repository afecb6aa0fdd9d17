/** Drops GraphQL nulls for optional inputs so the zod defaults apply, as an absent JSON field would. */
export function withoutNulls<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(input).filter(([, v]) => v !== null && v !== undefined),
  ) as Partial<T>;
}
