// The gate as an attacker would feed it (issue 33): a pull request's spec is input. A $ref out of the spec's folder
// (absolute, `..`, a symlink, in a file or at a git ref), a URL, an alias bomb, a document nested 100,000 deep, a
// cycle of $refs: each is exit 2 with one line naming it, no file outside the spec is read (its content never
// appears) and no request is made (a loopback server counts them).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_LIMITS } from '../diff/read-spec-files.ts';
import { type Ran, run, tempRepo } from './temp-repo.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const diff = (args: string[], cwd = ROOT, bin = join(ROOT, 'cli', 'bin.cjs')): Promise<Ran> => run(process.execPath, [bin, 'diff', ...args], cwd);

const work = mkdtempSync(join(tmpdir(), 'diff-input-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A secret outside every spec folder: its text must never be printed. */
const SECRET = 'TOP-SECRET-a5f3e1';
const secretFile = join(work, 'secret.yaml');
writeFileSync(secretFile, `openapi: 3.1.0\nsecret: ${SECRET}\n`);

/** A one-file document whose one path item is `$ref: <ref>`, in a folder of its own below `work`. */
function pointingAt(name: string, ref: string): string {
  const dir = join(work, name, 'spec');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'openapi.yaml');
  writeFileSync(file, `openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths:\n  /a:\n    $ref: ${JSON.stringify(ref)}\n`);
  return file;
}

const expectOneLine = (ran: Ran, pattern: RegExp): void => {
  expect([ran.code, ran.stdout]).toEqual([2, '']);
  expect(ran.stderr.endsWith('\n')).toBe(true);
  expect(ran.stderr.trim().split('\n')).toHaveLength(1);
  expect(ran.stderr.trim()).toMatch(pattern);
  expect(ran.stderr).not.toContain(SECRET);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
};

describe('a $ref that leaves the spec is refused, naming the reference, and nothing outside is read', () => {
  const symlinked = pointingAt('symlink', 'paths/item.yaml');
  mkdirSync(join(work, 'symlink', 'spec', 'paths'));
  symlinkSync(secretFile, join(work, 'symlink', 'spec', 'paths', 'item.yaml'));
  it.each([
    ['an absolute path', pointingAt('absolute', secretFile), /: \$ref ".*secret\.yaml" at openapi\.yaml\/paths\/~1a\/\$ref leaves the spec's folder/],
    ['/proc/self/environ', pointingAt('proc', '/proc/self/environ'), /\$ref "\/proc\/self\/environ" .* leaves the spec's folder/],
    ['a path up and out', pointingAt('up', '../../secret.yaml'), /\$ref "\.\.\/\.\.\/secret\.yaml" .* leaves the spec's folder/],
    ['a file URL', pointingAt('file-url', `file://${secretFile}`), /\$ref "file:\/\/.*" .* is a URL: .*nothing is fetched/],
    ['a percent-encoded way up', pointingAt('encoded', '%2e%2e/%2e%2e/secret.yaml'), /leaves the spec's folder/],
    ['a symlink out of the folder', symlinked, /\$ref "paths\/item\.yaml" .* leaves the spec's folder/],
  ])('%s: exit 2, one line', async (_what, file, pattern) => {
    expectOneLine(await diff(['generated/openapi.json', file]), pattern);
  });

  it('an http $ref: exit 2, and the (loopback) server it names is never asked', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end(`openapi: 3.1.0\nsecret: ${SECRET}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const file = pointingAt('http', `http://127.0.0.1:${port}/item.yaml`);
      expectOneLine(await diff(['generated/openapi.json', file]), /\$ref "http:\/\/127\.0\.0\.1:\d+\/item\.yaml" .* is a URL/);
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it('a $ref out of spec/ at a git ref (a pull request): exit 2, naming it', async () => {
    // A repository of its own (never this checkout's git): the code, and a commit whose spec names a file above it.
    const { dir: repo, git } = await tempRepo(join(work, 'repo'));
    const path = join(repo, 'spec', 'paths', 'projects_resume.yaml');
    writeFileSync(path, `$ref: '../../../secret.yaml'\n`);
    symlinkSync('/proc/self/environ', join(repo, 'spec', 'paths', 'environ.yaml'));
    expect((await git(['commit', '--quiet', '-am', 'hostile'])).code).toBe(0);
    const bin = join(repo, 'cli', 'bin.cjs');
    expectOneLine(
      await diff(['git:HEAD~1', 'git:HEAD'], repo, bin),
      /^error: git:HEAD: \$ref "\.\.\/\.\.\/\.\.\/secret\.yaml" at paths\/projects_resume\.yaml\/\$ref leaves the spec's folder/,
    );
    // A symlink committed into spec/ that points out of it is refused the same way.
    writeFileSync(path, `$ref: 'environ.yaml'\n`);
    expect((await git(['add', '-A'])).code).toBe(0);
    expect((await git(['commit', '--quiet', '-m', 'symlink'])).code).toBe(0);
    expectOneLine(await diff(['git:HEAD~2', 'git:HEAD'], repo, bin), /^error: git:HEAD: \$ref "environ\.yaml" .* leaves the spec's folder/);
  }, 120_000);
});

describe('input that is only odd: exit 2 with one line, also with --fail-on never', () => {
  const file = (name: string, text: string): string => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };
  // The billion laughs in 600 bytes: nine anchors, each a list of nine aliases of the one before.
  const bomb = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...Array.from({ length: 9 }, (_, i) => {
      const [name, previous] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
      return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`;
    }),
  ].join('\n');
  it.each([
    ['a YAML alias bomb', file('bomb.yaml', bomb), new RegExp(`bomb\\.yaml: YAML aliases expand beyond ${READ_LIMITS.aliases}`)],
    ['100,000 nested block sequences', file('deep.yaml', `${'- '.repeat(100_000)}x\n`), /deep\.yaml: nested deeper than 128 levels/],
    ['100,000 nested flow sequences', file('flow.yaml', `${'['.repeat(100_000)}${']'.repeat(100_000)}\n`), /flow\.yaml: nested deeper than 128 levels/],
    ['100,000 nested JSON arrays', file('deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`), /deep\.json: nested deeper than 128 levels/],
    [
      'a cycle of $refs',
      file(
        'cycle.yaml',
        'openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths: {}\ncomponents:\n  schemas:\n    A: {$ref: "#/components/schemas/B"}\n    B: {$ref: "#/components/schemas/A"}\n',
      ),
      /cycle\.yaml: a \$ref cycle: cycle\.yaml#\/components\/schemas\/[AB] refers back to itself/,
    ],
    [
      'a $ref to a part that is not there',
      file('dangling.yaml', 'openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths:\n  /a: {$ref: "#/nowhere"}\n'),
      /a \$ref cannot be resolved \(#\/nowhere is not in dangling\.yaml/,
    ],
    ['not YAML at all', file('broken.yaml', 'openapi: [3.1.0\n  : :\n'), /broken\.yaml: not YAML \(/],
    ['a list, not a document', file('list.yaml', '- 1\n- 2\n'), /list\.yaml: not an OpenAPI 3 document/],
  ])('%s', async (_what, path, pattern) => {
    expectOneLine(await diff(['generated/openapi.json', path, '--fail-on', 'never']), pattern);
  });
});
