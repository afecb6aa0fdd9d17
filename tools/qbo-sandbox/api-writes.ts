// The v3 accounting API's writes: creating a bill (tests make look-alike bills with it), a
// BillPayment, whose requestid answers a retry as the first time, and voiding a BillPayment.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Api } from './api.js';
import { json } from './faults.js';
import type { Realm } from './seed.js';
import type { SandboxState } from './state.js';

/** Intuit's words when a write names an inactive vendor, account or other name-list object. */
const INACTIVE_TEXT =
  "Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.";
const INACTIVE_DETAIL = `Object Not Found : ${INACTIVE_TEXT}`;

export function registerApiWrites(server: FastifyInstance, sim: SandboxState, api: Api) {
  const { now, time } = sim;
  const { guard } = api;
  // Creating a bill (Intuit's POST /bill, create only): tests make look-alike bills with it.
  server.post('/v3/company/:realmId/bill', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const fault = (detail: string) =>
      reply
        .status(400)
        .type(json)
        .send({
          Fault: {
            Error: [{ Message: 'Invalid Reference Id', Detail: detail, code: '2500', element: '' }],
            type: 'ValidationFault',
          },
          time: time(),
        });
    const b = (req.body ?? {}) as Record<string, any>;
    const vendor = realm.vendors.find((v) => v.Id === b.VendorRef?.value);
    if (!vendor) return fault('Invalid Reference Id : Vendor');
    // A bill for an inactive vendor (intuit/QuickBooks-V3-PHP-SDK#110 answers 2500 with this text).
    if (!vendor.Active) return fault(`Invalid Reference Id : ${INACTIVE_TEXT}`);
    const ap = realm.accounts.find((a) => a.AccountType === 'Accounts Payable');
    const lines = (Array.isArray(b.Line) ? b.Line : []).filter((l: any) => Number(l?.Amount) > 0);
    if (lines.length === 0 || !ap) return fault('Line');
    const stamp = new Date(now()).toISOString();
    const total = Math.round(lines.reduce((sum: number, l: any) => sum + Number(l.Amount), 0) * 100) / 100;
    const bill = {
      Id: String(realm.nextId++),
      SyncToken: '0',
      DocNumber: typeof b.DocNumber === 'string' ? b.DocNumber : '',
      TxnDate: typeof b.TxnDate === 'string' ? b.TxnDate : stamp.slice(0, 10),
      DueDate: typeof b.DueDate === 'string' ? b.DueDate : stamp.slice(0, 10),
      VendorRef: { value: vendor.Id, name: vendor.DisplayName },
      APAccountRef: { value: ap.Id, name: ap.Name },
      Line: lines.map((l: any, i: number) => ({
        Id: String(i + 1),
        LineNum: i + 1,
        Amount: Number(l.Amount),
        Description: String(l.Description ?? ''),
        DetailType: 'AccountBasedExpenseLineDetail' as const,
        AccountBasedExpenseLineDetail: {
          AccountRef: l.AccountBasedExpenseLineDetail?.AccountRef ?? { value: ap.Id },
        },
      })),
      TotalAmt: total,
      Balance: total,
      CurrencyRef: { value: 'USD' },
      LinkedTxn: [],
      MetaData: { CreateTime: stamp, LastUpdatedTime: stamp },
    };
    realm.bills.push(bill);
    vendor.Balance = Math.round((vendor.Balance + total) * 100) / 100;
    return reply.type(json).send({ Bill: bill, time: time() });
  });

  server.post('/v3/company/:realmId/billpayment', async (req, reply) => {
    const realm = await guard(req, reply);
    if (!realm) return reply;
    const query = req.query as Record<string, string>;
    if (query.operation === 'update') return voidBillPayment(realm, query, req.body, reply);
    const requestId = (req.query as Record<string, string>).requestid;
    const replayKey = requestId ? `${realm.realmId}:${requestId}` : null;
    if (replayKey && sim.replays.has(replayKey)) {
      const first = sim.replays.get(replayKey)!;
      return reply.status(first.status).type(json).send(first.body);
    }
    const answer = (status: number, body: unknown) => {
      if (replayKey) sim.replays.set(replayKey, { status, body });
      return reply.status(status).type(json).send(body);
    };
    const fault = (code: string, message: string, detail: string) =>
      answer(400, {
        Fault: { Error: [{ Message: message, Detail: detail, code, element: '' }], type: 'ValidationFault' },
        time: time(),
      });
    const b = (req.body ?? {}) as Record<string, any>;
    const vendor = realm.vendors.find((v) => v.Id === b.VendorRef?.value);
    if (!vendor) return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Vendor');
    // An inactive (or deleted) vendor cannot be paid (intuit/QuickBooks-V3-DotNET-SDK#353).
    if (!vendor.Active) return fault('610', 'Object Not Found', INACTIVE_DETAIL);
    const payType = b.PayType === 'CreditCard' ? 'CreditCard' : b.PayType === 'Check' ? 'Check' : null;
    if (!payType)
      return fault(
        '2020',
        'Required param missing, need to supply the required value for the API',
        'PayType',
      );
    const bankRef =
      payType === 'Check' ? b.CheckPayment?.BankAccountRef?.value : b.CreditCardPayment?.CCAccountRef?.value;
    const bank = realm.accounts.find((a) => a.Id === bankRef && a.Active);
    if (
      !bank ||
      (payType === 'Check' && bank.AccountType !== 'Bank') ||
      (payType === 'CreditCard' && bank.AccountType !== 'Credit Card')
    )
      return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Account');
    const lines = Array.isArray(b.Line) ? b.Line : [];
    if (lines.length === 0)
      return fault('2020', 'Required param missing, need to supply the required value for the API', 'Line');
    // TotalAmt is required on a BillPayment (Intuit's API reference, BillPayment: "TotalAmt … required").
    if (typeof b.TotalAmt !== 'number' || !Number.isFinite(b.TotalAmt))
      return fault(
        '2020',
        'Required param missing, need to supply the required value for the API',
        'Required parameter TotalAmt is missing in the request',
      );
    const applied: Array<{ bill: (typeof realm.bills)[number]; amount: number }> = [];
    for (const line of lines) {
      const link = line?.LinkedTxn?.[0];
      const bill = realm.bills.find((x) => x.Id === link?.TxnId && link?.TxnType === 'Bill');
      const amount = Number(line?.Amount);
      if (!bill) return fault('2500', 'Invalid Reference Id', 'Invalid Reference Id : Bill');
      if (bill.VendorRef.value !== vendor.Id)
        return fault(
          '6000',
          'A business validation error has occurred while processing your request',
          'The bill belongs to another vendor',
        );
      if (!(amount > 0) || Math.round(amount * 100) > Math.round(bill.Balance * 100))
        return fault(
          '6000',
          'A business validation error has occurred while processing your request',
          `Amount exceeds the open balance of bill ${bill.Id}`,
        );
      applied.push({ bill, amount });
    }
    const total = Math.round(applied.reduce((s, a) => s + a.amount, 0) * 100) / 100;
    if (Math.round(b.TotalAmt * 100) !== Math.round(total * 100))
      return fault(
        '6000',
        'A business validation error has occurred while processing your request',
        'TotalAmt does not equal the sum of the lines',
      );
    const id = String(realm.nextId++);
    const stamp = new Date(now()).toISOString();
    for (const { bill, amount } of applied) {
      bill.Balance = Math.round((bill.Balance - amount) * 100) / 100;
      bill.LinkedTxn.push({
        TxnId: id,
        TxnType: payType === 'Check' ? 'BillPaymentCheck' : 'BillPaymentCreditCard',
      });
      bill.SyncToken = String(Number(bill.SyncToken) + 1);
      bill.MetaData = { ...bill.MetaData, LastUpdatedTime: stamp };
    }
    vendor.Balance = Math.round((vendor.Balance - total) * 100) / 100;
    bank.CurrentBalance = Math.round((bank.CurrentBalance - total) * 100) / 100;
    bank.CurrentBalanceWithSubAccounts = bank.CurrentBalance;
    const payment = {
      Id: id,
      SyncToken: '0',
      VendorRef: { value: vendor.Id, name: vendor.DisplayName },
      PayType: payType,
      ...(payType === 'Check'
        ? { CheckPayment: { BankAccountRef: { value: bank.Id, name: bank.Name }, PrintStatus: 'NotSet' } }
        : { CreditCardPayment: { CCAccountRef: { value: bank.Id, name: bank.Name } } }),
      TotalAmt: total,
      TxnDate: b.TxnDate ?? stamp.slice(0, 10),
      Line: applied.map(({ bill, amount }) => ({
        Amount: amount,
        LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }],
      })),
      CurrencyRef: { value: 'USD' },
      // Kept as sent (Intuit: PrivateNote, at most 4000 characters): the app marks its own payments.
      ...(typeof b.PrivateNote === 'string' ? { PrivateNote: b.PrivateNote.slice(0, 4000) } : {}),
      MetaData: { CreateTime: stamp, LastUpdatedTime: stamp },
    };
    realm.billPayments.push(payment);
    // The request log names the bills this request paid (a replay or a refusal paid none).
    (req as { simPaidBillIds?: string[] }).simPaidBillIds = applied.map(({ bill }) => bill.Id);
    return answer(200, { BillPayment: payment, time: time() });
  });

  /**
   * Intuit's void of a BillPayment: `POST …/billpayment?operation=update&include=void` with its Id
   * and current SyncToken (sparse). The record stays, its amounts are zeroed and its lines cleared,
   * "Voided" is put before its note, and each bill it paid is open again by what it paid. A stale
   * SyncToken is refused (5010), as any update's; a void of a voided payment changes nothing more.
   * Only the void is simulated: another sparse update is refused.
   */
  function voidBillPayment(realm: Realm, query: Record<string, string>, body: unknown, reply: FastifyReply) {
    const fault = (status: number, code: string, message: string, detail: string) =>
      reply
        .status(status)
        .type(json)
        .send({
          Fault: {
            Error: [{ Message: message, Detail: detail, code, element: '' }],
            type: 'ValidationFault',
          },
          time: time(),
        });
    if (query.include !== 'void')
      return fault(
        400,
        '2010',
        'Request has invalid or unsupported property',
        'Only include=void is simulated',
      );
    const b = (body ?? {}) as Record<string, any>;
    const payment = realm.billPayments.find((p) => p.Id === String(b.Id ?? ''));
    if (!payment) return fault(400, '610', 'Object Not Found', 'Object Not Found : BillPayment');
    if (String(b.SyncToken ?? '') !== String(payment.SyncToken))
      return fault(
        400,
        '5010',
        'Stale Object Error',
        'Stale Object Error : You and another user were working on the same thing. The other user finished before you did, so your work was not saved.',
      );
    const stamp = new Date(now()).toISOString();
    const voided = typeof payment.PrivateNote === 'string' && payment.PrivateNote.startsWith('Voided');
    if (!voided) {
      const lines = (payment.Line ?? []) as Array<{ Amount: number; LinkedTxn: Array<{ TxnId: string }> }>;
      for (const line of lines) {
        const bill = realm.bills.find((x) => x.Id === line.LinkedTxn?.[0]?.TxnId);
        if (!bill) continue;
        bill.Balance = Math.round((bill.Balance + Number(line.Amount)) * 100) / 100;
        bill.LinkedTxn = bill.LinkedTxn.filter((t) => t.TxnId !== payment.Id);
        bill.SyncToken = String(Number(bill.SyncToken) + 1);
        bill.MetaData = { ...bill.MetaData, LastUpdatedTime: stamp };
      }
      const total = Number(payment.TotalAmt) || 0;
      const vendor = realm.vendors.find((v) => v.Id === (payment.VendorRef as { value: string }).value);
      if (vendor) vendor.Balance = Math.round((vendor.Balance + total) * 100) / 100;
      const accountId =
        (payment.CheckPayment as { BankAccountRef?: { value: string } } | undefined)?.BankAccountRef?.value ??
        (payment.CreditCardPayment as { CCAccountRef?: { value: string } } | undefined)?.CCAccountRef?.value;
      const account = realm.accounts.find((a) => a.Id === accountId);
      if (account) {
        account.CurrentBalance = Math.round((account.CurrentBalance + total) * 100) / 100;
        account.CurrentBalanceWithSubAccounts = account.CurrentBalance;
      }
      payment.TotalAmt = 0;
      payment.Line = [];
      payment.PrivateNote =
        typeof payment.PrivateNote === 'string' && payment.PrivateNote
          ? `Voided - ${payment.PrivateNote}`
          : 'Voided';
    }
    payment.SyncToken = String(Number(payment.SyncToken) + 1);
    payment.MetaData = { ...(payment.MetaData as object), LastUpdatedTime: stamp };
    return reply.type(json).send({ BillPayment: payment, time: time() });
  }
}
