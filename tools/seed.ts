// Demo data for `npm start`: one user of each other role, created once (idempotent by e-mail claim).
import { claimStreamOf, registerUser } from '../services/app/auth.js';
import type { AppServices } from '../services/app/context.js';
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
  return DEMO_USERS.map((u) => ({ email: u.email, role: u.role, password: DEMO_PASSWORD }));
}
