import { describe, it } from 'vitest';
import type { CompanyEvent, NachaSettings } from '../../schema/companies/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { companyDecider } from './company-decider.js';
import { NAME_TAKEN, namesDecider } from './names-decider.js';

const now = '2026-01-02T03:04:05.000Z';
const details = {
  name: 'Acme Corp',
  email: null,
  phone: null,
  website: null,
  address: null,
  description: null,
  industry: 'Retail',
};
const none = { managerId: null, processorId: null, approverId: null, accountantId: null };
const created: CompanyEvent = {
  type: 'CompanyCreated',
  data: {
    companyId: 5,
    ...details,
    status: 'ACTIVE',
    ...none,
    qbPaymentAccountReference: null,
    createdAt: now,
  },
};
const nacha: NachaSettings = {
  bankRoutingNumber: '021000021',
  bankAccountNumber: '123456789',
  bankAccountType: 'checking',
  bankName: 'CHASE',
  originatorStatusCode: '1',
  companyTaxId: '123456789',
  achCompanyId: null,
  immediateDestinationName: 'JPMORGAN CHASE',
  immediateOriginName: 'ACME CORP',
  companyEntryDescription: 'BILL PAY',
  companyDiscretionaryData: null,
  balancedFile: false,
};

describe('company decider', () => {
  const spec = deciderSpec(companyDecider);

  it('creates an active company, once', () => {
    const create = {
      type: 'CreateCompany',
      companyId: 5,
      ...details,
      assignments: none,
      paymentAccountReference: null,
      now,
    } as const;
    spec.given([]).when(create).then([created]);
    spec.given([created]).when(create).thenRefuses('CONFLICT');
  });

  it('records only changed details, assignments and settings', () => {
    spec
      .given([created])
      .when({ type: 'UpdateCompany', ...details, phone: '555', now })
      .then([{ type: 'CompanyUpdated', data: { companyId: 5, phone: '555', updatedAt: now } }]);
    spec
      .given([created])
      .when({ type: 'UpdateCompany', ...details, now })
      .then([]);
    spec
      .given([created])
      .when({ type: 'ChangeAssignments', assignments: { managerId: 2, approverId: null }, now })
      .then([
        {
          type: 'CompanyAssignmentChanged',
          data: { companyId: 5, role: 'manager', from: null, to: 2, at: now },
        },
      ]);
    const configured: CompanyEvent = {
      type: 'CompanyNachaConfigured',
      data: { companyId: 5, ...nacha, at: now },
    };
    spec.given([created]).when({ type: 'ConfigureNacha', settings: nacha, now }).then([configured]);
    spec.given([created, configured]).when({ type: 'ConfigureNacha', settings: nacha, now }).then([]);
  });

  it('activates and deactivates only across a change, and refuses a deleted company', () => {
    spec.given([created]).when({ type: 'ActivateCompany', now }).then([]);
    const deactivated: CompanyEvent = { type: 'CompanyDeactivated', data: { companyId: 5, at: now } };
    spec.given([created]).when({ type: 'DeactivateCompany', now }).then([deactivated]);
    spec
      .given([created, deactivated])
      .when({ type: 'ActivateCompany', now })
      .then([{ type: 'CompanyActivated', data: { companyId: 5, at: now } }]);
    const deleted: CompanyEvent = { type: 'CompanyDeleted', data: { companyId: 5, at: now } };
    spec
      .given([created, deleted])
      .when({ type: 'UpdateCompany', ...details, now })
      .thenRefuses('NOT_FOUND');
    spec.given([]).when({ type: 'DeleteCompany', now }).thenRefuses('NOT_FOUND');
  });
});

describe('company names decider', () => {
  const spec = deciderSpec(namesDecider);
  const claimed = (companyId: number, key: string): CompanyEvent => ({
    type: 'CompanyNameClaimed',
    data: { companyId, key, at: now },
  });
  const released = (companyId: number, key: string): CompanyEvent => ({
    type: 'CompanyNameReleased',
    data: { companyId, key, at: now },
  });

  it('claims a name by its folded key, and refuses it to another company', () => {
    spec
      .given([])
      .when({ type: 'ClaimName', companyId: 5, name: '  Acme   Corp ', now })
      .then([claimed(5, 'acme corp')]);
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'ClaimName', companyId: 5, name: 'ACME CORP', now })
      .then([]);
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'ClaimName', companyId: 6, name: 'Acme Corp', now })
      .thenRefuses('CONFLICT', NAME_TAKEN);
  });

  it('frees a released name, and moves a renamed company in one append', () => {
    spec
      .given([claimed(5, 'acme corp'), released(5, 'acme corp')])
      .when({ type: 'ClaimName', companyId: 6, name: 'Acme Corp', now })
      .then([claimed(6, 'acme corp')]);
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'RenameClaim', companyId: 5, from: 'Acme Corp', to: 'Acme Inc', now })
      .then([released(5, 'acme corp'), claimed(5, 'acme inc')]);
    spec
      .given([claimed(5, 'acme corp'), claimed(6, 'acme inc')])
      .when({ type: 'RenameClaim', companyId: 5, from: 'Acme Corp', to: 'Acme Inc', now })
      .thenRefuses('CONFLICT', NAME_TAKEN);
    // Another company's release of a name it does not hold changes nothing.
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'ReleaseName', companyId: 6, name: 'Acme Corp', now })
      .then([]);
  });

  it('compares names with invisible (format) characters removed', () => {
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'ClaimName', companyId: 6, name: 'Acme Corp\u200B', now })
      .thenRefuses('CONFLICT', NAME_TAKEN);
    spec
      .given([claimed(5, 'acme corp')])
      .when({ type: 'ClaimName', companyId: 6, name: 'Ac\u00ADme\u2060 Corp', now })
      .thenRefuses('CONFLICT', NAME_TAKEN);
    spec
      .given([])
      .when({ type: 'ClaimName', companyId: 5, name: '\uFEFFAcme\u200C Corp', now })
      .then([claimed(5, 'acme corp')]);
    // A key claimed before this rule (with the invisible character in it) is released by the name.
    spec
      .given([claimed(5, 'acme\u200b corp')])
      .when({ type: 'ReleaseName', companyId: 5, name: 'Acme\u200B Corp', now })
      .then([released(5, 'acme corp')]);
    spec
      .given([claimed(5, 'acme\u200b corp')])
      .when({ type: 'ClaimName', companyId: 6, name: 'Acme Corp', now })
      .thenRefuses('CONFLICT', NAME_TAKEN);
  });
});
