// The published anchors (ADMIN): the lines of this database's anchors file (anchor-publish.ts), as
// handed out, for a copy kept elsewhere or a bundle's check (tools/audit-verifier.mjs). Paged by
// number: the file only grows.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { authorize } from '../../../auth/permissions.js';
import { anchorFile, readPublished } from '../../../eventstore/anchor-publish.js';
import { routeDoc } from '../../../gateway/rest/contracts.js';
import type { RestDeps } from '../../../gateway/rest/deps.js';
import { ok } from '../../../gateway/rest/envelope.js';

const PublishedAnchor = z.object({
  seq: z.number().int(),
  version: z.number().int(),
  firstPosition: z.string(),
  lastPosition: z.string(),
  eventCount: z.number().int(),
  root: z.string().nullable(),
  heads: z.array(z.tuple([z.string(), z.number().int(), z.string()])).nullable(),
  headsDigest: z.string().nullable(),
  previous: z.string().nullable(),
  digest: z.string(),
  at: z.string(),
});
const PublishedAnchors = z.object({
  /** The file's name (its directory is the deployment's AUDIT_ANCHOR_DIR). */
  file: z.string(),
  anchors: z.array(PublishedAnchor),
  /** Lines of the file that are not anchors (a sign someone wrote into it). */
  badLines: z.array(z.number().int()),
});
const Query = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export function auditRoutes(server: FastifyInstance, { app, actorOf }: RestDeps) {
  server.get<{ Querystring: z.infer<typeof Query> }>(
    '/api/operations/anchors',
    {
      schema: routeDoc({
        summary: "The log's anchors as published outside the database (ADMIN)",
        tags: ['operations'],
        querystring: Query,
        data: PublishedAnchors,
      }),
    },
    async (req, reply) => {
      authorize(await actorOf(req), 'operations.read');
      const { after, limit } = Query.parse(req.query);
      const file = await anchorFile(app.pool);
      const { anchors, badLines } = readPublished(file);
      return ok(reply, {
        file: file.split('/').pop() ?? file,
        anchors: anchors.filter((a) => a.seq > after).slice(0, limit),
        badLines,
      });
    },
  );
}
