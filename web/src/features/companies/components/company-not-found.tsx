// 'Company Not Found' with the error's message.
import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';

export function CompanyNotFound({ message }: { message?: string }) {
  return (
    <Card role="alert">
      <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
        <h2 className="text-lg font-semibold">Company Not Found</h2>
        <p className="text-sm text-muted-foreground">
          {message || 'The requested company could not be found.'}
        </p>
        <Button variant="outline" size="sm" asChild>
          <Link to="/companies">
            <ArrowLeft aria-hidden="true" />
            Back to Companies
          </Link>
        </Button>
      </CardContent>
    </Card>
  );
}
