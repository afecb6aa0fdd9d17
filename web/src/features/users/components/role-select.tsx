// The role picker of the user form and the role dialog: the four roles, labelled for assistive tech.
import type { ControlProps } from '../../../components/ui/form-field';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import type { Role } from '../api/users';
import { USER_ROLES } from '../utils/user-rules';

export function RoleSelect({
  id,
  label,
  value,
  onChange,
  control,
}: {
  id: string;
  label: string;
  value: Role;
  onChange: (role: Role) => void;
  /** The aria attributes of a FormField around it. */
  control?: ControlProps;
}) {
  return (
    <Select value={value} onValueChange={(v) => onChange(v as Role)}>
      <SelectTrigger {...control} id={id} aria-label={label}>
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        {USER_ROLES.map((r) => (
          <SelectItem key={r} value={r}>
            {r}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}
