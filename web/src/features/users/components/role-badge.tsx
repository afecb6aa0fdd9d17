import { Badge } from '../../../components/ui/badge';
import type { Role } from '../api/users';

const VARIANT: Record<Role, 'destructive' | 'default' | 'secondary' | 'outline'> = {
  ADMIN: 'destructive',
  MODERATOR: 'default',
  USER: 'secondary',
  GUEST: 'outline',
};

export function RoleBadge({ role }: { role: Role }) {
  return (
    <Badge variant={VARIANT[role] ?? 'outline'} data-testid="role-badge">
      {role}
    </Badge>
  );
}

export function StatusBadge({ active }: { active: boolean }) {
  return (
    <Badge variant={active ? 'default' : 'outline'} data-testid="status-badge">
      {active ? 'Active' : 'Inactive'}
    </Badge>
  );
}
