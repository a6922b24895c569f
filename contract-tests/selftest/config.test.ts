// Configuration: every variable is validated at start, a bad one is exit 2 with one line naming it, there is no
// default URL, writes to another machine need CONTRACT_ALLOW_WRITES=1, and a server that never answers fails the run
// with a timeout instead of hanging it.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../spec/lib/messages.ts';
import { ConfigError, DEFAULT_TIMEOUT_MS, knownVariables, personVariable, readConfig, recordVariable, tokenVariable } from '../io/env.ts';
import { runContract, startHangingServer, startMock, summaryOf, withOutput, type Running } from './support.ts';

const TOKEN = `opk_${'a'.repeat(43)}`;

function configError(env: Record<string, string>): ConfigError {
  try {
    readConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('readConfig', () => {
  it('needs CONTRACT_BASE_URL: there is no default URL', () => {
    expect(configError({}).variable).toBe('CONTRACT_BASE_URL');
    expect(configError({ CONTRACT_BASE_URL: ' ' }).variable).toBe('CONTRACT_BASE_URL');
  });

  it.each([
    ['not a URL', 'localhost:4010'],
    ['another protocol', 'ftp://127.0.0.1/'],
    ['credentials in the URL', 'http://qa:secret@127.0.0.1:4010'],
    ['a query string', 'http://127.0.0.1:4010/?x=1'],
    ['the API prefix included', 'http://127.0.0.1:4010/api/external/v1'],
  ])('refuses a base URL with %s', (_case, url) => {
    expect(configError({ CONTRACT_BASE_URL: url }).variable).toBe('CONTRACT_BASE_URL');
  });

  it('reads a valid configuration, trims the trailing slash and defaults the timeout', () => {
    const config = readConfig({
      CONTRACT_BASE_URL: 'http://localhost:4010/',
      CONTRACT_TOKEN: TOKEN,
      CONTRACT_OPEN_GOAL_ID: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq',
    });
    expect(config).toMatchObject({
      baseUrl: 'http://localhost:4010',
      loopback: true,
      timeoutMs: DEFAULT_TIMEOUT_MS,
      allowWrites: false,
      tokens: { full_access: TOKEN },
      records: { goals: { open: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq' } },
    });
  });

  it('treats 127.0.0.0/8, ::1 and localhost as this machine, and refuses writes elsewhere without CONTRACT_ALLOW_WRITES=1', () => {
    for (const url of ['http://127.0.0.1:1', 'http://127.1.2.3:1', 'http://[::1]:1', 'http://localhost:1'])
      expect(readConfig({ CONTRACT_BASE_URL: url }).loopback, url).toBe(true);
    const refused = configError({ CONTRACT_BASE_URL: 'https://staging.example.com' });
    expect(refused.variable).toBe('CONTRACT_ALLOW_WRITES');
    expect(refused.message).toContain('staging.example.com');
    expect(configError({ CONTRACT_BASE_URL: 'https://staging.example.com', CONTRACT_ALLOW_WRITES: '0' }).variable).toBe('CONTRACT_ALLOW_WRITES');
    expect(configError({ CONTRACT_BASE_URL: 'https://staging.example.com', CONTRACT_ALLOW_WRITES: 'yes please' }).variable).toBe('CONTRACT_ALLOW_WRITES');
    expect(readConfig({ CONTRACT_BASE_URL: 'https://staging.example.com', CONTRACT_ALLOW_WRITES: '1' })).toMatchObject({ loopback: false, allowWrites: true });
  });

  it.each([
    ['CONTRACT_TIMEOUT_MS', 'soon'],
    ['CONTRACT_TIMEOUT_MS', '0'],
    ['CONTRACT_NUM_RUNS', '-1'],
    ['CONTRACT_SEED', '1.5'],
    ['CONTRACT_TOKEN', ''],
    ['CONTRACT_TOKEN', `Bearer ${TOKEN}`],
    ['CONTRACT_READ_ONLY_TOKEN', 'two tokens'],
    ['CONTRACT_TOKEN', 'opk_too-short'],
    ['CONTRACT_TOKEN', `tok_${'a'.repeat(43)}`],
    ['CONTRACT_SUSPENDED_TOKEN', `opk_${'a'.repeat(42)}!`],
    ['CONTRACT_PERSON_ID', 'not a person!'],
    ['CONTRACT_STRICT', 'yes'],
    ['CONTRACT_PAUSED_PROJECT_ID', 'not an id!'],
    ['CONTRACT_CLOSED_GOAL_ID', 'ends-with-a-dash-'],
    ['CONTRACT_REPORT', ''],
  ])('refuses a malformed %s (%j)', (name, value) => {
    expect(configError({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010', [name]: value }).variable).toBe(name);
  });

  it("never shows a malformed token's value in the message", () => {
    const error = configError({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010', CONTRACT_TOKEN: 'my-secret-password' });
    expect(error.message).toBe(
      'CONTRACT_TOKEN: is not an API token: tokens are opk_ followed by 43 characters of A-Z a-z 0-9 _ - (47 in all); the value given has 18 characters and does not start with opk_',
    );
  });

  it('reads CONTRACT_STRICT and the caller’s CONTRACT_PERSON_ID', () => {
    expect(readConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010' })).toMatchObject({ strict: false, person: undefined });
    expect(
      readConfig({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010', CONTRACT_STRICT: '1', CONTRACT_PERSON_ID: 'alice-johnson-Gp5Ex7foYoYTHB47d4lHkh' }),
    ).toMatchObject({ strict: true, person: 'alice-johnson-Gp5Ex7foYoYTHB47d4lHkh' });
  });

  it('catches a misspelt variable and suggests the right one', () => {
    const error = configError({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010', CONTRACT_READONLY_TOKEN: TOKEN });
    expect(error.variable).toBe('CONTRACT_READONLY_TOKEN');
    expect(error.message).toContain('did you mean CONTRACT_READ_ONLY_TOKEN?');
  });

  it('names the fixture variables after the mock fixtures (tokens.X, projects.X, goals.X)', () => {
    expect(tokenVariable('full_access')).toBe('CONTRACT_TOKEN');
    expect(tokenVariable('comment_only')).toBe('CONTRACT_COMMENT_ONLY_TOKEN');
    expect(recordVariable('projects', 'paused')).toBe('CONTRACT_PAUSED_PROJECT_ID');
    expect(recordVariable('goals', 'open')).toBe('CONTRACT_OPEN_GOAL_ID');
    expect(personVariable('full_access')).toBe('CONTRACT_PERSON_ID');
    expect(personVariable('comment_only')).toBe('CONTRACT_COMMENT_ONLY_PERSON_ID');
    expect(knownVariables()).toEqual(
      expect.arrayContaining([
        'CONTRACT_BASE_URL',
        'CONTRACT_SUSPENDED_TOKEN',
        'CONTRACT_CLOSED_PROJECT_ID',
        'CONTRACT_CLOSED_GOAL_ID',
        'CONTRACT_ALLOW_WRITES',
        'CONTRACT_REPORT',
        'CONTRACT_TIMEOUT_MS',
        'CONTRACT_STRICT',
        'CONTRACT_PERSON_ID',
      ]),
    );
  });
});

describe('npm run contract with a bad configuration', () => {
  it.each([
    ['no CONTRACT_BASE_URL', {}, 'CONTRACT_BASE_URL'],
    ['a malformed CONTRACT_BASE_URL', { CONTRACT_BASE_URL: 'not a url' }, 'CONTRACT_BASE_URL'],
    ['another machine without CONTRACT_ALLOW_WRITES', { CONTRACT_BASE_URL: 'https://staging.example.invalid' }, 'CONTRACT_ALLOW_WRITES'],
    ['a malformed CONTRACT_TIMEOUT_MS', { CONTRACT_BASE_URL: 'http://127.0.0.1:9', CONTRACT_TIMEOUT_MS: '5s' }, 'CONTRACT_TIMEOUT_MS'],
    ['a malformed id', { CONTRACT_BASE_URL: 'http://127.0.0.1:9', CONTRACT_OPEN_GOAL_ID: 'no such id!' }, 'CONTRACT_OPEN_GOAL_ID'],
    ['a malformed token', { CONTRACT_BASE_URL: 'http://127.0.0.1:9', CONTRACT_TOKEN: 'Bearer-opk-oops' }, 'CONTRACT_TOKEN'],
  ])('exits 2 with one line naming the variable: %s', { timeout: 120_000 }, async (_case, env, variable) => {
    // Generous: on a 2-core machine running the rest of npm test beside it, a child can wait long for a core.
    const run = await runContract(env, 90_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^contract: ${variable}: `));
  });

  it('names the fix when nothing listens at the URL', { timeout: 60_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: 'http://127.0.0.1:9' }, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd()).toBe(
      "contract: CONTRACT_BASE_URL: nothing is listening on 127.0.0.1:9 (connection refused): start the server there (this package's mock: npx service-external-api mock, which listens on http://127.0.0.1:4010) or point CONTRACT_BASE_URL at one that runs",
    );
  });

  it('exits 2 naming an unknown suite file filter', { timeout: 60_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: 'http://127.0.0.1:9' }, 30_000, ['no-such-check']);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('npm run contract against a server that never answers', () => {
  let hanging: Running;
  beforeAll(async () => {
    hanging = await startHangingServer();
  });
  afterAll(() => hanging.close());

  it('fails (exit 1) with a clear timeout in every test instead of hanging the run', { timeout: 90_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: hanging.url, CONTRACT_TIMEOUT_MS: '300', CONTRACT_TOKEN: TOKEN }, 60_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout).toContain('the server did not answer the first request, so nothing was tested');
    expect(run.stdout).toContain('within 300 ms (CONTRACT_TIMEOUT_MS)');
    // Not hanging is the exit above: runContract kills a run that outlives its limit, which would leave no exit code.
    expect(summaryOf(run.stdout)?.passed).toBe(0);
  });
});

describe('npm run contract against a server that is not this API', () => {
  const servers: Server[] = [];
  const serve = async (status: number, contentType: string, body: string): Promise<string> => {
    const server = createServer((_req, res) => res.writeHead(status, { 'content-type': contentType }).end(body));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  };
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it.each([
    [
      'a web app that answers every request with an HTML page',
      200,
      'text/html; charset=utf-8',
      '<!doctype html><title>Sign in</title>',
      /^contract: CONTRACT_BASE_URL: http:\/\/127\.0\.0\.1:\d+ does not look like this API: it answered POST \/api\/external\/v1\/projects\/resume and POST \/api\/external\/v1\/goals\/close with an HTML page \(200\)/,
    ],
    [
      'a server that answers 404 on both paths',
      404,
      'application/json',
      '{"message":"no route"}',
      /^contract: CONTRACT_BASE_URL: http:\/\/127\.0\.0\.1:\d+ does not look like this API: it answered 404 to POST \/api\/external\/v1\/projects\/resume and POST \/api\/external\/v1\/goals\/close; give the origin the spec's paths are appended to/,
    ],
  ])('exits 2 and says so in one line: %s', { timeout: 60_000, concurrent: true }, async (_case, status, contentType, body, line) => {
    const run = await runContract({ CONTRACT_BASE_URL: await serve(status, contentType, body) }, 30_000);
    withOutput(run, () => {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(line);
    });
  });
});

describe('npm run contract: what is wrong comes first', () => {
  let mock: Running;
  let bare: Running;
  beforeAll(async () => {
    mock = await startMock({ selfCheck: 'off' });
    bare = await startMock({ selfCheck: 'off', control: false });
  });
  afterAll(async () => {
    await mock.close();
    await bare.close();
  });

  it('a refused CONTRACT_TOKEN is the first line of the run, repeated in the summary, and named in the last line (exit 1)', { timeout: 90_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: mock.url, CONTRACT_TOKEN: TOKEN }, 80_000, ['auth']);
    withOutput(run, () => {
      expect(run.code).toBe(1);
      expect(run.stdout.split('\n')[0]).toBe(
        `contract: CONTRACT_TOKEN is refused: ${mock.url} answers 401 to it (POST /api/external/v1/projects/resume with {}, where a valid token gets 400 ${JSON.stringify(messages.missingFields(['…']))}); the tests that need it will fail until it is a current API token of this server`,
      );
      expect(run.stdout).toMatch(/^✗ before the run: CONTRACT_TOKEN is refused: /m);
      expect(run.stdout).not.toContain('CONTRACT_READ_ONLY_TOKEN is refused');
      // The last line, where a CI log is read, says why the run failed.
      expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(
        /^contract: \d+ passed, [1-9]\d* failed, .* — FAIL \(the server refuses CONTRACT_TOKEN: it answers 401 to it; see the first lines\)$/,
      );
    });
  });

  it('CONTRACT_STRICT=1 and --strict make a skipped test a failure (exit 1); without them the same run passes', { timeout: 90_000 }, async () => {
    const [lenient, ...strict] = await Promise.all([
      runContract({ CONTRACT_BASE_URL: bare.url }, 80_000, ['permissions']),
      runContract({ CONTRACT_BASE_URL: bare.url, CONTRACT_STRICT: '1' }, 80_000, ['permissions']),
      runContract({ CONTRACT_BASE_URL: bare.url }, 80_000, ['--strict', 'permissions']),
    ]);
    if (!lenient) throw new Error('no run');
    withOutput(lenient, () => {
      expect(lenient.code).toBe(0);
      expect(summaryOf(lenient.stdout)).toMatchObject({ passed: 0, failed: 0 });
    });
    // As many skipped tests as the permissions tests have rows (permissions.contract.test.ts: per operation, a row per persona
    // a write refuses on the record), whatever the persona table holds.
    const skipped = summaryOf(lenient.stdout)?.skipped ?? 0;
    expect(skipped).toBeGreaterThan(0);
    for (const run of strict) {
      withOutput(run, () => {
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(
          new RegExp(`^strict \\(CONTRACT_STRICT=1 or --strict\\): the ${skipped} skipped tests above count as failures; give the variables they need$`, 'm'),
        );
        expect(run.stdout).toMatch(new RegExp(`^contract: 0 passed, 0 failed, ${skipped} skipped, 0 warnings — FAIL$`, 'm'));
      });
    }
  });

  it('withOutput adds the whole output of the run to a failed assertion', () => {
    expect(() => withOutput({ code: 1, stdout: 'the run said this', stderr: '', ms: 5 }, () => expect(1).toBe(0))).toThrow(
      /── npm run contract exited 1 after 5 ms; its output ──\nthe run said this/,
    );
  });
});

describe('messages name what the user typed, and a bad configuration still writes the JUnit file', () => {
  it('with --base-url given, a dead port names --base-url, not CONTRACT_BASE_URL, and the report holds the reason (exit 2)', { timeout: 60_000 }, async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'contract-report-'));
    try {
      const report = join(dir, 'nested', 'junit.xml');
      const run = await runContract({ CONTRACT_BASE_URL: '' }, 30_000, ['--base-url', 'http://127.0.0.1:9', '--report', report]);
      expect(run.code).toBe(2);
      expect(run.stderr.trimEnd()).toBe(
        "contract: --base-url: nothing is listening on 127.0.0.1:9 (connection refused): start the server there (this package's mock: npx service-external-api mock, which listens on http://127.0.0.1:4010) or point --base-url at one that runs",
      );
      const xml = readFileSync(report, 'utf8');
      expect(xml).toMatch(/<testsuites name="contract" tests="1" failures="1" errors="0">/);
      expect(xml).toContain('<failure message="--base-url: nothing is listening on 127.0.0.1:9 (connection refused)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with no URL at all, the message offers both --base-url and CONTRACT_BASE_URL', { timeout: 60_000 }, async () => {
    const run = await runContract({ CONTRACT_BASE_URL: '' }, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^contract: CONTRACT_BASE_URL: is not set; give the origin of the server to test: --base-url http:\/\/127\.0\.0\.1:4010 or CONTRACT_BASE_URL=/,
    );
  });
});

describe("the README's QA line", () => {
  it('sets every variable the suite needs for the non-loopback URL it shows (a staging host gets writes only with CONTRACT_ALLOW_WRITES)', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    // The QA line sets the token itself (README's install section also shows the npx line for Node 20, without variables).
    const line = readme
      .split('\n')
      .find((l) => / service-external-api contract --base-url https?:\/\//.test(l) && l.includes('npx') && /CONTRACT_TOKEN=/.test(l));
    if (!line) throw new Error('README.md has no QA line (npx … service-external-api contract --base-url URL)');
    const env = Object.fromEntries([...line.matchAll(/(?:^|\s)(CONTRACT_[A-Z_]+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    const url = /--base-url (\S+)/.exec(line)?.[1] ?? '';
    expect(new URL(url).hostname).not.toMatch(/^(localhost|127\.|\[::1\])/);
    // The token in the line is a placeholder (opk_…); give it the form of a real one.
    const config = readConfig({ ...env, CONTRACT_TOKEN: `opk_${'A'.repeat(43)}`, CONTRACT_BASE_URL: url });
    expect(config.allowWrites).toBe(true);
    expect(() => readConfig({ CONTRACT_TOKEN: `opk_${'A'.repeat(43)}`, CONTRACT_BASE_URL: url })).toThrow(ConfigError);
  });
});
