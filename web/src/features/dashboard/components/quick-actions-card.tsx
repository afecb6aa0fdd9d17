// Quick Actions: add a company, create a user account, review approvals.
import { CheckSquare, Plus, UserPlus } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';

export const QUICK_ACTIONS = [
  { to: '/companies/new', label: 'Add New Company', icon: Plus },
  { to: '/users/new', label: 'Create User Account', icon: UserPlus },
  { to: '/approvals', label: 'Review Approvals', icon: CheckSquare },
] as const;

export function QuickActionsCard() {
  return (
    <Card role="group" aria-labelledby="quick-actions-title" data-testid="quick-actions">
      <CardHeader>
        <CardTitle as="h2" id="quick-actions-title">
          Quick Actions
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-2">
        {QUICK_ACTIONS.map(({ to, label, icon: Icon }) => (
          <Button key={to} asChild variant="outline" className="justify-start">
            <Link to={to}>
              <Icon aria-hidden="true" />
              {label}
            </Link>
          </Button>
        ))}
      </CardContent>
    </Card>
  );
}
