// The declared commands (services/<module>/endpoints.ts): each names a registered permission (or is
// public), a spec path under /api with the parameters its documentation lists, and GraphQL types the
// gateway can read; the type names parse as the printed schema writes them.
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { permissionTable } from '../auth/permissions.js';
import { parseTypeName } from '../gateway/graphql/command-mutations.js';
import { unreplayedOf } from '../gateway/idempotency.js';
import { commandEndpoints, graphqlInputs } from './index.js';

describe('the declared commands', () => {
  it('are every module’s, each with a registered permission or public', () => {
    expect(commandEndpoints.length).toBeGreaterThan(50);
    const table = permissionTable();
    for (const e of commandEndpoints)
      expect(e.permission === 'public' || table.has(e.permission), `${e.name}: ${e.permission}`).toBe(true);
    // Public only where no caller can be asked for: signing in, a refresh, signing out, and the
    // presses of an e-mail link (its token is the credential).
    expect(
      commandEndpoints
        .filter((e) => e.permission === 'public')
        .map((e) => e.name)
        .sort(),
    ).toEqual([
      'EnterMicroDeposits',
      'MarkBankUploaded',
      'MarkPaymentCompleted',
      'PressNotMe',
      'RefreshTokens',
      'SignIn',
      'SignOut',
    ]);
  });

  it('say which answers an Idempotency-Key never replays: the credential exchanges', () => {
    const never = unreplayedOf(commandEndpoints);
    expect([...never.routes].sort()).toEqual(['POST /api/auth/login', 'POST /api/auth/refresh']);
    expect([...never.mutations].sort()).toEqual(['login', 'refreshTokens']);
  });

  it('keep the spec’s /api paths, their parameters documented', () => {
    for (const e of commandEndpoints) {
      expect(e.rest.path, e.name).toMatch(/^\/api\/[a-z0-9/:_-]+$/i);
      const inPath = [...e.rest.path.matchAll(/:(\w+)/g)].map((m) => m[1]).sort();
      const documented = e.rest.doc.params
        ? Object.keys((e.rest.doc.params as z.ZodObject).shape).sort()
        : [];
      expect(documented, `${e.name} ${e.rest.path}`).toEqual(inPath);
      expect(e.scope.length, e.name).toBeGreaterThan(5);
    }
  });

  it('name GraphQL types as the printed schema writes them', () => {
    for (const e of commandEndpoints) {
      if (!e.graphql) continue;
      expect(() => parseTypeName(e.graphql?.returns ?? ''), e.name).not.toThrow();
      for (const arg of Object.values(e.graphql.args))
        expect(() => parseTypeName(typeof arg === 'string' ? arg : arg.type), e.name).not.toThrow();
    }
    for (const input of graphqlInputs)
      for (const field of Object.values(input.fields))
        expect(() => parseTypeName(typeof field === 'string' ? field : field.type), input.name).not.toThrow();
  });
});

describe('GraphQL type names', () => {
  it('parse into the name, whether required, and a list with its items', () => {
    expect(parseTypeName('String!')).toEqual({ name: 'String', required: true, list: null });
    expect(parseTypeName('Int')).toEqual({ name: 'Int', required: false, list: null });
    expect(parseTypeName('[String!]!')).toEqual({ name: 'String', required: true, list: { items: true } });
    expect(parseTypeName('[Approval]')).toEqual({
      name: 'Approval',
      required: false,
      list: { items: false },
    });
  });

  it('refuse what is not one', () => {
    for (const bad of ['', 'String!!', '[[String]]', 'a b', '[String'])
      expect(() => parseTypeName(bad), bad).toThrow(/Not a GraphQL type name/);
  });
});
