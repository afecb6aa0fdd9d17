// /vendor-banking/not-me?token: the page a change notice's "This was not me" opens. It shows the
// change (tails only) and acts only when its button is pressed: the change is stopped and the
// company's administrators are alerted.
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { type NotMeResult, pressNotMe, readNotMeLink, type VendorLinkChange } from '../api/vendor-links';
import { ChangeFacts, Done, LinkFrame, messageOf, Problem } from './link-frame';

export function NotMePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [change, setChange] = useState<VendorLinkChange | null>(null);
  const [error, setError] = useState<string | null>(token ? null : 'This link is not complete');
  const [pressing, setPressing] = useState(false);
  const [result, setResult] = useState<NotMeResult | null>(null);
  useEffect(() => {
    if (!token) return;
    let live = true;
    readNotMeLink(token).then(
      (c) => live && setChange(c),
      (err) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
    };
  }, [token]);

  const press = async () => {
    setPressing(true);
    setError(null);
    try {
      setResult(await pressNotMe(token));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setPressing(false);
    }
  };

  return (
    <LinkFrame title="A change of your bank details">
      {change ? <ChangeFacts change={change} /> : null}
      {!change && !error ? <p className="text-muted-foreground">Loading…</p> : null}
      {result ? <Done>{result.message}</Done> : null}
      {error ? <Problem>{error}</Problem> : null}
      {change && !result && !change.canAct && change.note ? <p>{change.note}</p> : null}
      {change?.canAct && !result ? (
        <>
          <p>
            If you did not ask for this change, press the button: it is stopped, no payment goes to the new
            account, and {change.companyName}’s administrators are alerted. If you did, close this page.
          </p>
          <Button variant="destructive" onClick={press} disabled={pressing}>
            {pressing ? 'Stopping the change…' : 'This was not me: stop this change'}
          </Button>
        </>
      ) : null}
    </LinkFrame>
  );
}
