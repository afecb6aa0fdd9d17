// Demo data for `npm start`, made through the same commands a user would issue: one user of each
// other role (idempotent by e-mail claim) and, on a store with no manager yet, three managers, one
// linked to the demo USER.
import { claimStreamOf, registerUser } from '../services/app/auth.js';
import type { AppServices } from '../services/app/context.js';
import { createManager, MANAGER_IDS_SEQUENCE } from '../services/app/managers.js';
import type { Actor } from '../services/auth/permissions.js';
import { emailClaimDecider } from '../services/domain/user/email-claim.js';

export const DEMO_PASSWORD = 'demo-pass-2026';

const DEMO_USERS = [
  { email: 'morgan.moderator@billflow.local', firstName: 'Morgan', lastName: 'Reyes', role: 'MODERATOR' },
  { email: 'uma.user@billflow.local', firstName: 'Uma', lastName: 'Patel', role: 'USER' },
  { email: 'gus.guest@billflow.local', firstName: 'Gus', lastName: 'Olsen', role: 'GUEST' },
] as const;

export async function seedDemoData(app: AppServices) {
  for (const u of DEMO_USERS) {
    const { state } = await app.commands.load(emailClaimDecider, claimStreamOf(app, u.email));
    if (state.claimedBy !== null) continue;
    await registerUser(
      app,
      null,
      { ...u, password: DEMO_PASSWORD },
      { system: true, context: { commandId: `seed-${u.email}` } },
    );
  }
  await seedDemoManagers(app);
  return DEMO_USERS.map((u) => ({ email: u.email, role: u.role, password: DEMO_PASSWORD }));
}

const DEMO_MANAGERS = [
  {
    firstName: 'Dana',
    lastName: 'Whitfield',
    email: 'dana.whitfield@billflow.local',
    title: 'Controller',
    phone: '(555) 010-2040',
    linkTo: 'uma.user@billflow.local',
  },
  {
    firstName: 'Ravi',
    lastName: 'Menon',
    email: 'ravi.menon@billflow.local',
    title: 'Accounts Payable Manager',
    phone: null,
    linkTo: null,
  },
  {
    firstName: 'Elena',
    lastName: 'Park',
    email: 'elena.park@billflow.local',
    title: 'CFO',
    phone: '(555) 010-7781',
    linkTo: null,
  },
];

/** Only on a store where no manager was ever created (the id sequence was never used). */
async function seedDemoManagers(app: AppServices) {
  const seq = await app.pool.query(`SELECT is_called FROM ${MANAGER_IDS_SEQUENCE}`);
  if (seq.rows[0]?.is_called) return;
  // As the first admin would: the same use case, permission check included.
  const admin = await app.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('role', '=', 'ADMIN')
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .executeTakeFirst();
  if (!admin) return;
  const actor: Actor = { id: admin.id, role: 'ADMIN', email: admin.email ?? '' };
  for (const { linkTo, ...m } of DEMO_MANAGERS) {
    const user = linkTo
      ? await app.db.selectFrom('users').select('id').where('email_lower', '=', linkTo).executeTakeFirst()
      : undefined;
    await createManager(app, actor, { ...m, userId: user?.id ?? null });
  }
}
