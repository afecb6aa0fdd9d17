// Bank detail changes held for a second look: approving or rejecting one (another ADMIN or MODERATOR
// than its maker, in the company's staff scope, always with a reason), the company's control on them
// (ADMIN), and the masked answers the vendor's page, the approvals and the operations page read.
import type { z } from 'zod';
import type { BankingChangesTable } from '../../projections/vendors/tables.js';
import {
  awaitingOnHeldChange,
  type BankingChange,
  type BankingControl,
} from '../../schema/vendors/answers.js';
import {
  BankingChangeDecisionInput,
  BankingChangeIdInput,
  BankingControlInput,
} from '../../schema/vendors/commands.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { AppError, parseInput, parseRowId } from '../shared/errors.js';
import { maskTail } from '../shared/masking.js';
import { bankingControlDecider, type BankingControl as Control } from './banking-control-decider.js';
import { awaitingWithMicroDeposits, microDepositsAnswer, verificationsOf } from './banking-verifications.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import { answer, parseId, requireChangeableVendor, requireVendor, type VendorDto } from './vendor-rows.js';

/** The read models a change's answer waits for. */
export const BANKING_READ_MODELS = [
  'vendors',
  'vendor_banking_changes',
  'vendor_banking_verifications',
] as const;

export async function bankingControlOf(app: AppServices, companyId: number): Promise<Control> {
  return (await app.commands.load(bankingControlDecider, bankingControlDecider.streamId(companyId))).state;
}

type ChangeRow = BankingChangesTable & { vendor_name?: string | null };

/** Who must act on a held change, in words (a change by the system names no maker). */
const awaiting = (row: ChangeRow, makerName: string | null) =>
  awaitingOnHeldChange(
    row.status,
    row.requested_by === null ? null : (makerName ?? 'its maker'),
    '',
    row.source,
  );

async function userNames(app: AppServices, ids: Array<number | null>): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((n): n is number => n !== null))];
  const names = new Map<number, string>();
  if (wanted.length === 0) return names;
  for (const u of await app.db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('id', 'in', wanted)
    .execute())
    names.set(u.id, [u.first_name, u.last_name].filter(Boolean).join(' ') || u.email || `User #${u.id}`);
  return names;
}

/** Masked answers for rows of the read model, with the names of the people in them. */
export async function bankingChangeAnswers(app: AppServices, rows: ChangeRow[]): Promise<BankingChange[]> {
  const vendorSide = await verificationsOf(
    app,
    rows.map((r) => r.change_id),
  );
  const names = await userNames(app, [
    ...rows.flatMap((r) => [r.requested_by, r.decided_by]),
    ...[...vendorSide.values()].map((v) => v.md_started_by),
  ]);
  return rows.map((r) => {
    const maker = r.requested_by === null ? null : (names.get(r.requested_by) ?? `User #${r.requested_by}`);
    const microDeposits = microDepositsAnswer(vendorSide.get(r.change_id), names);
    return {
      changeId: r.change_id,
      vendorId: r.vendor_id,
      vendorName: r.vendor_name ?? null,
      companyId: r.company_id,
      status: r.status,
      source: r.source,
      routingNumber: maskTail(r.routing_last4, 9),
      accountNumber: maskTail(r.account_last4, 8),
      accountType: r.account_type,
      previousRoutingNumber: maskTail(r.prev_routing_last4, 9),
      previousAccountNumber: maskTail(r.prev_account_last4, 8),
      requestedById: r.requested_by,
      requestedByName: maker,
      requestedAt: r.requested_at.toISOString(),
      decidedById: r.decided_by,
      decidedByName: r.decided_by === null ? null : (names.get(r.decided_by) ?? `User #${r.decided_by}`),
      decidedAt: r.decided_at?.toISOString() ?? null,
      verifiedBy: r.verified_by,
      reason: r.reason,
      awaiting: awaitingWithMicroDeposits(awaiting(r, maker), microDeposits),
      contactNotice: vendorSide.get(r.change_id)?.contact_notice ?? null,
      microDeposits,
    };
  });
}

/** The held (pending or frozen) change of each of these vendors. */
export async function pendingChangesOf(
  app: AppServices,
  vendorIds: number[],
): Promise<Map<number, BankingChange>> {
  if (vendorIds.length === 0) return new Map();
  const rows = await app.db
    .selectFrom('vendor_banking_changes')
    .selectAll()
    .where('vendor_id', 'in', vendorIds)
    .where('status', 'in', ['pending', 'frozen'])
    .execute();
  return new Map((await bankingChangeAnswers(app, rows)).map((c) => [c.vendorId, c]));
}

/** The vendor's answer with its held change. */
export async function withPendingChange(app: AppServices, dto: VendorDto): Promise<VendorDto> {
  return { ...dto, pendingBankingChange: (await pendingChangesOf(app, [dto.id])).get(dto.id) ?? null };
}

/** GET /api/vendors/{id}/banking-changes: every change of the vendor, newest first. */
export async function vendorBankingChanges(app: AppServices, actor: Actor | null, id: unknown) {
  authorize(actor, 'vendors.read');
  const row = await requireVendor(app, actor, parseId(id));
  const rows = await app.db
    .selectFrom('vendor_banking_changes')
    .selectAll()
    .where('vendor_id', '=', row.id)
    .orderBy('requested_at', 'desc')
    .limit(200)
    .execute();
  return bankingChangeAnswers(
    app,
    rows.map((r) => ({ ...r, vendor_name: row.name })),
  );
}

async function decideChange(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  changeIdRaw: unknown,
  body: unknown,
  decision: 'approve' | 'reject',
): Promise<VendorDto> {
  authorize(actor, 'vendors.approveBankingChange');
  const vendorId = parseId(id);
  const { changeId } = parseInput(BankingChangeIdInput, { changeId: changeIdRaw });
  const { reason } = parseInput(BankingChangeDecisionInput, body ?? {});
  const row = await requireChangeableVendor(app, actor, vendorId);
  const now = new Date().toISOString();
  const r = await app.commands.handle(
    vendorDecider,
    vendorStreamId(row.company_id, row.qb_vendor_id),
    decision === 'approve'
      ? {
          type: 'ApproveBankingChange',
          changeId,
          byUserId: actor.id,
          reason,
          now,
          byAdmin: actor.role === 'ADMIN',
        }
      : { type: 'RejectBankingChange', changeId, byUserId: actor.id, reason, now },
    commandContext(actor),
  );
  await answerAfterWrite(app, r.position, [...BANKING_READ_MODELS], async () => true);
  return withPendingChange(app, await answer(app, vendorId, r.position));
}

/** POST /api/vendors/{id}/banking-changes/{changeId}/approve: another person than its maker. */
export const approveBankingChange = (
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  changeId: unknown,
  body: unknown,
) => decideChange(app, actor, id, changeId, body, 'approve');

/** POST /api/vendors/{id}/banking-changes/{changeId}/reject: the live banking stays. */
export const rejectBankingChange = (
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  changeId: unknown,
  body: unknown,
) => decideChange(app, actor, id, changeId, body, 'reject');

const parseCompanyId = (id: unknown) => parseRowId(id, 'Company not found');

async function liveCompanyInScope(app: AppServices, actor: Actor, companyId: number) {
  const company = await app.db
    .selectFrom('companies')
    .select(['id'])
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company || !inScope(await companyScope(app, actor), companyId))
    throw new AppError('NOT_FOUND', 'Company not found');
}

/** GET /api/vendors/banking-control/{companyId}: on by default. */
export async function getBankingControl(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<z.infer<typeof BankingControl>> {
  authorize(actor, 'vendors.read');
  const companyId = parseCompanyId(id);
  await liveCompanyInScope(app, actor, companyId);
  return { companyId, ...(await bankingControlOf(app, companyId)) };
}

/** PUT /api/vendors/banking-control/{companyId} (ADMIN): turning it off needs a reason, on record. */
export async function setBankingControl(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
): Promise<z.infer<typeof BankingControl>> {
  authorize(actor, 'vendors.bankingControl');
  const companyId = parseCompanyId(id);
  const input = parseInput(BankingControlInput, body);
  await liveCompanyInScope(app, actor, companyId);
  const r = await app.commands.handle(
    bankingControlDecider,
    bankingControlDecider.streamId(companyId),
    {
      type: 'SetBankingControl',
      companyId,
      byUserId: actor.id,
      reason: input.reason,
      now: new Date().toISOString(),
      enabled: input.enabled,
      flagDays: input.flagDays,
    },
    commandContext(actor),
  );
  const state = r.state as Control;
  return { companyId, enabled: state.enabled, flagDays: state.flagDays };
}
