// Configuration: every variable is validated at start, a bad one is exit 2 with one line naming it, there is no
// default URL, writes to another machine need CONTRACT_ALLOW_WRITES=1, and a server that never answers fails the run
// with a timeout instead of hanging it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_TIMEOUT_MS, knownVariables, readConfig, recordVariable, tokenVariable } from '../lib/env.ts';
import { runContract, startHangingServer, summaryOf, type Running } from './support.ts';

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
    const config = readConfig({ CONTRACT_BASE_URL: 'http://localhost:4010/', CONTRACT_TOKEN: TOKEN, CONTRACT_OPEN_GOAL_ID: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq' });
    expect(config).toMatchObject({ baseUrl: 'http://localhost:4010', loopback: true, timeoutMs: DEFAULT_TIMEOUT_MS, allowWrites: false, tokens: { full_access: TOKEN }, records: { goals: { open: 'convert-more-visitors-FEBoOzPNE0H4GNy9U6K4Cq' } } });
  });

  it('treats 127.0.0.0/8, ::1 and localhost as this machine, and refuses writes elsewhere without CONTRACT_ALLOW_WRITES=1', () => {
    for (const url of ['http://127.0.0.1:1', 'http://127.1.2.3:1', 'http://[::1]:1', 'http://localhost:1']) expect(readConfig({ CONTRACT_BASE_URL: url }).loopback, url).toBe(true);
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
    ['CONTRACT_PAUSED_PROJECT_ID', 'not an id!'],
    ['CONTRACT_CLOSED_GOAL_ID', 'ends-with-a-dash-'],
    ['CONTRACT_REPORT', ''],
  ])('refuses a malformed %s (%j)', (name, value) => {
    expect(configError({ CONTRACT_BASE_URL: 'http://127.0.0.1:4010', [name]: value }).variable).toBe(name);
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
    expect(knownVariables()).toEqual(expect.arrayContaining(['CONTRACT_BASE_URL', 'CONTRACT_SUSPENDED_TOKEN', 'CONTRACT_CLOSED_PROJECT_ID', 'CONTRACT_CLOSED_GOAL_ID', 'CONTRACT_ALLOW_WRITES', 'CONTRACT_REPORT', 'CONTRACT_TIMEOUT_MS']));
  });
});

describe('npm run contract with a bad configuration', () => {
  it.each([
    ['no CONTRACT_BASE_URL', {}, 'CONTRACT_BASE_URL'],
    ['a malformed CONTRACT_BASE_URL', { CONTRACT_BASE_URL: 'not a url' }, 'CONTRACT_BASE_URL'],
    ['another machine without CONTRACT_ALLOW_WRITES', { CONTRACT_BASE_URL: 'https://staging.example.invalid' }, 'CONTRACT_ALLOW_WRITES'],
    ['a malformed CONTRACT_TIMEOUT_MS', { CONTRACT_BASE_URL: 'http://127.0.0.1:9', CONTRACT_TIMEOUT_MS: '5s' }, 'CONTRACT_TIMEOUT_MS'],
    ['a malformed id', { CONTRACT_BASE_URL: 'http://127.0.0.1:9', CONTRACT_OPEN_GOAL_ID: 'no such id!' }, 'CONTRACT_OPEN_GOAL_ID'],
    ['nothing listening at CONTRACT_BASE_URL', { CONTRACT_BASE_URL: 'http://127.0.0.1:9' }, 'CONTRACT_BASE_URL'],
  ])('exits 2 with one line naming the variable: %s', { timeout: 120_000 }, async (_case, env, variable) => {
    // Generous: on a 2-core machine running the rest of npm test beside it, a child can wait long for a core.
    const run = await runContract(env, 90_000);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^contract: ${variable}: `));
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
    expect(summaryOf(run.stdout)?.passed).toBe(0);
    expect(run.ms).toBeLessThan(30_000);
  });
});
