// The bench's own parts that decide what it reports (mock/bench/): the baselines' and the fair floor's answers, the
// stage table's arithmetic, the body checks, the requests, and the two measuring children end to end at a tiny size.
// No timing is asserted here: the bench measures, these tests check that what it adds up and compares is right.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import { createMockCore } from '../src/core/core.ts';
import { STAGES } from '../src/stages.ts';
import { bodyMatcher, type RequestSpec } from '../bench/job.ts';
import { startFlags } from '../bench/proc.ts';
import { mockCheck, OPERATIONS, operationRequest, parseFixtures, scenarios, sessionWrites, type Fixtures } from '../bench/scenarios.ts';

const resumeRequest = (fixtures: Fixtures): RequestSpec => operationRequest(fixtures, 'resumeProject');
const closeRequest = (fixtures: Fixtures): RequestSpec => operationRequest(fixtures, 'closeGoal');
import { addSums, emptySums, formatStageTable, httpOverhead, perRequest, StageRecorder, type StageReport } from '../bench/stagetable.ts';
import type { StartupReport } from '../bench/startup.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const NO_BODY = new Uint8Array(0);

/** The default seed's fixtures, through a core's own GET /__mock/fixtures (as the bench reads them over HTTP). */
async function seedFixtures(): Promise<{ text: string; fixtures: Fixtures }> {
  const core = createMockCore();
  const reply = await core.answer({ method: 'GET', target: '/__mock/fixtures', header: () => undefined, body: NO_BODY });
  return { text: reply.body, fixtures: parseFixtures(JSON.parse(reply.body)) };
}

describe('the requests and body checks every bench figure is about', () => {
  it('builds the load scenarios from the fixtures: the full_access token, the paused project, the open goal, one session each', async () => {
    const { fixtures } = await seedFixtures();
    const list = scenarios(fixtures, 3);
    expect(list.map((s) => [s.name, s.expectStatus, s.requests.length])).toEqual([
      ['resumeProject', 200, 1],
      ['closeGoal', 200, 1],
      ['unauthorized', 401, 1],
      ['sessions', 200, 3],
    ]);
    expect(list[0]?.requests[0]?.headers['authorization']).toBe(`Bearer ${fixtures.tokens['full_access']}`);
    expect(JSON.parse(list[1]?.requests[0]?.body ?? '')).toMatchObject({ goal_id: fixtures.goals['open'], success: 'yes', success_status: 'achieved' });
    expect(list[2]?.requests[0]?.headers).toEqual({ 'content-type': 'application/json' });
    expect(list[3]?.requests.map((r) => r.headers['x-mock-session'])).toEqual(['bench-0', 'bench-1', 'bench-2']);
  });

  it('gives every memory-phase session a resume and then a close, so a connection cycling the list writes to each alike', async () => {
    const { fixtures } = await seedFixtures();
    const writes = sessionWrites(fixtures, 3);
    expect(writes.map((r) => `${r.headers['x-mock-session']} ${r.path.split('/').slice(-2).join('/')}`)).toEqual([
      'mem-0 projects/resume',
      'mem-0 goals/close',
      'mem-1 projects/resume',
      'mem-1 goals/close',
      'mem-2 projects/resume',
      'mem-2 goals/close',
    ]);
  });

  it("accepts the mock's real 200s and refuses a wrong record; one-of accepts either operation's answer and nothing else", async () => {
    const core = createMockCore();
    const { fixtures } = await seedFixtures();
    const answer = async (spec: RequestSpec): Promise<string> =>
      (await core.answer({ method: spec.method, target: spec.path, header: (name) => spec.headers[name], body: new TextEncoder().encode(spec.body) })).body;
    const resumed = await answer(resumeRequest(fixtures));
    const closed = await answer(closeRequest(fixtures));
    const resumeOk = bodyMatcher(mockCheck({ operationId: 'resumeProject', expectStatus: 200 }, fixtures));
    const closeOk = bodyMatcher(mockCheck({ operationId: 'closeGoal', expectStatus: 200 }, fixtures));
    expect([resumeOk(resumed), resumeOk(closed), closeOk(closed), closeOk(resumed)]).toEqual([true, false, true, false]);
    expect(resumeOk(resumed.replace('"state":"active"', '"state":"paused"'))).toBe(false);
    const either = bodyMatcher({ kind: 'one-of', checks: OPERATIONS.map((operationId) => mockCheck({ operationId, expectStatus: 200 }, fixtures)) });
    expect([either(resumed), either(closed), either(production.unauthorized), either('{}')]).toEqual([true, true, false, false]);
    expect(bodyMatcher(mockCheck({ operationId: 'resumeProject', expectStatus: 401 }, fixtures))(production.unauthorized)).toBe(true);
  });
});

describe('the baselines (bare.ts): the same bytes as our mock, and the floor parses and stringifies', () => {
  type Running = { url: string; stop: () => Promise<void> };
  const servers = new Map<string, Running>();
  const answers: Array<{ path: string; auth: boolean; session: boolean; status: number; headers: Record<string, string>; body: string }> = [];
  let resume: RequestSpec;

  async function startBare(kind: string): Promise<Running> {
    const child = spawn(process.execPath, ['mock/bench/bare.ts', kind, '--port', '0'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(JSON.stringify(answers));
    let out = '';
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /^port: (\d+)$/m.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`bare.ts ${kind} exited with ${code}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    return {
      url: `http://127.0.0.1:${port}`,
      stop: async () => {
        child.kill('SIGTERM');
        await exited;
      },
    };
  }

  beforeAll(async () => {
    const { fixtures } = await seedFixtures();
    const core = createMockCore();
    resume = resumeRequest(fixtures);
    const close = closeRequest(fixtures);
    const anonymous: RequestSpec = { ...resume, headers: { 'content-type': 'application/json' } };
    for (const [spec, auth] of [
      [resume, true],
      [close, true],
      [anonymous, false],
    ] satisfies Array<[RequestSpec, boolean]>) {
      const framed = await core.answer({
        method: spec.method,
        target: spec.path,
        header: (name) => spec.headers[name],
        body: new TextEncoder().encode(spec.body),
      });
      const headers = Object.fromEntries(
        framed.headers.filter(([name]) => ['content-type', 'cache-control', 'x-request-id'].includes(name.toLowerCase())).map(([n, v]) => [n.toLowerCase(), v]),
      );
      answers.push({ path: spec.path, auth, session: false, status: framed.status, headers, body: framed.body });
    }
    for (const kind of ['express-floor', 'express', 'http']) servers.set(kind, await startBare(kind));
  });

  afterAll(async () => {
    await Promise.all([...servers.values()].map((s) => s.stop()));
  });

  const post = (kind: string, path: string, headers: Record<string, string>, body: string): Promise<Response> =>
    fetch(`${servers.get(kind)?.url}${path}`, { method: 'POST', headers, body });

  it.each(['express-floor', 'express', 'http'])("%s answers each request with our mock's answer, byte for byte, with its headers", async (kind) => {
    for (const answer of answers) {
      const headers: Record<string, string> = answer.auth ? resume.headers : { 'content-type': 'application/json' };
      const response = await post(kind, answer.path, headers, resume.body);
      expect(response.status).toBe(answer.status);
      expect(await response.text()).toBe(answer.body);
      expect(response.headers.get('content-type')).toBe(answer.headers['content-type'] ?? null);
      expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(answer.body)));
    }
  });

  it('the floor refuses a body that is not a JSON object (it really parses it), and answers 404 to an unknown path', async () => {
    expect((await post('express-floor', resume.path, resume.headers, '{"project_id":')).status).toBe(400);
    expect((await post('express-floor', resume.path, resume.headers, '[1,2]')).status).toBe(400);
    expect((await post('express-floor', '/api/external/v1/nothing', resume.headers, resume.body)).status).toBe(404);
    // The precomputed baselines do not read the body at all.
    expect((await post('express', resume.path, resume.headers, '{"project_id":')).status).toBe(200);
  });
});

describe('the stage table', () => {
  /** A clock that reads the given times in turn. */
  const clock = (...times: number[]): (() => number) => {
    let i = 0;
    return () => {
      const t = times[i++];
      if (t === undefined) throw new Error('the clock ran out');
      return t;
    };
  };

  it('gives each stage the time since the previous mark, the rest to "after the last mark", and counts who reached it', () => {
    // Request 1 reaches parse, route, decode; request 2 returns after parse (an early answer).
    const recorder = new StageRecorder(clock(0, 2, 5, 9, 10, 100, 104, 105));
    recorder.mark('parse'); // outside a request: not counted, reads no time
    recorder.begin();
    recorder.mark('parse');
    recorder.mark('route');
    recorder.mark('decode');
    recorder.end();
    recorder.begin();
    recorder.mark('parse');
    recorder.end();
    const sums = recorder.sums;
    expect(sums.requests).toBe(2);
    expect(sums.stage_ms.parse).toBe(2 + 4);
    expect(sums.stage_ms.route).toBe(3);
    expect(sums.stage_ms.decode).toBe(4);
    expect(sums.stage_ms.auth).toBe(0);
    expect(sums.after_last_ms).toBe(1 + 1);
    expect(sums.wall_ms).toBe(10 + 5);
    expect(sums.stage_hits).toMatchObject({ parse: 2, route: 1, decode: 1, auth: 0 });

    const figures = perRequest({ ...sums, cpu_us: 50, gc_ms: 0.004, gc_count: 1 });
    expect(figures.stages_us.parse).toBe(3000);
    expect(figures.stages_us.route).toBe(1500);
    expect(figures.reached).toMatchObject({ parse: 1, route: 0.5, decode: 0.5, auth: 0 });
    expect(figures.wall_us).toBe(7500);
    expect(figures.after_last_mark_us).toBe(1000);
    expect(figures.cpu_us).toBe(25);
    expect(figures.gc_us).toBe(2);
    expect(figures.gc_per_1000).toBe(500);
    // The stages and the tail add up to the wall time.
    expect(STAGES.reduce((n, s) => n + figures.stages_us[s], figures.after_last_mark_us)).toBe(figures.wall_us);
  });

  it('adds windows field by field', () => {
    const a = new StageRecorder(clock(0, 1, 3));
    a.begin();
    a.mark('parse');
    a.end();
    const b = new StageRecorder(clock(10, 14, 15));
    b.begin();
    b.mark('parse');
    b.end();
    const total = addSums({ ...a.sums, cpu_us: 7, gc_ms: 1, gc_count: 1 }, { ...b.sums, cpu_us: 3, gc_ms: 2, gc_count: 2 });
    expect(total).toMatchObject({ requests: 2, after_last_ms: 3, wall_ms: 8, cpu_us: 10, gc_ms: 3, gc_count: 3 });
    expect(total.stage_ms.parse).toBe(5);
    expect(total.stage_hits.parse).toBe(2);
    expect(addSums(emptySums(), emptySums())).toEqual(emptySums());
  });

  it('takes "HTTP + Express" as the server CPU per request minus the in-process CPU of the same mode, and prints both', () => {
    const figures = (cpu: number) => ({
      ...perRequest({ ...emptySums(), requests: 1, cpu_us: cpu }),
      reached: { ...perRequest(emptySums()).reached, parse: 0.5 },
    });
    const report: StageReport = {
      node_flags: ['--max-semi-space-size=4'],
      requests: 1,
      warmup: 1,
      rounds: 1,
      results: [
        { mode: 'always', operation: 'resumeProject', figures: figures(100) },
        { mode: 'always', operation: 'closeGoal', figures: figures(150) },
        { mode: 'sample', operation: 'resumeProject', figures: figures(70) },
      ],
      failures: [],
    };
    expect(httpOverhead(report, 'always', { resumeProject: 130, closeGoal: 190 })).toEqual({ resumeProject: 30, closeGoal: 40 });
    expect(httpOverhead(report, 'sample', { resumeProject: 95, closeGoal: 120 })).toEqual({ resumeProject: 25 });
    expect(httpOverhead(report, 'off', { resumeProject: 95 })).toEqual({});
    const text = formatStageTable(
      report,
      [{ key: 'express-floor', label: 'parse-and-stringify Express floor', cpu_us: { resumeProject: 40, closeGoal: 61.6 } }],
      [{ mode: 'always', us: { resumeProject: 30, closeGoal: 40 } }],
    );
    const lines = text.split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual(['µs per request (in process)', 'always resume', 'always close', 'sample resume']);
    expect(lines.find((l) => l.trim().startsWith('parse '))).toContain('(50%)');
    expect(lines.find((l) => l.startsWith('process CPU'))?.split(/\s{2,}/)).toEqual(['process CPU', '100.0', '150.0', '70.0']);
    expect(lines.find((l) => l.startsWith('parse-and-stringify'))?.split(/\s{2,}/)).toEqual(['parse-and-stringify Express floor', '40', '62']);
    expect(lines.find((l) => l.startsWith('HTTP + Express, always'))?.split(/\s{2,}/)).toEqual([
      'HTTP + Express, always (server − in-process CPU)',
      '30',
      '40',
    ]);
  });
});

describe('the measuring children, at a tiny size', () => {
  it("stages.ts runs with npm start's node flags, answers every request right, and every 200 reaches every stage", async () => {
    const { stdout } = await run(
      process.execPath,
      [...startFlags(), 'mock/bench/stage-times.ts', '--requests', '4', '--warmup', '2', '--rounds', '2', '--modes', 'always,off'],
      { cwd: ROOT },
    );
    const report: StageReport = JSON.parse(stdout);
    expect(report.node_flags).toEqual(startFlags());
    expect(report.failures).toEqual([]);
    expect(report.results.map((r) => `${r.mode} ${r.operation} ${r.figures.requests}`)).toEqual([
      'always resumeProject 4',
      'always closeGoal 4',
      'off resumeProject 4',
      'off closeGoal 4',
    ]);
    for (const { figures } of report.results) {
      expect(Object.values(figures.reached)).toEqual(STAGES.map(() => 1));
      expect(STAGES.reduce((n, s) => n + figures.stages_us[s], figures.after_last_mark_us)).toBeCloseTo(figures.wall_us, 0);
    }
  });

  it('startup.ts answers a correct first 200 through each factory, every time, in a fresh process', async () => {
    const { text } = await seedFixtures();
    for (const factory of ['app', 'msw'] as const) {
      const child = execFile(process.execPath, [...startFlags(), 'mock/bench/startup.ts', factory, '--count', '2'], { cwd: ROOT });
      child.stdin?.end(text);
      const stdout = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`startup.ts ${factory} exited with ${code}`))));
      });
      const report: StartupReport = JSON.parse(stdout);
      expect(report.factory).toBe(factory);
      expect(report.samples).toHaveLength(2);
      expect(report.first_ms).toBe(report.samples[0]?.total_ms);
      expect(report.later_median_ms).toBe(report.samples[1]?.total_ms);
    }
  });
});
