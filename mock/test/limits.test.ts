// What hostile input cannot make the mock keep or say: memory bounded in bytes per session and per process
// (however large or oddly shaped the documents), production's own limit on `success`, the request journal's paths, a
// failing control endpoint answered as the mock's JSON (never a framework's page), and a byte-order mark read as the
// real service's JSON parser reads it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { isObject, listOperations, responseSchemaPointer } from '../../spec/lib/openapi.ts';
import { createSchemaValidator, formatErrors } from '../../spec/lib/ajv.ts';
import * as errors from '../src/answers/errors.ts';
import { JOURNAL_PATH_LENGTH } from '../src/storage/sessions.ts';
import { MAX_JSON_TOKENS } from '../src/core/transport.ts';
import { MAX_SUCCESS_LENGTH } from '../src/operations/closeGoal.ts';
import { CLOSE, RESUME, doc, startMock, type RunningMock } from './http.ts';

const KiB = 1024;

/** A ProseMirror document whose one text node is `size` characters long (JSON about as long). */
const largeDoc = (size: number, fill = 'x'): string => doc(fill.repeat(size));
/** A document that is small as JSON text and large as the objects JSON.parse builds: `count` empty paragraphs. */
const manyNodes = (count: number): string => JSON.stringify({ type: 'doc', content: Array.from({ length: count }, () => ({})) });

type StateRows = { projects: Array<{ uuid: string; stored_status: string; updated_at: string }>; comment_threads: Array<{ message: unknown }> };

async function stateOf(mock: RunningMock, session?: string): Promise<StateRows> {
  const answer = await mock.send({ method: 'GET', path: '/__mock/state', headers: session ? { 'x-mock-session': session } : {} });
  expect(answer.status).toBe(200);
  return answer.json() as StateRows;
}

describe('a session keeps at most its byte budget of rich text', () => {
  let mock: RunningMock;
  const budget = 256 * KiB;
  beforeAll(async () => {
    mock = await startMock({ maxSessionBytes: budget });
  });
  afterAll(() => mock.close());

  it('answers every write of a large document 200 and keeps only the newest threads that fit, however many are written', async () => {
    const token = mock.fixtures.tokens['full_access'];
    const before = (await stateOf(mock, 'big')).comment_threads.length;
    for (let i = 0; i < 12; i++) {
      const answer = await mock.post(
        RESUME,
        { project_id: mock.fixtures.projects['paused'], message: largeDoc(100 * KiB, String.fromCharCode(97 + i)) },
        token,
        { 'x-mock-session': 'big' },
      );
      expect(answer.status).toBe(200);
    }
    const state = await stateOf(mock, 'big');
    // Two 100 KiB documents fit in 256 KiB; a third does not: the newest two are kept, the oldest went first.
    const kept = state.comment_threads.filter((t) => JSON.stringify(t.message).length > 100 * KiB);
    expect(kept.map((t) => JSON.stringify(t.message).includes('"text":"kkk') || JSON.stringify(t.message).includes('"text":"lll'))).toEqual([true, true]);
    expect(kept).toHaveLength(2);
    expect(state.comment_threads.length).toBeLessThan(before + 12);
    // The event journal still lists every write: its entries carry no document.
    const events = (await mock.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': 'big' } })).json() as { events: unknown[] };
    expect(events.events).toHaveLength(12);
  });

  it("refuses with the mock's 507, changing nothing, a document that alone is larger than the budget", async () => {
    const token = mock.fixtures.tokens['full_access'];
    const before = await stateOf(mock, 'refused');
    const answer = await mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message: largeDoc(300 * KiB) }, token, {
      'x-mock-session': 'refused',
    });
    expect(answer.status).toBe(507);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = answer.json() as { error: string; message: string };
    expect(body.error).toBe('Mock storage limit');
    expect(body.message).toMatch(
      /^The mock did not apply this write: the rich-text document would keep about \d+ bytes; a session keeps at most \d+ \(--max-session-bytes\)\. Production would store it; send the mock a smaller document\.$/,
    );
    expect(body).toEqual(
      errors.MOCK_STORAGE_LIMIT(body.message.slice('The mock did not apply this write: '.length, body.message.indexOf(' (--max-session-bytes)'))).body,
    );
    expect(await stateOf(mock, 'refused')).toEqual(before);
  });

  it('measures a document by the objects it becomes, not by its JSON text: 30,000 empty nodes in 90 KB of JSON are refused', async () => {
    const token = mock.fixtures.tokens['full_access'];
    const text = manyNodes(30_000);
    expect(text.length).toBeLessThan(budget / 2);
    const answer = await mock.post(CLOSE, { goal_id: mock.fixtures.goals['open'], success: 'yes', success_status: 'achieved', retrospective: text }, token, {
      'x-mock-session': 'shape',
    });
    expect(answer.status).toBe(507);
    expect(
      (
        await mock.post(CLOSE, { goal_id: mock.fixtures.goals['open'], success: 'yes', success_status: 'achieved', retrospective: manyNodes(100) }, token, {
          'x-mock-session': 'shape',
        })
      ).status,
    ).toBe(200);
  });

  it('still checks everything production checks first: no token is 401 and a read-only token 403, before the size', async () => {
    const message = largeDoc(300 * KiB);
    const anonymous = await mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message });
    expect([anonymous.status, anonymous.text]).toEqual([401, production.unauthorized]);
    const readOnly = await mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message }, mock.fixtures.tokens['read_only']);
    expect([readOnly.status, readOnly.text]).toEqual([403, production.readOnly]);
  });
});

describe("all sessions together keep at most the process's byte budget", () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ maxSessionBytes: 512 * KiB, maxTotalBytes: 1400 * KiB });
  });
  afterAll(() => mock.close());

  it('drops the least recently used named sessions past it, never the one written and never the default', async () => {
    const token = mock.fixtures.tokens['full_access'];
    const write = (session: string | undefined) =>
      mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message: largeDoc(300 * KiB) }, token, session ? { 'x-mock-session': session } : {});
    expect((await write(undefined)).status).toBe(200);
    for (const name of ['s1', 's2', 's3', 's4']) expect((await write(name)).status).toBe(200);
    const listed = (await mock.send({ method: 'GET', path: '/__mock/sessions' })).json() as { sessions: Array<{ name: string }> };
    const names = listed.sessions.map((s) => s.name);
    // Each session keeps ~400 KiB (its ~300 KiB document and its ~96 KiB copy of the seed, both counted):
    // the default and the two most recent fit in 1400 KiB; s1 and s2 were dropped.
    expect(names).toContain('default');
    expect(names).toEqual(expect.arrayContaining(['s3', 's4']));
    expect(names).not.toContain('s1');
    expect(names).not.toContain('s2');
    // A dropped session starts again from the seed on its next use, as after eviction by count.
    expect((await stateOf(mock, 's1')).projects.find((p) => p.stored_status === 'active' && p.updated_at.startsWith('20'))).toBeDefined();
  });
});

describe('a body that JSON.parse would make large', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock.close());
  const tooMany = MAX_JSON_TOKENS / 2 + 1;

  it(`is production's 413 when its JSON holds more than ${MAX_JSON_TOKENS} tokens, before anything else, and changes nothing`, async () => {
    const before = await mock.state();
    const body = `{"project_id":${JSON.stringify(mock.fixtures.projects['paused'])},"padding":[${Array(tooMany).fill('{}').join(',')}]}`;
    expect(body.length).toBeLessThan(2 * 1024 * 1024);
    const answer = await mock.send({ path: RESUME, headers: { 'content-type': 'application/json' }, body });
    expect([answer.status, answer.text]).toEqual([413, errors.PAYLOAD_TOO_LARGE(false).body]);
    const asJson = await mock.send({ path: RESUME, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    expect([asJson.status, asJson.json()]).toEqual([413, errors.PAYLOAD_TOO_LARGE(true).body]);
    expect(await mock.state()).toEqual(before);
  });

  it('is 413 when a rich-text document inside it holds more, even without a token', async () => {
    const answer = await mock.post(RESUME, { project_id: mock.fixtures.projects['paused'], message: manyNodes(tooMany) });
    expect([answer.status, answer.text]).toEqual([413, errors.PAYLOAD_TOO_LARGE(false).body]);
  });

  it('is 413 for a form body of more pairs than that', async () => {
    const answer = await mock.send({ path: RESUME, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=&'.repeat(MAX_JSON_TOKENS + 1) });
    expect(answer.status).toBe(413);
  });

  it('counts no token inside strings: a text of a million commas and braces is stored', async () => {
    const answer = await mock.post(
      CLOSE,
      { goal_id: mock.fixtures.goals['open'], success: 'yes', success_status: 'achieved', retrospective: doc('{[,:'.repeat(250_000)) },
      mock.fixtures.tokens['full_access'],
    );
    expect(answer.status).toBe(200);
  });
});

describe("production's own limit on success", () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock.close());

  it('answers 500 (goals.success is varchar(255)) to a longer success and changes nothing', async () => {
    const before = await mock.state();
    const answer = await mock.post(
      CLOSE,
      { goal_id: mock.fixtures.goals['open'], success: 'y'.repeat(MAX_SUCCESS_LENGTH + 1), success_status: 'achieved', retrospective: doc('Done.') },
      mock.fixtures.tokens['full_access'],
    );
    expect(answer.status).toBe(500);
    expect(answer.json()).toEqual(errors.OPERATION_FAILED.body);
    expect(await mock.state()).toEqual(before);
  });

  it('counts characters as Postgres does: 255 astral characters (510 UTF-16 units) are stored', async () => {
    const success = '😀'.repeat(MAX_SUCCESS_LENGTH);
    expect(success.length).toBe(2 * MAX_SUCCESS_LENGTH);
    const answer = await mock.post(
      CLOSE,
      { goal_id: mock.fixtures.goals['open'], success, success_status: 'achieved', retrospective: doc('Done.') },
      mock.fixtures.tokens['full_access'],
    );
    expect(answer.status).toBe(200);
  });
});

describe('the request journal keeps a bounded path', () => {
  it(`cuts a request's path to ${JOURNAL_PATH_LENGTH} characters`, async () => {
    const mock = await startMock();
    try {
      const path = `/api/external/v1/${'a'.repeat(8000)}`;
      expect((await mock.send({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
      const journal = (await mock.send({ method: 'GET', path: '/__mock/requests' })).json() as { requests: Array<{ path: string }> };
      const entry = journal.requests.at(-1);
      expect(entry?.path).toHaveLength(JOURNAL_PATH_LENGTH);
      expect(entry?.path.endsWith('…')).toBe(true);
      expect(path.startsWith(entry?.path.slice(0, -1) ?? '-')).toBe(true);
    } finally {
      await mock.close();
    }
  });
});

describe('a control endpoint that fails', () => {
  it("answers the mock's JSON 500 in one line, with no stack trace and no file path", async () => {
    const { createMockApp } = await import('../src/index.ts');
    const app = createMockApp();
    // A value JSON cannot write, put in the state in place as a test may: serializing the state throws.
    Object.assign(app.mock.store().state.company, { size: 10n });
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const answer = await fetch(`http://127.0.0.1:${port}/__mock/state`);
      expect(answer.status).toBe(500);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await answer.text();
      expect(JSON.parse(text)).toEqual({ error: 'Mock control failed', message: 'GET /__mock/state failed: TypeError: Do not know how to serialize a BigInt' });
      expect(text).not.toMatch(/\n|\bat \w|\/[a-z]+\/[a-z]+\//);
      // As mock/openapi.yaml documents it for every control endpoint.
      const document: unknown = JSON.parse(readFileSync(new URL('../../generated/mock-control.json', import.meta.url), 'utf8'));
      if (!isObject(document)) throw new Error('generated/mock-control.json is not a document');
      const validator = createSchemaValidator(document);
      for (const operation of listOperations(document)) {
        const pointer = responseSchemaPointer(document, operation.pointer, 500, 'application/json');
        expect(pointer, `${operation.operationId} documents the 500`).toBeDefined();
        expect(formatErrors(validator.validate(pointer ?? '', JSON.parse(text))), operation.operationId).toBe('');
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('a UTF-8 byte-order mark before a JSON body', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock.close());
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

  it('is invalid JSON, as Jason reads it: 400 before the token (it was 401)', async () => {
    const answer = await mock.send({ path: RESUME, headers: { 'content-type': 'application/json' }, body: Buffer.concat([BOM, Buffer.from('{}')]) });
    expect([answer.status, answer.text]).toEqual([errors.INVALID_JSON(false).status, errors.INVALID_JSON(false).body]);
    const asJson = await mock.send({
      path: RESUME,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: Buffer.concat([BOM, Buffer.from('{}')]),
    });
    expect([asJson.status, asJson.json()]).toEqual([400, errors.INVALID_JSON(true).body]);
  });

  it('before a valid request with a token, is still 400 and changes nothing', async () => {
    const before = await mock.state();
    const body = Buffer.concat([BOM, Buffer.from(JSON.stringify({ project_id: mock.fixtures.projects['paused'], message: doc('x') }))]);
    const answer = await mock.send({
      path: RESUME,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mock.fixtures.tokens['full_access']}` },
      body,
    });
    expect(answer.status).toBe(400);
    expect(await mock.state()).toEqual(before);
  });
});
