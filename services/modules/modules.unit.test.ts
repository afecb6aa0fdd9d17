// The module registry: what every module declares is registered once, clashes are refused at load,
// nothing a module imports loops back to the registry, and every command contract caps its strings.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  eventRegistry,
  FORGETTING_EVENTS,
  registerEvents,
  schemaVersionOf,
} from '../../schema/shared/events.js';
import { can, type Permission, permissionTable, registerPermissions } from '../auth/permissions.js';
import {
  commandContracts,
  jobHandlers,
  modules,
  processManagers,
  projections,
  routeGroups,
} from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

describe('the modules', () => {
  it('register every event type, forgetting event and permission they declare', () => {
    for (const m of modules) {
      for (const [type, def] of Object.entries(m.events ?? {})) {
        expect(eventRegistry[type], type).toBe(def);
        expect(schemaVersionOf(type)).toBe(def.version);
      }
      for (const type of m.forgettingEvents ?? []) expect(FORGETTING_EVENTS.has(type), type).toBe(true);
      for (const [name, roles] of Object.entries(m.permissions ?? {}))
        expect(permissionTable().get(name)).toBe(roles);
    }
    expect(FORGETTING_EVENTS.has('UserForgotten')).toBe(true);
    expect(can({ id: 1, role: 'ADMIN', email: 'a@b.c' }, 'users.read')).toBe(true);
    expect(can({ id: 1, role: 'USER', email: 'a@b.c' }, 'users.read')).toBe(false);
  });

  it('derive the registries the roles start from', () => {
    expect(projections.map((p) => p.name).sort()).toEqual([
      'activity',
      'approval_policies',
      'approvals',
      'banking_controls',
      'companies',
      'managers',
      'payment_entries',
      'users',
      'vendor_banking_changes',
      'vendor_banking_verifications',
      'vendor_syncs',
      'vendors',
    ]);
    expect(processManagers.map((p) => p.name)).toContain('users');
    expect(Object.keys(jobHandlers)).toContain('users');
    // auth, users, managers, companies, quickbooks, the QuickBooks webhook, vendors, the vendors'
    // checks and links, approvals, the approvals' payment calls, e-mail links and time travel, the
    // published anchors, the bank's inbound files, dashboard, health, operations
    expect(routeGroups).toHaveLength(17);
    expect(Object.keys(jobHandlers).sort()).toEqual([
      'approvals',
      'bank',
      'mail',
      'payment-mail',
      'payments',
      'quickbooks',
      'remittance',
      'users',
      'vendor-mail',
      'vendors',
    ]);
  });

  it('refuse an event type or a permission declared twice, and an unknown permission', () => {
    const clash = { UserRegistered: { version: 1, schema: z.object({}) } };
    expect(() => registerEvents(clash)).toThrow(/UserRegistered is registered twice/);
    expect(() =>
      registerEvents({ SomethingForgotten: { version: 1, schema: z.object({}) } }, ['Nope']),
    ).toThrow(/Forgetting event Nope/);
    delete eventRegistry.SomethingForgotten;
    expect(() => registerPermissions({ 'users.read': ['GUEST'] })).toThrow(/users.read is declared twice/);
    expect(() => can({ id: 1, role: 'ADMIN', email: 'a@b.c' }, 'users.raed' as Permission)).toThrow(
      /Unknown permission users.raed/,
    );
  });

  it('import nothing that imports the registry back (it is computed while it loads)', () => {
    const registry = path.join(here, 'index.ts');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string, via: string[]) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      // Type-only imports are erased: they cannot loop at run time.
      const specs = [
        ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+'(\.[^']+)'/gm),
        ...source.matchAll(/^\s*import\s+'(\.[^']+)'/gm),
      ].map((m) => m[1]);
      for (const spec of specs) {
        const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
        if (target === registry)
          offenders.push([...via, file].map((f) => path.relative(root, f)).join(' → '));
        else visit(target, [...via, file]);
      }
    };
    for (const m of modules) visit(path.join(here, `${m.name}.ts`), []);
    expect(seen.size).toBeGreaterThan(20);
    expect(offenders).toEqual([]);
  });

  it('cap every string of every command contract (input rules)', () => {
    expect(commandContracts.length).toBeGreaterThan(5);
    const uncapped: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.type === 'string' && n.maxLength === undefined && !n.enum && n.const === undefined)
        uncapped.push(at);
      for (const [k, v] of Object.entries(n)) {
        if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, `${at}.${k}[${i}]`);
        else if (v && typeof v === 'object') walk(v, `${at}.${k}`);
      }
    };
    for (const c of commandContracts) {
      if (!(c.schema instanceof z.ZodType)) continue;
      walk(z.toJSONSchema(c.schema, { io: 'input', unrepresentable: 'any' }), `${c.module}.${c.name}`);
    }
    expect(uncapped).toEqual([]);
  });
});
