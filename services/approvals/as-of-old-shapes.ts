// An older shape of ApprovalRejected, for the tests that prove old events are read upcast everywhere
// (projections, time travel, history): version 0 named the reason `comment`, the rejecter
// `rejectedBy` and the time `date`. No stored event has it; the tests register this upcaster for
// their run and append events of version 0, as a log written before a rename would hold them.
export interface RejectedV0 {
  approvalId: string;
  companyId: number;
  comment: string;
  rejectedBy: number;
  date: string;
}

export const OLD_REJECTED_UPCAST = {
  0: (d: RejectedV0) => ({
    approvalId: d.approvalId,
    companyId: d.companyId,
    reason: d.comment,
    byUserId: d.rejectedBy,
    at: d.date,
  }),
};
