import { Badge } from '../../../components/ui/badge';

/** Whether the vendor can be paid by ACH. */
export function BankingBadge({ ready }: { ready: boolean }) {
  return ready ? (
    <Badge className="border-transparent bg-green-700 text-white">Ready for ACH</Badge>
  ) : (
    <Badge variant="destructive">Missing Banking Info</Badge>
  );
}

export function VendorStatusBadge({ active }: { active: boolean }) {
  return active ? <Badge variant="secondary">Active</Badge> : <Badge variant="outline">Inactive</Badge>;
}
