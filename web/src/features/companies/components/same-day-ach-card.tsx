// Same-Day ACH on the company's NACHA settings (ADMIN): on, a payment file made before 2:45 PM New
// York on a banking day is effective that day (unless an entry is above $1,000,000.00); off, the next
// banking day. Saved at once, on record.
import { useState } from 'react';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Label } from '../../../components/ui/label';
import { Switch } from '../../../components/ui/switch';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { SetCompanySameDayAch } from '../api/companies';

export function SameDayAchCard({ companyId, sameDayAch }: { companyId: number; sameDayAch: boolean }) {
  const save = useGqlMutation(SetCompanySameDayAch, 'Failed to save the Same-Day ACH setting');
  const [on, setOn] = useState(sameDayAch);
  const [busy, setBusy] = useState(false);
  async function change(next: boolean) {
    setBusy(true);
    setOn(next);
    try {
      await save({ id: companyId, sameDayAch: next });
      toast.success(next ? 'Same-Day ACH turned on' : 'Same-Day ACH turned off');
    } catch (err) {
      setOn(!next);
      toast.error(err instanceof Error ? err.message : 'Failed to save the Same-Day ACH setting');
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card data-testid="same-day-ach-card">
      <CardHeader>
        <CardTitle as="h2">Same-Day ACH</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-2 text-sm">
        <div className="flex items-center gap-3">
          <Switch
            id="same-day-ach"
            checked={on}
            disabled={busy}
            onCheckedChange={(next) => void change(next)}
            aria-describedby="same-day-ach-hint"
          />
          <Label htmlFor="same-day-ach">Send payments same-day</Label>
        </div>
        <p id="same-day-ach-hint" className="text-muted-foreground">
          {on
            ? 'Files made before 2:45 PM New York on a banking day are effective that day (settling at 5:00 PM); a file with a payment above $1,000,000.00 goes the next banking day. Turn on only if the bank has agreed to Same-Day ACH.'
            : 'Files are effective the next banking day. Turn on only if the bank has agreed to Same-Day ACH.'}
        </p>
      </CardContent>
    </Card>
  );
}
