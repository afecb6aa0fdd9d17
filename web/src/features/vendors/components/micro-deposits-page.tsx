// /vendor-banking/micro-deposits?token: the page a micro-deposit e-mail opens. The vendor enters the
// two small deposits as the statement shows them; the right ones confirm the new account, a wrong
// pair takes a try (the tries left are shown), and the last locks the check.
import { type FormEvent, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import {
  enterMicroDeposits,
  type MicroDepositEntryResult,
  type MicroDepositLinkView,
  readMicroDepositLink,
} from '../api/vendor-links';
import { ChangeFacts, Done, LinkFrame, messageOf, Problem } from './link-frame';

export function MicroDepositsPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [view, setView] = useState<MicroDepositLinkView | null>(null);
  const [error, setError] = useState<string | null>(token ? null : 'This link is not complete');
  const [amounts, setAmounts] = useState<[string, string]>(['', '']);
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<MicroDepositEntryResult | null>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    readMicroDepositLink(token).then(
      (v) => live && setView(v),
      (err) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [token]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSending(true);
    setError(null);
    try {
      setResult(await enterMicroDeposits(token, amounts));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setSending(false);
    }
  };

  const open = view?.canAct && result?.outcome !== 'confirmed' && result?.outcome !== 'locked';
  const triesLeft = result ? result.triesLeft : (view?.triesLeft ?? 0);
  return (
    <LinkFrame title="Confirm your new bank account">
      {view ? <ChangeFacts change={view} /> : null}
      {!view && !error ? <p className="text-muted-foreground">Loading…</p> : null}
      {result?.outcome === 'confirmed' ? <Done>{result.message}</Done> : null}
      {result && result.outcome !== 'confirmed' ? <Problem>{result.message}</Problem> : null}
      {error ? <Problem>{error}</Problem> : null}
      {view && !view.canAct && view.note ? <p>{view.note}</p> : null}
      {open ? (
        <form className="grid gap-3" onSubmit={submit}>
          <p>
            {view.companyName} sent two deposits under $1.00 to the new account (from {view.effectiveDate}).
            Enter both as your statement shows them, in any order.
          </p>
          {[0, 1].map((i) => (
            <div key={i} className="grid gap-1.5">
              <Label htmlFor={`amount-${i}`}>{i === 0 ? 'First amount' : 'Second amount'}</Label>
              <Input
                id={`amount-${i}`}
                inputMode="decimal"
                placeholder="0.00"
                autoComplete="off"
                value={amounts[i]}
                onChange={(e) =>
                  setAmounts((a) => (i === 0 ? [e.target.value, a[1]] : [a[0], e.target.value]))
                }
              />
            </div>
          ))}
          <p className="text-muted-foreground" data-testid="tries-left">
            {triesLeft} {triesLeft === 1 ? 'try' : 'tries'} left
          </p>
          <Button type="submit" disabled={sending || !amounts[0] || !amounts[1]}>
            {sending ? 'Checking…' : 'Confirm the amounts'}
          </Button>
        </form>
      ) : null}
    </LinkFrame>
  );
}
