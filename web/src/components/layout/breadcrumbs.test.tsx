import { describe, expect, it } from 'vitest';
import { buildBreadcrumbs } from './breadcrumbs';

describe('buildBreadcrumbs', () => {
  it('starts at Home (/dashboard) and adds one crumb per segment', () => {
    expect(buildBreadcrumbs('/companies/12/edit')).toEqual([
      { label: 'Home', to: '/dashboard' },
      { label: 'Companies', to: '/companies' },
      { label: '12', to: '/companies/12' },
      { label: 'Edit', to: '/companies/12/edit' },
    ]);
    expect(buildBreadcrumbs('/vendors/7/edit-banking').map((c) => c.label)).toEqual([
      'Home',
      'Vendors',
      '7',
      'Edit Banking',
    ]);
    expect(buildBreadcrumbs('/users').map((c) => c.label)).toEqual(['Home', 'Users']);
  });
  it('shortens long ids', () => {
    expect(buildBreadcrumbs('/approvals/3f2a9c1e-1111-2222-3333-444455556666')[2].label).toBe('3f2a9c1e…');
  });
});
