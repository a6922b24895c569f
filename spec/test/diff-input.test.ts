// The gate as an attacker would feed it: a pull request's spec is input. A $ref out of the spec's folder
// (absolute, `..`, a symlink, in a file or at a git ref), a URL, an alias bomb, a document nested 100,000 deep, a
// cycle of $refs: each is exit 2 with one line naming it, no file outside the spec is read (its content never
// appears) and no request is made (a loopback server counts them). One budget bounds all a document reaches, spec/ at
// a git ref is measured before it is written out, and each file is read through the handle that was checked.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_LIMITS, readBounded } from '../diff/read-spec-files.ts';
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
    // Checked in one pass over the map (the parser's own check is quadratic in the number of keys).
    [
      'a key repeated in a nested map',
      file('repeated.yaml', 'openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths:\n  /a:\n    post: {}\n    get: {}\n    post: {}\n'),
      /repeated\.yaml: not YAML \(Map keys must be unique: "post"\)$/,
    ],
    ['a list, not a document', file('list.yaml', '- 1\n- 2\n'), /list\.yaml: not an OpenAPI 3 document/],
  ])('%s', async (_what, path, pattern) => {
    expectOneLine(await diff(['generated/openapi.json', path, '--fail-on', 'never']), pattern);
  });
});

describe('budgets and one open handle per file: exit 2 with one line, before any slow work', () => {
  /** A folder with a root document whose paths $ref each of `files` (name → content), written below `work`. */
  function documentWith(name: string, files: Record<string, string | Buffer>): string {
    const dir = join(work, name, 'spec');
    mkdirSync(dir, { recursive: true });
    const refs = Object.keys(files).map((file, i) => `  /p${i}:\n    $ref: ${JSON.stringify(file)}\n`);
    writeFileSync(join(dir, 'openapi.yaml'), `openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths:\n${refs.join('')}`);
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content);
    return join(dir, 'openapi.yaml');
  }
  /** A JSON path item of about `mb` MB (cheap to parse: one long string). */
  const pathItem = (mb: number): string => JSON.stringify({ post: { responses: { 200: { description: 'ok' } } }, 'x-pad': 'x'.repeat(mb * 1024 * 1024 - 100) });

  it('a file over the per-file limit is refused from its size, unread', async () => {
    const file = documentWith('big', { 'big.json': pathItem(READ_LIMITS.fileBytes / 1024 / 1024 + 1) });
    expectOneLine(await diff(['generated/openapi.json', file]), /^error: .*openapi\.yaml: big\.json is over 8 MB$/);
  });

  it('files each under the per-file limit but over the total: refused at the file that crosses it', async () => {
    const each = 6;
    const count = Math.ceil(READ_LIMITS.totalBytes / (each * 1024 * 1024)) + 1;
    const files = Object.fromEntries(Array.from({ length: count }, (_, i) => [`part${i}.json`, pathItem(each)]));
    const ran = await diff(['generated/openapi.json', documentWith('total', files)]);
    expectOneLine(ran, /^error: .*openapi\.yaml: part\d+\.json takes the files this document reaches over 16 MB in all$/);
  });

  it('the total is checked before anything is parsed: files that are not even YAML are refused for their bytes', async () => {
    const broken = `x: [${'y'.repeat(6 * 1024 * 1024)}\n`;
    const files = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`broken${i}.yaml`, broken]));
    const ran = await diff(['generated/openapi.json', documentWith('unparsed', files)]);
    expectOneLine(ran, /^error: .*openapi\.yaml: broken\d\.yaml takes the files this document reaches over 16 MB in all$/);
  });

  it('a FIFO is refused at once, never waited on, whether named or reached by a $ref', async () => {
    const dir = join(work, 'fifo', 'spec');
    mkdirSync(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, 'item.yaml')]);
    execFileSync('mkfifo', [join(dir, 'root.yaml')]);
    writeFileSync(join(dir, 'openapi.yaml'), 'openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths:\n  /a:\n    $ref: item.yaml\n');
    expectOneLine(await diff(['generated/openapi.json', join(dir, 'openapi.yaml')]), /item\.yaml is not a regular file/);
    expectOneLine(await diff(['generated/openapi.json', join(dir, 'root.yaml')]), /root\.yaml is not a regular file/);
  });

  it('reads what it checked: a path swapped for a FIFO or a symlink after the check is refused, not followed', () => {
    // readBounded is what readSpecFiles reads through, with the path it has confined: the swap happens before it.
    const dir = mkdtempSync(join(work, 'swap-'));
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(() => readBounded(fifo, READ_LIMITS.fileBytes, 'fifo.yaml')).toThrow(/^fifo\.yaml is not a regular file/);
    const link = join(dir, 'link.yaml');
    symlinkSync(secretFile, link);
    expect(() => readBounded(link, READ_LIMITS.fileBytes, 'link.yaml')).toThrow(/^link\.yaml is a symlink/);
    expect(() => readBounded(dir, READ_LIMITS.fileBytes, 'dir')).toThrow(/^dir is not a regular file/);
    const plain = join(dir, 'plain.yaml');
    writeFileSync(plain, 'a: 1\n');
    expect(readBounded(plain, 5, 'plain.yaml')).toBe('a: 1\n');
    expect(() => readBounded(plain, 4, 'plain.yaml')).toThrow(/^plain\.yaml is over /);
  });

  it("spec/ at a git ref over the file count or the byte budget is refused from git's listing, before it is written out", async () => {
    const { dir: repo, git } = await tempRepo(join(work, 'repo-budget'));
    const bin = join(repo, 'cli', 'bin.cjs');
    mkdirSync(join(repo, 'spec', 'many'));
    for (let i = 0; i <= READ_LIMITS.treeFiles; i++) writeFileSync(join(repo, 'spec', 'many', `${i}.yaml`), `n: ${i}\n`);
    expect((await git(['add', '-A'])).code).toBe(0);
    expect((await git(['commit', '--quiet', '-m', 'many files'])).code).toBe(0);
    expectOneLine(
      await diff(['git:HEAD~1', 'git:HEAD'], repo, bin),
      new RegExp(`^error: git:HEAD: spec/ holds \\d+ files, over the ${READ_LIMITS.treeFiles} the diff reads at a git ref$`),
    );
    expect((await git(['rm', '-r', '--quiet', 'spec/many'])).code).toBe(0);
    // Zeros compress to nothing in git, but would unpack to their full size.
    writeFileSync(join(repo, 'spec', 'zeros.bin'), Buffer.alloc(READ_LIMITS.treeBytes + 1));
    expect((await git(['add', '-A'])).code).toBe(0);
    expect((await git(['commit', '--quiet', '-m', 'big file'])).code).toBe(0);
    expectOneLine(
      await diff(['git:HEAD~2', 'git:HEAD'], repo, bin),
      new RegExp(`^error: git:HEAD: spec/ holds \\d+\\.\\d MB, over the ${READ_LIMITS.treeBytes / 1024 / 1024} MB the diff reads at a git ref$`),
    );
    // The ref before both is read as ever.
    const same = await diff(['git:HEAD~2', 'git:HEAD~2', '--format', 'json'], repo, bin);
    expect([same.code, same.stderr]).toEqual([0, '']);
  }, 120_000);
});
