// Managers: contact records an ADMIN keeps, each linked to at most one
// user account. Every change is a command on the manager's stream or the links stream; every read
// comes from the managers read model, joined with users for the linked account.
import { sql } from 'kysely';
import type { Manager } from '../../schema/managers/answers.js';
import {
  LinkUserInput,
  ManagerInput,
  ManagerPageInput,
  ManagerSearchInput,
} from '../../schema/managers/commands.js';
import type { Page } from '../../schema/shared/answers.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError, parseInput, parseRowId } from '../shared/errors.js';
import { linksDecider, MANAGER_LINKS_STREAM } from './links-decider.js';
import { managerDecider } from './manager-decider.js';

/** The manager answer (schema/managers/answers.ts). */
export type ManagerDto = Manager;

/** Ids the spec shows as numbers: a Postgres sequence, whatever event store runs. */
export const MANAGER_IDS_SEQUENCE = 'manager_ids';

const parseId = (id: unknown) => parseRowId(id, 'Manager not found');

/** Managers with their linked user (a deleted user shows as not linked). */
function managerRows(app: AppServices) {
  return app.db
    .selectFrom('managers as m')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'm.user_id').on('u.deleted_at', 'is', null))
    .select([
      'm.id',
      'm.first_name',
      'm.last_name',
      'm.email',
      'm.phone',
      'm.title',
      'm.status',
      'm.user_id',
      'm.created_at',
      'm.updated_at',
      'u.id as u_id',
      'u.first_name as u_first_name',
      'u.last_name as u_last_name',
      'u.email as u_email',
      'u.role as u_role',
    ])
    .where('m.deleted_at', 'is', null);
}

type ManagerRow = Awaited<ReturnType<ReturnType<typeof managerRows>['executeTakeFirstOrThrow']>>;

function toManagerDto(r: ManagerRow): ManagerDto {
  const user =
    r.u_id !== null && r.u_role !== null
      ? {
          id: r.u_id,
          firstName: r.u_first_name,
          lastName: r.u_last_name,
          email: r.u_email ?? '',
          role: r.u_role,
        }
      : null;
  return {
    id: r.id,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    phone: r.phone,
    title: r.title,
    status: r.status,
    isActive: r.status === 'ACTIVE',
    userId: user ? user.id : null,
    user,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

async function findManager(app: AppServices, id: number): Promise<ManagerDto | null> {
  const row = await managerRows(app).where('m.id', '=', id).executeTakeFirst();
  return row ? toManagerDto(row) : null;
}

async function requireManager(app: AppServices, id: number): Promise<ManagerDto> {
  const m = await findManager(app, id);
  if (!m) throw new AppError('NOT_FOUND', 'Manager not found');
  return m;
}

export async function listManagers(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<Page<ManagerDto>> {
  authorize(actor, 'managers.read');
  const { page, limit } = parseInput(ManagerPageInput, query);
  const [rows, count] = await Promise.all([
    managerRows(app)
      .orderBy('m.created_at', 'desc')
      .orderBy('m.id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    app.db
      .selectFrom('managers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.n);
  return {
    data: rows.map(toManagerDto),
    total,
    page,
    limit,
    totalPages: Math.max(1, Math.ceil(total / limit)),
  };
}

export async function getManager(app: AppServices, actor: Actor | null, id: unknown): Promise<ManagerDto> {
  authorize(actor, 'managers.read');
  return requireManager(app, parseId(id));
}

/** Managers whose name or e-mail contains the text (at most 20, newest first). */
export async function searchManagers(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<ManagerDto[]> {
  authorize(actor, 'managers.read');
  const { q } = parseInput(ManagerSearchInput, query);
  if (q === '') return [];
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const rows = await managerRows(app)
    .where((eb) =>
      eb.or([
        eb('m.first_name', 'ilike', pattern),
        eb('m.last_name', 'ilike', pattern),
        eb('m.email', 'ilike', pattern),
        eb(sql<string>`m.first_name || ' ' || m.last_name`, 'ilike', pattern),
      ]),
    )
    .orderBy('m.created_at', 'desc')
    .orderBy('m.id', 'desc')
    .limit(20)
    .execute();
  return rows.map(toManagerDto);
}

/** A user may be linked when they exist, are not deleted and are active. */
async function requireLinkableUser(app: AppServices, userId: number) {
  const user = await app.db
    .selectFrom('users')
    .select(['id', 'is_active'])
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!user) throw new AppError('NOT_FOUND', 'User not found');
  if (!user.is_active) throw new AppError('CONFLICT', 'An inactive user cannot be linked to a manager');
}

async function link(app: AppServices, actor: Actor, managerId: number, userId: number | null, now: string) {
  const command =
    userId === null
      ? ({ type: 'UnlinkUser', managerId, now } as const)
      : ({ type: 'LinkUser', managerId, userId, now } as const);
  return app.commands.handle(linksDecider, MANAGER_LINKS_STREAM, command, commandContext(actor));
}

/** Answers a write from the managers read model once it has applied the write's events. */
function answer(app: AppServices, id: number, positions: Array<Position | null>): Promise<ManagerDto> {
  const last = positions.filter((p): p is Position => p !== null).at(-1) ?? null;
  return answerAfterWrite(app, last, ['managers'], () => findManager(app, id));
}

export async function createManager(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<ManagerDto> {
  authorize(actor, 'managers.write');
  const data = parseInput(ManagerInput, input);
  const now = new Date().toISOString();
  if (data.userId !== null) {
    await requireLinkableUser(app, data.userId);
    // Refuse before creating: the links stream says whether the user is free.
    const { state } = await app.commands.load(linksDecider, MANAGER_LINKS_STREAM);
    if (state.managerOfUser.has(data.userId))
      throw new AppError('CONFLICT', 'This user is already linked to another manager');
  }
  const id = Number(
    (await app.pool.query(`SELECT nextval('${MANAGER_IDS_SEQUENCE}')::int AS id`)).rows[0].id,
  );
  const { userId, ...details } = data;
  const created = await app.commands.handle(
    managerDecider,
    managerDecider.streamId(id),
    { type: 'CreateManager', managerId: id, ...details, now },
    commandContext(actor),
  );
  const linked = userId !== null ? await link(app, actor, id, userId, now) : null;
  return answer(app, id, [created.position, linked?.position ?? null]);
}

export async function updateManager(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<ManagerDto> {
  authorize(actor, 'managers.write');
  const managerId = parseId(id);
  const data = parseInput(ManagerInput, input);
  const current = await requireManager(app, managerId);
  const now = new Date().toISOString();
  // The form sends the whole manager: no userId means "not linked" ('none' is sent as absent).
  if (data.userId !== null && data.userId !== current.userId) await requireLinkableUser(app, data.userId);
  const { userId, ...details } = data;
  const updated = await app.commands.handle(
    managerDecider,
    managerDecider.streamId(managerId),
    { type: 'UpdateManager', ...details, now },
    commandContext(actor),
  );
  const linked = userId !== current.userId ? await link(app, actor, managerId, userId, now) : null;
  return answer(app, managerId, [updated.position, linked?.position ?? null]);
}

export async function deleteManager(app: AppServices, actor: Actor | null, id: unknown): Promise<void> {
  authorize(actor, 'managers.write');
  const managerId = parseId(id);
  await requireManager(app, managerId);
  const now = new Date().toISOString();
  // Unlink first: a deleted manager must not keep its user from being linked elsewhere. A crash in
  // between leaves the manager, unlinked; the delete can be repeated.
  const unlinked = await link(app, actor, managerId, null, now);
  const deleted = await app.commands.handle(
    managerDecider,
    managerDecider.streamId(managerId),
    { type: 'DeleteManager', now },
    commandContext(actor),
  );
  await awaitProjections(app, deleted.position ?? unlinked.position, ['managers']);
}

export async function linkManagerUser(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<ManagerDto> {
  authorize(actor, 'managers.write');
  const managerId = parseId(id);
  const { userId } = parseInput(LinkUserInput, input);
  await requireManager(app, managerId);
  await requireLinkableUser(app, userId);
  const linked = await link(app, actor, managerId, userId, new Date().toISOString());
  return answer(app, managerId, [linked.position]);
}

export async function unlinkManagerUser(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ManagerDto> {
  authorize(actor, 'managers.write');
  const managerId = parseId(id);
  await requireManager(app, managerId);
  const unlinked = await link(app, actor, managerId, null, new Date().toISOString());
  return answer(app, managerId, [unlinked.position]);
}
