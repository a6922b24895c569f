// The rules at the edges of an answer, on fixed inputs (no clock, no server): every answer's headers (headers.ts),
// the exact framing of each error class (expected.ts), the form of every timestamp (agreement.ts), what a write
// computes from the state before it (write-again.ts), and the persona table (personas.ts).
import { describe, expect, it } from 'vitest';
import { contentTypes, texts } from '../../spec/lib/messages.ts';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { agreementRules } from '../model/agreement.ts';
import type { ApiResponse } from '../io/client.ts';
import { PERSONAS } from '../io/env.ts';
import { answers, compare, one, success } from '../model/expected.ts';
import { headerRules, RequestIds } from '../model/headers.ts';
import { rightsOf } from '../model/personas.ts';
import { operationModel } from '../model/profiles.ts';
import { nextCheckIn } from '../model/write-again.ts';
import { writeAgainRules } from '../model/state-rules.ts';

const DAY = 86_400_000;
/** Wednesday 2026-01-07, 00:00 UTC. */
const WEDNESDAY = Date.UTC(2026, 0, 7);
const codes = (violations: ReadonlyArray<{ code: string }>): string[] => violations.map((v) => v.code);

const response = (status: number, headers: Record<string, string>, text: string): ApiResponse => ({
  status,
  headers,
  text,
  bytes: Buffer.from(text),
  durationMs: 0,
});

describe('headers on every answer', () => {
  const good = { 'cache-control': texts.cacheControl, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };

  it('passes production’s headers, and a request id seen twice is a violation naming the earlier answer', () => {
    const ids = new RequestIds();
    expect(headerRules(401, good, ids, 'POST /a')).toEqual([]);
    const again = headerRules(200, good, ids, 'POST /b');
    expect(codes(again)).toEqual(['header.request-id-reused']);
    expect(again[0]?.message).toContain('(401 to POST /a)');
  });

  it('lets a client that sends its own x-request-id get it back every time (Plug.RequestId keeps a valid one)', () => {
    const ids = new RequestIds();
    const own = 'client-chosen-id-0001';
    expect(headerRules(401, { ...good, 'x-request-id': own }, ids, 'POST /a', own)).toEqual([]);
    expect(headerRules(401, { ...good, 'x-request-id': own }, ids, 'POST /a', own)).toEqual([]);
  });

  it('forgets the oldest id beyond its capacity, so its memory stays bounded', () => {
    const ids = new RequestIds(2);
    for (const id of ['a', 'b', 'c']) expect(ids.seen(id, id)).toBeUndefined();
    expect(ids.seen('a', 'again')).toBeUndefined();
    expect(ids.seen('c', 'again')).toBe('c');
  });

  it('flags an error a shared cache may store, a missing Cache-Control, a WWW-Authenticate challenge and a repeated header', () => {
    const fresh = (): RequestIds => new RequestIds();
    expect(codes(headerRules(401, { ...good, 'cache-control': 'public, max-age=60' }, fresh(), 'x'))).toEqual(['header.cacheable']);
    expect(codes(headerRules(404, { 'x-request-id': 'F_uAnbzq1dCbYgIAAAJC' }, fresh(), 'x'))).toEqual(['header.cacheable']);
    expect(codes(headerRules(401, { ...good, 'www-authenticate': 'Bearer' }, fresh(), 'x'))).toEqual(['header.challenge']);
    expect(codes(headerRules(400, { ...good, 'cache-control': `${texts.cacheControl}, ${texts.cacheControl}` }, fresh(), 'x'))).toEqual(['header.repeated']);
    expect(codes(headerRules(200, { ...good, 'content-type': `${contentTypes.json}, ${contentTypes.json}` }, fresh(), 'x'))).toEqual(['header.repeated']);
  });
});

describe('the exact framing of each error class', () => {
  const a = answers(operationModel('resumeProject'));
  const framed = { 'cache-control': texts.cacheControl, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' };
  const notFound = production.notFound;

  it('holds a JSON 404 after the token to application/json; charset=utf-8, and the same bytes before the token to no Content-Type', () => {
    expect(compare(response(404, { ...framed, 'content-type': contentTypes.json }, notFound), one(a.notFound))).toEqual([]);
    expect(codes(compare(response(404, framed, notFound), one(a.notFound)))).toEqual(['media-type.exact']);
    expect(codes(compare(response(404, { ...framed, 'content-type': 'application/json' }, notFound), one(a.notFound)))).toEqual(['media-type.exact']);
    expect(compare(response(404, framed, notFound), one(a.undecodable))).toEqual([]);
    expect(codes(compare(response(404, { ...framed, 'content-type': contentTypes.json }, notFound), one(a.undecodable)))).toEqual(['media-type.exact']);
  });

  it('expects an x-request-id wherever production’s plugs ran, and none of the endpoint’s own error views', () => {
    expect(codes(compare(response(401, { 'cache-control': texts.cacheControl }, texts.unauthorized), one(a.unauthorized)))).toEqual([
      'header.request-id-missing',
    ]);
    expect(
      compare(response(400, { 'cache-control': texts.cacheControl, 'content-type': contentTypes.html }, production.invalidJsonHtml), one(a.invalidJsonHtml)),
    ).toEqual([]);
  });

  it('holds a 200 to the JSON type with its charset', () => {
    expect(codes(compare(response(200, { ...framed, 'content-type': 'application/json' }, '{}'), one(success)))).toEqual(['media-type.exact']);
  });
});

describe('timestamps in production’s form, at any depth', () => {
  const at = (value: string, field = 'updated_at'): string[] =>
    codes(agreementRules({ goal: { __typename: 'goal_x', nested: [{ [field]: value }] } }, WEDNESDAY)).filter((c) => c === 'agreement.timestamp');

  it('accepts UTC to the second, and microseconds only where production stores them', () => {
    expect(at('2026-01-07T10:11:12Z')).toEqual([]);
    expect(at('2026-01-07T10:11:12.123456Z', 'archived_at')).toEqual([]);
  });

  it('rejects an offset, milliseconds, and a fraction where production writes whole seconds', () => {
    expect(at('2026-01-07T10:11:12+00:00')).toEqual(['agreement.timestamp']);
    expect(at('2026-01-07T10:11:12.000Z')).toEqual(['agreement.timestamp']);
    expect(at('2026-01-07T10:11:12.123Z', 'archived_at')).toEqual(['agreement.timestamp']);
  });
});

describe('what a write computes from the state before it', () => {
  const iso = (t: number | undefined): string | undefined => (t === undefined ? undefined : new Date(t).toISOString());

  it('moves a due check-in to the coming Friday, a check-in due tomorrow to the Friday after it, and keeps a later one (time.ex)', () => {
    expect(iso(nextCheckIn('2026-01-02T00:00:00Z', WEDNESDAY))).toBe('2026-01-09T00:00:00.000Z');
    expect(iso(nextCheckIn(null, WEDNESDAY))).toBe('2026-01-09T00:00:00.000Z');
    expect(iso(nextCheckIn('2026-01-08T00:00:00Z', WEDNESDAY))).toBe('2026-01-09T00:00:00.000Z');
    expect(iso(nextCheckIn('2026-01-09T00:00:00Z', WEDNESDAY))).toBe('2026-01-09T00:00:00.000Z');
    expect(iso(nextCheckIn('2026-01-07T00:00:00Z', WEDNESDAY + 2 * DAY))).toBe('2026-01-16T00:00:00.000Z');
    expect(iso(nextCheckIn('2026-01-01T00:00:00Z', WEDNESDAY + 3 * DAY))).toBe('2026-01-16T00:00:00.000Z');
    expect(iso(nextCheckIn('2026-01-01T00:00:00Z', WEDNESDAY + 4 * DAY))).toBe('2026-01-16T00:00:00.000Z');
  });

  it('flags a resume whose check-in is a week later than the rule gives', () => {
    const headers = { date: new Date(WEDNESDAY + 3_600_000).toUTCString() };
    const previous = { next_check_in_scheduled_at: '2026-01-02T00:00:00Z' };
    expect(writeAgainRules('resumeProject', previous, { project: { next_check_in_scheduled_at: '2026-01-09T00:00:00Z' } }, headers)).toEqual([]);
    expect(codes(writeAgainRules('resumeProject', previous, { project: { next_check_in_scheduled_at: '2026-01-16T00:00:00Z' } }, headers))).toEqual([
      'write.check-in',
    ]);
  });

  it('flags a close again that keeps the first close’s time or retrospective, or answers an acknowledged one', () => {
    const headers = { date: new Date(WEDNESDAY + 3_600_000).toUTCString() };
    const previous = { closed_at: '2026-01-07T00:30:00Z', retrospective: { id: 'first', acknowledged_at: null } };
    const fresh = { closed_at: '2026-01-07T01:00:00Z', retrospective: { id: 'second', acknowledged_at: null } };
    // The answer before this close was sent at 00:45, after the first close's 00:30: this close's time must be later.
    const sentAt = Date.parse('2026-01-07T00:45:00Z');
    expect(writeAgainRules('closeGoal', previous, { goal: fresh }, headers, sentAt)).toEqual([]);
    expect(codes(writeAgainRules('closeGoal', previous, { goal: { ...fresh, closed_at: previous.closed_at } }, headers, sentAt))).toEqual([
      'write.close-again',
    ]);
    // Within the first close's second (the answer before was sent in it), or with no Date known, the time may stay;
    // this answer's own later Date proves nothing (a server may write in one second and answer in the next).
    expect(writeAgainRules('closeGoal', previous, { goal: { ...fresh, closed_at: previous.closed_at } }, headers, Date.parse(previous.closed_at))).toEqual([]);
    expect(writeAgainRules('closeGoal', previous, { goal: { ...fresh, closed_at: previous.closed_at } }, headers)).toEqual([]);
    expect(codes(writeAgainRules('closeGoal', previous, { goal: { ...fresh, retrospective: { id: 'first', acknowledged_at: null } } }, headers))).toEqual([
      'write.close-again',
    ]);
    expect(
      codes(writeAgainRules('closeGoal', previous, { goal: { ...fresh, retrospective: { id: 'second', acknowledged_at: '2026-01-07T01:00:00Z' } } }, headers)),
    ).toEqual(['write.close-again']);
    // The first close of an open goal has nothing to keep.
    expect(writeAgainRules('closeGoal', { closed_at: null }, { goal: { ...fresh, closed_at: previous.closed_at } }, headers)).toEqual([]);
  });
});

describe('the persona table', () => {
  it('gives every persona of the fixtures its rights, and exactly one read-only and one refused token', () => {
    for (const persona of PERSONAS) expect(rightsOf(persona)).toBeDefined();
    expect(PERSONAS.filter((p) => rightsOf(p).token === 'read-only')).toEqual(['read_only']);
    expect(PERSONAS.filter((p) => rightsOf(p).token === 'refused')).toEqual(['suspended']);
    expect(rightsOf('comment_only')).toEqual({ token: 'valid', records: 'view' });
  });
});

describe('nested records as the caller sees them, at any depth', () => {
  const nested = (project: Record<string, unknown>): string[] =>
    codes(agreementRules({ goal: { __typename: 'goal_x', projects: [{ __typename: 'project_x', ...project }] } }, WEDNESDAY)).filter((c) =>
      /^agreement\.(permissions|privacy|milestone-order)$/.test(c),
    );
  const levels = { __typename: 'access_levels', public: 0, company: 0, space: 70 };
  const ladder = { can_view: true, can_comment: true, can_edit: true, has_full_access: false };

  it('accepts permissions of one access level, privacy from the access levels, and milestones in their ordering state', () => {
    expect(
      nested({
        permissions: ladder,
        access_levels: levels,
        privacy: 'confidential',
        milestones_ordering_state: ['b-BBBBBBBBBBBBBBBBBBBBBB', 'a-AAAAAAAAAAAAAAAAAAAAAA'],
        milestones: [{ id: 'b-BBBBBBBBBBBBBBBBBBBBBB' }, { id: 'a-AAAAAAAAAAAAAAAAAAAAAA' }],
      }),
    ).toEqual([]);
    expect(nested({ access_levels: { ...levels, company: 10 }, privacy: 'internal' })).toEqual([]);
    expect(nested({ access_levels: { ...levels, public: 10 }, privacy: 'public' })).toEqual([]);
    expect(nested({ access_levels: { ...levels, space: 0 }, privacy: 'secret' })).toEqual([]);
  });

  it('flags a flag without the ones below it, a privacy the access levels do not give, and milestones out of order', () => {
    expect(nested({ permissions: { ...ladder, can_comment: false } })).toEqual(['agreement.permissions']);
    expect(nested({ access_levels: levels, privacy: 'public' })).toEqual(['agreement.privacy']);
    expect(
      nested({
        milestones_ordering_state: ['a-AAAAAAAAAAAAAAAAAAAAAA', 'b-BBBBBBBBBBBBBBBBBBBBBB'],
        milestones: [{ id: 'b-BBBBBBBBBBBBBBBBBBBBBB' }, { id: 'a-AAAAAAAAAAAAAAAAAAAAAA' }],
      }),
    ).toEqual(['agreement.milestone-order']);
  });
});
