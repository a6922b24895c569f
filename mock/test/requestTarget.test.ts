// The absolute form of a request target: RFC 9112 §3.2.2 requires a server to accept
// `POST http://127.0.0.1:P/api/external/v1/projects/resume HTTP/1.1`; the mock answers it as its origin form, with the
// target's authority as the host (the Host header is ignored), so the Host guard still applies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationAt, readOperations } from '../src/core/pipeline.ts';
import { originForm, readTarget } from '../src/server/requestTarget.ts';
import { RESUME, startMock, type RunningMock } from './http.ts';

const NOW = new Date('2025-06-13T10:00:00Z');

describe('originForm', () => {
  it('reads the path and query of an http(s) target as sent, and its authority as the host', () => {
    expect(originForm('http://127.0.0.1:4010/api/external/v1/projects/resume?x=1')).toEqual({
      host: '127.0.0.1:4010',
      target: '/api/external/v1/projects/resume?x=1',
    });
    expect(originForm('HTTPS://[::1]:4010')).toEqual({ host: '[::1]:4010', target: '/' });
    expect(originForm('http://127.0.0.1:4010?a=b')).toEqual({ host: '127.0.0.1:4010', target: '/?a=b' });
    expect(originForm('http://h/x#f')).toEqual({ host: 'h', target: '/x#f' });
    // Dot segments and encodings are kept as sent: the core reads them as it reads an origin-form target.
    expect(originForm('http://h/a/../%2e/b')).toEqual({ host: 'h', target: '/a/../%2e/b' });
  });

  it('leaves the origin form, `*`, user info and other schemes alone', () => {
    for (const target of ['/api/external/v1/projects/resume', '*', 'http://user@127.0.0.1/x', 'ftp://127.0.0.1/x', 'http:///x'])
      expect(originForm(target), target).toBeUndefined();
  });
});

describe('readTarget: the one reading of a target for routing, journal, metrics and log', () => {
  const operations = readOperations();
  const read = (target: string) => {
    const { path, host, url } = readTarget(target);
    return { path, host, search: url.search, operation: operationAt(operations, path)?.operationId };
  };

  it('names the operation of every form the routing answers as it, and shows the path alone', () => {
    for (const target of [
      '/api/external/v1/projects/resume',
      '//api/external/v1/projects/resume',
      '/api/external/v1/projects/resume/',
      '/api//external/v1/projects//resume',
      '/api/external/v1/projects/resume#frag',
      '/api/external/v1/goals/../projects/resume',
      'http://127.0.0.1:4010/api/external/v1/projects/resume#f',
    ])
      expect(read(target).operation, target).toBe('resumeProject');
    expect(read('/api/external/v1/projects/resume?token=x#frag')).toEqual({
      path: '/api/external/v1/projects/resume',
      host: undefined,
      search: '?token=x',
      operation: 'resumeProject',
    });
    expect(read('HTTP://mock:80/api/external/v1/goals/close?a=1')).toEqual({
      path: '/api/external/v1/goals/close',
      host: 'mock:80',
      search: '?a=1',
      operation: 'closeGoal',
    });
  });

  it('names none where the routing names none: another case, an escape, another prefix, too many segments', () => {
    for (const target of [
      '/API/external/v1/projects/resume',
      '/api/external/v1/projects/%72esume',
      '/api/external/v1/projects/%zz',
      '/api/v2/projects/resume',
      '/api/external/v1/projects/resume/extra',
      '/api/external/v1',
      '*',
    ])
      expect(read(target).operation, target).toBeUndefined();
  });

  it('masks the user info of an absolute-form target and reads it as it always was: a path that names no route', () => {
    expect(read('http://u:opk_secret@127.0.0.1:4010/api/external/v1/projects/resume')).toEqual({
      path: '//***@127.0.0.1:4010/api/external/v1/projects/resume',
      host: undefined,
      search: '',
      operation: undefined,
    });
    expect(read('https://a@b@host/x?q').path).toBe('//***@host/x');
  });
});

describe('an absolute-form request to the mock', () => {
  let mock: RunningMock;
  let guarded: RunningMock;
  beforeAll(async () => {
    mock = await startMock({ now: () => NOW });
    guarded = await startMock({ now: () => NOW, allowedHosts: () => new Set([`127.0.0.1:${guarded.port}`]) });
  });
  afterAll(async () => {
    await mock.close();
    await guarded.close();
  });

  const resume = (m: RunningMock, path: string, session: string, host?: string) =>
    m.send({
      path,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${m.fixtures.tokens['full_access'] ?? ''}`,
        'x-mock-session': session,
        ...(host === undefined ? {} : { host }),
      },
      body: JSON.stringify({ project_id: m.fixtures.projects['paused'], message: '{"type":"doc","content":[]}' }),
    });

  it('answers POST http://127.0.0.1:P/api/external/v1/projects/resume with the 200 its origin form gets, and writes', async () => {
    const origin = await resume(mock, RESUME, 'origin-form');
    const absolute = await resume(mock, `${mock.url}${RESUME}`, 'absolute-form');
    expect(origin.status).toBe(200);
    expect(absolute.status).toBe(200);
    expect(absolute.headers['content-type']).toBe(origin.headers['content-type']);
    expect(absolute.text).toBe(origin.text);
    expect((absolute.json() as { project: { state: string } }).project.state).toBe('active');
    const events = await mock.send({ method: 'GET', path: `${mock.url}/__mock/events`, headers: { 'x-mock-session': 'absolute-form' } });
    expect(events.status).toBe(200);
    expect((events.json() as { events: unknown[] }).events).toHaveLength(1);
  });

  it('takes the host from the target, not the Host header: a foreign authority gets 421, a foreign Host header does not', async () => {
    const own = `127.0.0.1:${guarded.port}`;
    const ok = await resume(guarded, `http://${own}${RESUME}`, 'guarded', `evil.example:${guarded.port}`);
    expect(ok.status).toBe(200);
    const refused = await resume(guarded, `http://evil.example:${guarded.port}${RESUME}`, 'guarded-2', own);
    expect(refused.status).toBe(421);
    expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((refused.json() as { error: string }).error).toBe('Misdirected request');
    const untouched = await guarded.send({ method: 'GET', path: '/__mock/events', headers: { 'x-mock-session': 'guarded-2' } });
    expect((untouched.json() as { events: unknown[] }).events).toEqual([]);
  });
});
