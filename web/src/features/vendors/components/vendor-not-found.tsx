// 'Vendor not found' with Back to Vendors.
import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';

export function VendorNotFound() {
  return (
    <Card role="alert">
      <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
        <h2 className="text-lg font-semibold">Vendor not found</h2>
        <p className="text-sm text-muted-foreground">No vendor has this id, or it is no longer kept.</p>
        <Button variant="outline" size="sm" asChild>
          <Link to="/vendors">
            <ArrowLeft aria-hidden="true" />
            Back to Vendors
          </Link>
        </Button>
      </CardContent>
    </Card>
  );
}

/** Whether a load failed because the vendor does not exist (rather than a network or server fault). */
export const isNotFound = (err: unknown, validId: boolean) =>
  !validId || (err instanceof Error && 'status' in err && (err as { status: unknown }).status === 404);
