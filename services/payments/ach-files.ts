// The kernel's ACH file port (services/app/ach-files.ts) as the payments module keeps it: the
// company's NACHA settings, the day's file id modifiers, the writing of an approval's payment file,
// the download of the shared file that carries it, and the sealed storage the payment files, the
// approvals' penny tests and the vendors' micro-deposit tests share.
import type { AchFileAccess } from '../app/ach-files.js';
import type { AppServices } from '../app/context.js';
import { companyForNacha, sameDayAchOf } from './ach-company.js';
import {
  FILE_ID_MODIFIERS,
  fileDayDecider,
  fileDayStreamId,
  PENNY_TEST_MODIFIERS,
  takeFileIdModifier,
} from './file-modifier.js';
import { findNachaFile, readNachaFile, storeNachaFile } from './nacha-files.js';
import { writePaymentFile } from './payment-files.js';

export function paymentsAchFiles(app: () => AppServices): AchFileAccess {
  return {
    company: (companyId) => companyForNacha(app(), companyId),
    sameDayAch: (companyId) => sameDayAchOf(app(), companyId),
    async modifiersLeft(companyId, day) {
      const { state } = await app().commands.load(fileDayDecider, fileDayStreamId(companyId, day));
      const used = new Set(state.taken.values());
      return [...FILE_ID_MODIFIERS].filter((m) => !used.has(m)).length;
    },
    writePaymentFile: (request, summarize, ctx) => writePaymentFile(app(), request, summarize, ctx),
    async keptSummary<S>(fileId: string) {
      return (await findNachaFile<S>(app(), fileId))?.summary ?? null;
    },
    async download(approvalId, fileId, record, ctx) {
      const found = await readNachaFile(app(), approvalId, fileId);
      if (!found) return null;
      if ('gone' in found) return 'gone';
      await record();
      // What goes to the bank is the window's shared file that carries this one (decision 0040): the
      // download seals it, so an approval made later for the window goes into the window's next file.
      const { window } = found.file.summary as {
        window?: { at: string; file: number; via: 'manual' | 'sftp' };
      };
      if (found.file.kind === 'payment' && window) {
        const shared = await app().achWindows.sharedFile(
          {
            companyId: found.file.companyId,
            via: window.via,
            windowAt: window.at,
            file: window.file,
            approvalId,
            fileId,
          },
          'download',
          ctx,
        );
        if (shared) return { fileName: found.file.fileName, text: shared.text };
      }
      return { fileName: found.file.fileName, text: found.text };
    },
    trialModifier: PENNY_TEST_MODIFIERS.at(-1)!,
    takePennyTestModifier: (companyId, day, fileId, vendors, ctx) =>
      takeFileIdModifier(app(), companyId, day, fileId, ctx, { vendors }),
    async storePennyTest(f) {
      await storeNachaFile(app(), {
        fileId: f.fileId,
        approvalId: f.ownerId,
        companyId: f.companyId,
        kind: 'penny-test',
        version: 0,
        fileName: f.fileName,
        summary: f.summary,
        text: f.text,
      });
    },
    async read(ownerId, fileId) {
      const r = await readNachaFile(app(), ownerId, fileId);
      if (!r) return null;
      return 'gone' in r ? 'gone' : { fileName: r.file.fileName, text: r.text };
    },
  };
}
