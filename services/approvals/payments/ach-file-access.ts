// The kernel's NACHA file port (services/app/ach-files.ts) as the approvals module keeps it: the same
// company settings, file id modifiers and sealed storage its own payment files and penny tests use.
import type { AchFileAccess } from '../../app/ach-files.js';
import type { AppServices } from '../../app/context.js';
import { PENNY_TEST_MODIFIERS, takeFileIdModifier } from './file-modifier.js';
import { readNachaFile, storeNachaFile } from './nacha-files.js';
import { companyForNacha } from './nacha-sources.js';

export function approvalsAchFiles(app: () => AppServices): AchFileAccess {
  return {
    async company(companyId) {
      const r = await companyForNacha(app(), companyId);
      return 'problem' in r ? { problem: r.problem.message } : { company: r.company };
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
