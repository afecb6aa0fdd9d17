// The company's approval policy (ADMIN): the creator may not approve (on by
// default), an amount above which a second, different approver must approve, and whether only the
// staff assigned to the company see and act on its approvals (on by default).
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { Checkbox } from '../../../components/ui/checkbox';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { ApprovalPolicyQuery, SetApprovalPolicy } from '../api/approvals';

export function ApprovalPolicyCard({ companyId }: { companyId: string }) {
  const read = useGqlQuery(
    ApprovalPolicyQuery,
    { companyId: Number(companyId) },
    { fallback: 'Failed to fetch the approval policy' },
  );
  const policy = { data: read.data?.approvalPolicy, error: read.error };
  const savePolicy = useGqlMutation(SetApprovalPolicy, 'Failed to save the approval policy');
  const [creatorMayNotApprove, setCreator] = useState(true);
  const [assignedStaffOnly, setAssignedOnly] = useState(true);
  const [threshold, setThreshold] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!policy.data) return;
    setCreator(policy.data.creatorMayNotApprove);
    setAssignedOnly(policy.data.assignedStaffOnly);
    setThreshold(
      policy.data.secondApprovalThreshold === null ? '' : String(policy.data.secondApprovalThreshold),
    );
  }, [policy.data]);

  async function save() {
    const trimmed = threshold.trim();
    const amount = trimmed === '' ? null : Number(trimmed);
    if (amount !== null && (!Number.isFinite(amount) || amount < 0)) {
      setError('Enter an amount of 0 or more, or leave it empty for never');
      return;
    }
    setError(null);
    setSaving(true);
    try {
      // The saved policy comes back through the cache (the write re-reads approvalPolicy).
      await savePolicy({
        companyId: Number(companyId),
        input: { creatorMayNotApprove, secondApprovalThreshold: amount, assignedStaffOnly },
      });
      toast.success('Approval policy saved');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to save the approval policy');
    } finally {
      setSaving(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Approval Policy</CardTitle>
        <CardDescription>
          Segregation of duties and who works on this company’s approvals (admins only).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {policy.error && !policy.data ? (
          <p role="alert" className="text-sm text-destructive">
            {policy.error.message}
          </p>
        ) : !policy.data ? (
          // Not a guessed policy while it loads: the boxes show the company's own values or nothing.
          <p role="status" className="text-sm text-muted-foreground">
            Loading the policy…
          </p>
        ) : (
          <>
            <label className="flex items-center gap-2 text-sm" htmlFor="policy-creator">
              <Checkbox
                id="policy-creator"
                checked={creatorMayNotApprove}
                onChange={(e) => setCreator(e.target.checked)}
              />
              The creator of an approval may not approve it
            </label>
            <label className="flex items-center gap-2 text-sm" htmlFor="policy-assigned-only">
              <Checkbox
                id="policy-assigned-only"
                checked={assignedStaffOnly}
                onChange={(e) => setAssignedOnly(e.target.checked)}
              />
              Only staff assigned to this company (processor, approver, accountant, manager) see and act on
              its approvals
            </label>
            <div className="grid gap-2">
              <Label htmlFor="policy-threshold">Second approver above (USD)</Label>
              <Input
                id="policy-threshold"
                inputMode="decimal"
                placeholder="Never"
                value={threshold}
                onChange={(e) => setThreshold(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? 'policy-threshold-error' : 'policy-threshold-hint'}
              />
              {error ? (
                <p id="policy-threshold-error" className="text-sm text-destructive">
                  {error}
                </p>
              ) : (
                <p id="policy-threshold-hint" className="text-xs text-muted-foreground">
                  Above this total a second, different approver must approve. Empty: never.
                </p>
              )}
            </div>
            <div>
              <Button onClick={save} disabled={saving}>
                {saving ? 'Saving…' : 'Save Policy'}
              </Button>
            </div>
          </>
        )}
      </CardContent>
    </Card>
  );
}
