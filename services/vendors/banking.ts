// A vendor's bank details: kept by Billflow on the vendor's stream, sealed with its
// key. Set by the form, a batch or a CSV import (csv-import.ts), cleared, or shown in full to ADMIN
// and MODERATOR once the unmask is recorded.
import { randomUUID } from 'node:crypto';
import type { BatchBankingResult } from '../../schema/vendors/answers.js';
import { BankingInput, BatchBankingInput } from '../../schema/vendors/commands.js';
import type { BankingSource } from '../../schema/vendors/events.js';
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { companyScope, inScope } from '../app/staff-scope.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { parseInput } from '../shared/errors.js';
import { inParallel } from '../shared/parallel.js';
import { BANKING_READ_MODELS, bankingControlOf, withPendingChange } from './banking-changes.js';
import type { BankingControl } from './banking-control-decider.js';
import { type Banking, vendorDecider, vendorStreamId } from './vendor-decider.js';
import {
  answer,
  anyVendorRows,
  COMPANY_DELETED,
  parseId,
  requireChangeableVendor,
  type VendorDto,
  type VendorRow,
} from './vendor-rows.js';

/**
 * One vendor with its full numbers (ADMIN, MODERATOR): the unmask is recorded first — an event with
 * who and when — and only then are the numbers read from the vendor's stream.
 */
export async function unmaskedVendor(
  app: AppServices,
  actor: Actor,
  row: Pick<VendorRow, 'company_id' | 'qb_vendor_id'>,
  dto: VendorDto,
): Promise<VendorDto> {
  authorize(actor, 'vendors.unmask');
  const streamId = vendorStreamId(row.company_id, row.qb_vendor_id);
  const recorded = await app.commands.handle(
    vendorDecider,
    streamId,
    { type: 'RecordUnmask', byUserId: actor.id, now: new Date().toISOString() },
    commandContext(actor),
  );
  const banking = recorded.state.banking;
  return {
    ...dto,
    hasBankingInfo: banking !== null,
    routingNumber: banking?.routingNumber ?? null,
    accountNumber: banking?.accountNumber ?? null,
    accountType: banking?.accountType ?? null,
    bankName: banking?.bankName ?? null,
    isUnmasked: true,
  };
}

/**
 * The one way bank details change, from every path (the form, a batch, a CSV row, a bank's
 * notification of change): the vendor's decider holds a change of the account for a second look
 * while the company's control is on. `held`: it waits (the live banking is as it was).
 */
export async function applyBanking(
  app: AppServices,
  row: Pick<VendorRow, 'company_id' | 'qb_vendor_id'>,
  banking: Banking,
  source: BankingSource,
  byUserId: number | null,
  ctx: CommandContext,
  /** The company's control when the caller read it already (an import reads it once a company). */
  known?: BankingControl,
) {
  const control = known ?? (await bankingControlOf(app, row.company_id));
  const r = await app.commands.handle(
    vendorDecider,
    vendorStreamId(row.company_id, row.qb_vendor_id),
    {
      type: 'UpdateBanking',
      ...banking,
      source,
      byUserId,
      changeId: randomUUID(),
      controlled: control.enabled,
      now: new Date().toISOString(),
    },
    ctx,
  );
  return {
    ...r,
    held: r.state.pending !== null && r.events.some((e) => e.type === 'VendorBankingChangeRequested'),
  };
}

export async function updateVendorBanking(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
) {
  authorize(actor, 'vendors.write');
  const vendorId = parseId(id);
  const banking = parseInput(BankingInput, input);
  const row = await requireChangeableVendor(app, actor, vendorId);
  const r = await applyBanking(app, row, banking, 'form', actor.id, commandContext(actor));
  await awaitProjections(app, r.position, [...BANKING_READ_MODELS]);
  return withPendingChange(app, await answer(app, vendorId, r.position));
}

export async function clearVendorBanking(app: AppServices, actor: Actor | null, id: unknown) {
  authorize(actor, 'vendors.write');
  const vendorId = parseId(id);
  const row = await requireChangeableVendor(app, actor, vendorId);
  const r = await app.commands.handle(
    vendorDecider,
    vendorStreamId(row.company_id, row.qb_vendor_id),
    { type: 'ClearBanking', now: new Date().toISOString() },
    commandContext(actor),
  );
  return answer(app, vendorId, r.position);
}

/** Each vendor its own command on its own stream; one read-your-writes wait for the batch. */
export async function batchUpdateVendorBanking(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
): Promise<BatchBankingResult> {
  authorize(actor, 'vendors.write');
  const { updates } = parseInput(BatchBankingInput, input);
  const scope = await companyScope(app, actor);
  const rows = new Map(
    (
      await anyVendorRows(app)
        .where(
          'v.id',
          'in',
          updates.map((u) => u.vendorId),
        )
        .execute()
    ).map((r) => [r.id, r]),
  );
  let last: Position | null = null;
  const results = await inParallel(updates, 8, async ({ vendorId, ...banking }) => {
    const row = rows.get(vendorId);
    if (!row || !inScope(scope, row.company_id))
      return { vendorId, success: false, error: 'Vendor not found' };
    if (row.company_deleted_at !== null) return { vendorId, success: false, error: COMPANY_DELETED };
    try {
      const r = await applyBanking(app, row, banking, 'batch', actor.id, commandContext(actor));
      if (r.position && (last === null || r.position > last)) last = r.position;
      return { vendorId, success: true, error: null, held: r.held };
    } catch (err) {
      return { vendorId, success: false, error: err instanceof Error ? err.message : String(err) };
    }
  });
  await awaitProjections(app, last, [...BANKING_READ_MODELS]);
  const updated = results.filter((r) => r.success).length;
  const held = results.filter((r) => 'held' in r && r.held).length;
  return { processed: results.length, updated, failed: results.length - updated, held, results };
}
