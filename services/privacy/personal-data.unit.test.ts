// Sealing personal fields inside an event's data, and opening them again (or not, once forgotten).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BlindIndex,
  commitment,
  commitmentSalt,
  openData,
  type PersonalFields,
  sealData,
} from './personal-data.js';

const spec: PersonalFields = { subject: (d) => `user-${d.userId}`, fields: ['email', 'firstName', 'ip'] };
const key = randomBytes(32);

describe('sealing personal fields', () => {
  it('seals only the present, non-null personal fields, in one member, and opens them back', () => {
    const data = { userId: 7, email: 'ann@example.test', firstName: null, role: 'USER' };
    const sealed = sealData('event-1', data, spec, 'user-7', key);
    expect(sealed).toMatchObject({
      userId: 7,
      firstName: null,
      role: 'USER',
      pii: { k: 'user-7', f: ['email'] },
    });
    expect(JSON.stringify(sealed)).not.toContain('ann@example.test');
    expect(openData('event-1', sealed, key)).toEqual({ data, erased: null });
  });

  it('leaves data without personal values as it is', () => {
    const data = { userId: 7, ip: null, at: 'now' };
    expect(sealData('event-2', data, spec, 'user-7', key)).toBe(data);
  });

  it('binds the sealed member to its event: moved to another event, it does not open', () => {
    const sealed = sealData('event-1', { userId: 7, email: 'ann@example.test' }, spec, 'user-7', key);
    expect(() => openData('event-2', sealed, key)).toThrow();
    expect(() => openData('event-1', sealed, randomBytes(32))).toThrow();
  });

  it('gives every sealing a nonce of its own, across refills of the nonce pool', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 2_500; i++) {
      const sealed = sealData(`event-${i}`, { userId: 7, email: `a${i}@b.test` }, spec, 'user-7', key);
      const pii = sealed.pii as { iv: string };
      expect(Buffer.from(pii.iv, 'base64')).toHaveLength(12);
      ivs.add(pii.iv);
      if (i % 500 === 0) expect(openData(`event-${i}`, sealed, key).data.email).toBe(`a${i}@b.test`);
    }
    expect(ivs.size).toBe(2_500);
  });

  it('without the key (forgotten), the fields read as null and are named as erased', () => {
    const sealed = sealData(
      'event-1',
      { userId: 7, email: 'a@b.test', firstName: 'Ann' },
      spec,
      'user-7',
      key,
    );
    expect(openData('event-1', sealed, null)).toEqual({
      data: { userId: 7, email: null, firstName: null },
      erased: ['email', 'firstName'],
    });
  });
});

describe('commitments to sealed fields', () => {
  it('keeps one per sealed field, salted from the key and the event, recomputable from the opened value', () => {
    const data = { userId: 7, email: 'ann@example.test', firstName: 'Ann', ip: null };
    const sealed = sealData('event-1', data, spec, 'user-7', key);
    const pii = sealed.pii as { f: string[]; c: string[] };
    expect(pii.f).toEqual(['email', 'firstName']);
    expect(pii.c).toHaveLength(2);
    for (const c of pii.c) expect(c).toMatch(/^[\w-]{22}$/);
    expect(JSON.stringify(sealed)).not.toContain('ann@example.test');
    const salt = commitmentSalt('event-1', key);
    const opened = openData('event-1', sealed, key).data;
    expect(pii.c).toEqual(pii.f.map((f) => commitment(salt, 'event-1', f, opened[f])));
    expect(pii.c[0]).not.toBe(commitment(salt, 'event-1', 'email', 'bob@example.test'));
    // Unsalted, or salted for another event or key, it is another value: a list of likely
    // addresses cannot be tried against it without the key.
    expect(pii.c[0]).not.toBe(commitment('', 'event-1', 'email', 'ann@example.test'));
    expect(commitmentSalt('event-2', key)).not.toBe(salt);
    expect(commitmentSalt('event-1', randomBytes(32))).not.toBe(salt);
    expect(salt).not.toContain(key.toString('base64url'));
  });

  it('keeps none when asked not to (as members sealed before they were kept)', () => {
    const sealed = sealData('event-1', { userId: 7, email: 'a@b.test' }, spec, 'user-7', key, {
      commit: false,
    });
    expect(sealed.pii).not.toHaveProperty('c');
    expect(openData('event-1', sealed, key).data).toEqual({ userId: 7, email: 'a@b.test' });
  });
});

describe('blind index', () => {
  it('is the same for every way of writing one address, differs per key, and hides the address', () => {
    const secret = randomBytes(32).toString('base64');
    const index = new BlindIndex(BlindIndex.keyFrom(secret));
    const a = index.email('Ann.Lee@Example.TEST');
    expect(index.email('  ann.lee@example.test ')).toBe(a);
    expect(index.email('ann.lee2@example.test')).not.toBe(a);
    expect(
      new BlindIndex(BlindIndex.keyFrom(randomBytes(32).toString('base64'))).email('ann.lee@example.test'),
    ).not.toBe(a);
    expect(a).not.toContain('ann');
  });
});
