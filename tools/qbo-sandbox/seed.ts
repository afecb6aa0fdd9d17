// Deterministic demo data for the QuickBooks simulator: several companies (realms), each with bank
// accounts, an AP account and expense accounts, dozens of vendors and many open bills with line items,
// most with a PDF invoice attached. The same seed gives the same data on every run.
export interface QbRef {
  value: string;
  name?: string;
}

export interface QbAccount {
  Id: string;
  Name: string;
  AccountType: string;
  AccountSubType: string;
  Classification: string;
  CurrentBalance: number;
  CurrentBalanceWithSubAccounts: number;
  Active: boolean;
  CurrencyRef: QbRef;
  SyncToken: string;
  MetaData: { CreateTime: string; LastUpdatedTime: string };
}

export interface QbVendor {
  Id: string;
  SyncToken: string;
  DisplayName: string;
  CompanyName: string;
  PrimaryEmailAddr?: { Address: string };
  PrimaryPhone?: { FreeFormNumber: string };
  BillAddr: { Line1: string; City: string; CountrySubDivisionCode: string; PostalCode: string };
  Balance: number;
  Active: boolean;
  AcctNum?: string;
  Vendor1099: boolean;
  MetaData: { CreateTime: string; LastUpdatedTime: string };
}

export interface QbBillLine {
  Id: string;
  LineNum: number;
  Amount: number;
  Description: string;
  DetailType: 'AccountBasedExpenseLineDetail';
  AccountBasedExpenseLineDetail: { AccountRef: QbRef };
}

export interface QbBill {
  Id: string;
  SyncToken: string;
  DocNumber: string;
  TxnDate: string;
  DueDate: string;
  VendorRef: QbRef;
  APAccountRef: QbRef;
  Line: QbBillLine[];
  TotalAmt: number;
  Balance: number;
  CurrencyRef: QbRef;
  LinkedTxn: Array<{ TxnId: string; TxnType: string }>;
  MetaData: { CreateTime: string; LastUpdatedTime: string };
}

export interface QbAttachable {
  Id: string;
  SyncToken: string;
  FileName: string;
  ContentType: string;
  Size: number;
  AttachableRef: Array<{ EntityRef: { type: string; value: string }; IncludeOnSend: boolean }>;
  MetaData: { CreateTime: string; LastUpdatedTime: string };
}

export interface QbCompanyInfo {
  Id: string;
  CompanyName: string;
  LegalName: string;
  Country: string;
  CompanyAddr: { Line1: string; City: string; CountrySubDivisionCode: string; PostalCode: string };
  FiscalYearStartMonth: string;
  Email: { Address: string };
}

export interface Realm {
  realmId: string;
  info: QbCompanyInfo;
  accounts: QbAccount[];
  vendors: QbVendor[];
  bills: QbBill[];
  attachables: QbAttachable[];
  billPayments: Array<Record<string, unknown>>;
  /** Deleted objects for CDC's `status: "Deleted"` rows (the last 30 days). */
  deleted?: Array<{ entity: string; Id: string; MetaData: { LastUpdatedTime: string } }>;
  /** Next id for created entities (bill payments). */
  nextId: number;
}

/** mulberry32: small, fast, deterministic. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMPANIES = [
  { name: 'Sunrise Bakery LLC', city: 'Mountain View', state: 'CA', zip: '94043' },
  { name: 'Harbor Logistics Inc', city: 'Oakland', state: 'CA', zip: '94607' },
  { name: 'Pinecrest Dental Group', city: 'Portland', state: 'OR', zip: '97205' },
  { name: 'Northwind Builders Co', city: 'Denver', state: 'CO', zip: '80202' },
];
const VENDOR_WORDS = [
  'Norton',
  'Lumber',
  'Acme',
  'Supply',
  'Bright',
  'Office',
  'Pacific',
  'Electric',
  'Summit',
  'Paper',
  'Green',
  'Valley',
  'Produce',
  'Metro',
  'Cleaning',
  'Apex',
  'Plumbing',
  'Blue',
  'Sky',
  'Telecom',
  'Granite',
  'Freight',
  'Cedar',
  'Printing',
  'Oak',
  'Tools',
  'River',
  'Water',
  'Iron',
  'Works',
];
const EXPENSES = [
  'Job Materials',
  'Office Supplies',
  'Utilities',
  'Repairs & Maintenance',
  'Freight',
  'Cleaning',
];
const LINE_TEXT = [
  'Materials',
  'Monthly service',
  'Parts',
  'Delivery',
  'Labor',
  'Supplies',
  'Rental',
  'Consulting',
];

const day = (base: Date, offset: number) =>
  new Date(base.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
const money = (n: number) => Math.round(n * 100) / 100;

export function seedRealms(
  options: {
    seed?: number;
    now?: Date;
    /** Vendors in each realm, or per realm in the seed's order (the benchmark's; undefined: drawn); default drawn. */
    vendorsPerRealm?: number | readonly (number | undefined)[];
    /** Open bills in each realm (the benchmark's); default drawn, 70 – 109. */
    billsPerRealm?: number;
  } = {},
): Realm[] {
  const rand = prng(options.seed ?? 20261124);
  const now = options.now ?? new Date();
  const stamp = now.toISOString();
  const meta = { CreateTime: stamp, LastUpdatedTime: stamp };
  return COMPANIES.map((c, ci) => {
    const realmId = String(9130357000000 + ci * 1111);
    let id = 1;
    const next = () => String(id++);
    const bankNames = ['Checking', 'Savings', 'Operating Account'].slice(0, 2 + (ci % 2));
    const accounts: QbAccount[] = bankNames.map((name, i) => {
      const balance = money(i === 0 ? 25_000 + rand() * 90_000 : 500 + rand() * 9_000);
      return {
        Id: next(),
        Name: name,
        AccountType: 'Bank',
        AccountSubType: name === 'Savings' ? 'Savings' : 'Checking',
        Classification: 'Asset',
        CurrentBalance: balance,
        CurrentBalanceWithSubAccounts: balance,
        Active: true,
        CurrencyRef: { value: 'USD' },
        SyncToken: '0',
        MetaData: meta,
      };
    });
    // An inactive bank account: the app must leave it out.
    accounts.push({
      ...accounts[0],
      Id: next(),
      Name: 'Old Checking (closed)',
      Active: false,
      CurrentBalance: 0,
      CurrentBalanceWithSubAccounts: 0,
    });
    const ap: QbAccount = {
      ...accounts[0],
      Id: next(),
      Name: 'Accounts Payable (A/P)',
      AccountType: 'Accounts Payable',
      AccountSubType: 'AccountsPayable',
      Classification: 'Liability',
      CurrentBalance: 0,
      CurrentBalanceWithSubAccounts: 0,
    };
    const expenses: QbAccount[] = EXPENSES.map((name) => ({
      ...accounts[0],
      Id: next(),
      Name: name,
      AccountType: 'Expense',
      AccountSubType: 'SuppliesMaterials',
      Classification: 'Expense',
      CurrentBalance: 0,
      CurrentBalanceWithSubAccounts: 0,
    }));
    accounts.push(ap, ...expenses);
    const drawnCount = 24 + Math.floor(rand() * 16);
    const wanted = options.vendorsPerRealm;
    const vendorCount = (typeof wanted === 'number' ? wanted : wanted?.[ci]) ?? drawnCount;
    const vendors: QbVendor[] = Array.from({ length: vendorCount }, (_, vi) => {
      const w1 = VENDOR_WORDS[Math.floor(rand() * VENDOR_WORDS.length)];
      const w2 = VENDOR_WORDS[Math.floor(rand() * VENDOR_WORDS.length)];
      const name = `${w1} ${w2} ${['LLC', 'Inc', 'Co', 'Ltd'][vi % 4]} ${vi + 1}`;
      return {
        Id: next(),
        SyncToken: '0',
        DisplayName: name,
        CompanyName: name,
        // Every eleventh vendor has no contact on file, as real books have.
        ...(vi % 11 === 10
          ? {}
          : {
              PrimaryEmailAddr: {
                Address: `billing${vi + 1}@${w1.toLowerCase()}${w2.toLowerCase()}.example`,
              },
              PrimaryPhone: {
                FreeFormNumber: `(555) 01${String(vi).padStart(2, '0')}-${String(1000 + vi * 7).slice(-4)}`,
              },
            }),
        BillAddr: {
          Line1: `${100 + vi} Main St`,
          City: c.city,
          CountrySubDivisionCode: c.state,
          PostalCode: c.zip,
        },
        Balance: 0,
        Active: vi % 13 !== 12,
        AcctNum: `ACCT-${1000 + vi}`,
        Vendor1099: vi % 5 === 0,
        MetaData: meta,
      };
    });
    const bills: QbBill[] = [];
    const attachables: QbAttachable[] = [];
    const billCount = options.billsPerRealm ?? 70 + Math.floor(rand() * 40);
    // Open bills belong to active vendors: Billflow refuses to pay an inactive one, and tests make a
    // vendor inactive when they need one (POST /__sim/vendors/update).
    const payees = vendors.filter((v) => v.Active);
    for (let b = 0; b < billCount; b++) {
      const vendor = payees[Math.floor(rand() * payees.length)];
      const lines: QbBillLine[] = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, li) => {
        const acct = expenses[Math.floor(rand() * expenses.length)];
        return {
          Id: String(li + 1),
          LineNum: li + 1,
          Amount: money(25 + rand() * 2_400),
          Description: LINE_TEXT[Math.floor(rand() * LINE_TEXT.length)],
          DetailType: 'AccountBasedExpenseLineDetail',
          AccountBasedExpenseLineDetail: { AccountRef: { value: acct.Id, name: acct.Name } },
        };
      });
      const total = money(lines.reduce((s, l) => s + l.Amount, 0));
      const txn = -Math.floor(rand() * 45);
      const bill: QbBill = {
        Id: next(),
        SyncToken: '0',
        DocNumber: `INV-${realmId.slice(-4)}-${1000 + b}`,
        TxnDate: day(now, txn),
        DueDate: day(now, txn + 30),
        VendorRef: { value: vendor.Id, name: vendor.DisplayName },
        APAccountRef: { value: ap.Id, name: ap.Name },
        Line: lines,
        TotalAmt: total,
        Balance: total,
        CurrencyRef: { value: 'USD' },
        LinkedTxn: [],
        MetaData: meta,
      };
      vendor.Balance = money(vendor.Balance + total);
      bills.push(bill);
      if (rand() < 0.85)
        attachables.push({
          Id: `1000000${realmId.slice(-4)}${String(b).padStart(4, '0')}`,
          SyncToken: '0',
          FileName: `${bill.DocNumber}.pdf`,
          ContentType: 'application/pdf',
          Size: 0,
          AttachableRef: [{ EntityRef: { type: 'Bill', value: bill.Id }, IncludeOnSend: false }],
          MetaData: meta,
        });
    }
    const info: QbCompanyInfo = {
      Id: '1',
      CompanyName: c.name,
      LegalName: c.name,
      Country: 'US',
      CompanyAddr: {
        Line1: `${1 + ci * 10} Market St`,
        City: c.city,
        CountrySubDivisionCode: c.state,
        PostalCode: c.zip,
      },
      FiscalYearStartMonth: 'January',
      Email: { Address: `books@${c.name.split(' ')[0].toLowerCase()}.example` },
    };
    return { realmId, info, accounts, vendors, bills, attachables, billPayments: [], nextId: id };
  });
}
