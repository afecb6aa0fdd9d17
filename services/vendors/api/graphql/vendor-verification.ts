// The vendor's side of a held bank detail change for signed-in staff: a micro-deposit check's file's
// text (recorded, as the REST download is). Written here, not declared: its REST twin is a GET that
// answers the file itself. Starting the check is declared once in services/vendors/endpoints.ts. The
// vendor's own links are REST only: a page without sign-in
// (services/vendors/api/rest/vendor-verification-routes.ts).

import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { downloadMicroDepositFile } from '../../micro-deposits.js';

const MicroDepositFileRef = builder
  .objectRef<{ fileName: string; text: string }>('VendorMicroDepositFile')
  .implement({
    description: 'A micro-deposit check’s NACHA file: it holds the new account number and the amounts.',
    fields: (t) => ({ fileName: t.exposeString('fileName'), text: t.exposeString('text') }),
  });

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
