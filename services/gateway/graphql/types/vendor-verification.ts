// The vendor's side of a held bank detail change for signed-in staff: start a micro-deposit check,
// and its file's text (recorded, as the REST download is). The vendor's own links are REST only: a
// page without sign-in (services/gateway/rest/vendor-verification-routes.ts).
import { downloadMicroDepositFile, startMicroDeposits } from '../../../vendors/micro-deposits.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { VendorRef } from './vendor.js';

const MicroDepositFileRef = builder
  .objectRef<{ fileName: string; text: string }>('VendorMicroDepositFile')
  .implement({
    description: 'A micro-deposit check’s NACHA file: it holds the new account number and the amounts.',
    fields: (t) => ({ fileName: t.exposeString('fileName'), text: t.exposeString('text') }),
  });

builder.mutationField('startVendorMicroDeposits', (t) =>
  t.field({
    type: VendorRef,
    description:
      'ADMIN or MODERATOR: two credits under $1.00 to the held change’s new account (a penny-test file, within the day’s penny-test limits) and a link to the vendor’s contact on record to enter them; the right amounts make the change live.',
    args: { id: t.arg.int({ required: true }), changeId: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => startMicroDeposits(ctx.app, ctx.actor, args.id, args.changeId)),
  }),
);

builder.mutationField('downloadVendorMicroDepositFile', (t) =>
  t.field({
    type: MicroDepositFileRef,
    description:
      'ADMIN or MODERATOR: the latest micro-deposit check’s file; each download is recorded on the vendor.',
    args: { id: t.arg.int({ required: true }), changeId: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) =>
      run(() => downloadMicroDepositFile(ctx.app, ctx.actor, args.id, args.changeId)),
  }),
);
