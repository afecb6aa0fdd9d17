// What every answer shares. Each module writes its answers once, in zod, in
// schema/<module>/answers.ts: the application's answer types are `z.infer` of them, the REST
// adapter documents them as they are (OpenAPI), and the GraphQL types derive their fields from them
// (services/gateway/graphql/answer-fields.ts) or are held to them by a test (answer-drift.ts).
import { z } from 'zod';

/** Answers named here become OpenAPI components (`#/components/schemas/<id>`) instead of being inlined. */
export const apiSchemas = z.registry<{ id: string }>();
export const named = <T extends z.ZodType>(id: string, schema: T): T => {
  apiSchemas.add(schema, { id });
  return schema;
};

export const Pagination = named(
  'Pagination',
  z.object({
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
  }),
);

/** A page of a list as the application answers it (REST spreads it into `data` and `meta.pagination`). */
export const pageOf = <T extends z.ZodType>(item: T) => Pagination.extend({ data: z.array(item) });

export type Page<T> = z.infer<typeof Pagination> & { data: T[] };
