// In tests, a REST answer is held to the zod answer its route documents: one off its document is
// refused with the difference, one that matches goes out as the same JSON.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AnswerDriftError, checkedJson } from './openapi.js';

const documented = z.object({ success: z.literal(true), data: z.array(z.object({ id: z.number() })) });
const route = (schema: unknown) =>
  checkedJson({ schema, url: '/api/things', method: 'GET', httpStatus: '200' });

describe('the answer check of tests', () => {
  it('sends an answer that matches its document as plain JSON', () => {
    const answer = { success: true, data: [{ id: 1 }] };
    expect(route(documented)(answer)).toBe(JSON.stringify(answer));
  });

  it('refuses an answer off its document, naming the route and the field', () => {
    const send = route(documented);
    expect(() => send({ success: true, data: { data: [{ id: 1 }], total: 1 } })).toThrow(AnswerDriftError);
    expect(() => send({ success: true, data: [{ id: 'one' }] })).toThrow(
      /^GET \/api\/things answered 200 off its document: data\.0\.id: /,
    );
  });

  it('reads a document given per content type, and checks the JSON as sent (dates as text)', () => {
    const send = route({ content: { 'application/json': { schema: z.object({ at: z.iso.datetime() }) } } });
    expect(send({ at: new Date('2026-01-01T00:00:00.000Z') })).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
    expect(() => send({ at: 'yesterday' })).toThrow(AnswerDriftError);
  });

  it('sends an answer with no zod document as it is', () => {
    expect(route({ type: 'object' })({ anything: 1 })).toBe('{"anything":1}');
  });
});
