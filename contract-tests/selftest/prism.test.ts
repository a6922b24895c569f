// Prism, a second implementation of the spec that knows nothing of production's behaviour, must FAIL the suite, and
// the report must name the auth rule it breaks: it accepts any bearer token (RULES.md#checking-the-token).
//
// Prism 5.16 cannot load generated/openapi.json as it is: its schema graph is cyclic (Person → Company → Person, …)
// and Prism spends minutes at "Starting Prism…" walking it. So Prism gets the shipped acyclic export,
// generated/openapi.acyclic.json (spec/lib/acyclic.ts): the same routes, security, schemas and examples, with each
// cycle cut at a back-reference.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { texts } from '../../spec/lib/messages.ts';
import { dereference, isObject, loadDocument, pointerTo, type JsonObject } from '../../spec/lib/openapi.ts';
import { ACYCLIC_DOCUMENT_URL } from '../../spec/lib/files.ts';
import { freePort } from '../../spec/lib/ports.ts';
import { operationModels } from '../model/profiles.ts';
import { ROOT, runContract, summaryOf, withOutput } from './support.ts';

const PRISM = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');

let prism: ChildProcess | undefined;
let url = '';
let log = '';

beforeAll(async () => {
  const file = fileURLToPath(ACYCLIC_DOCUMENT_URL);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [PRISM, 'mock', file, '-p', String(port), '-h', '127.0.0.1'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  prism = child;
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (log.includes('Prism is listening')) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`prism exited (${code}) before listening:\n${log}`));
    });
  });
}, 90_000);

afterAll(() => {
  if (prism?.pid !== undefined && prism.exitCode === null) prism.kill('SIGTERM');
});

describe('npm run contract against Prism (prism mock on the spec)', () => {
  it("gives Prism the spec's routes, security and named request examples", () => {
    const parsed: unknown = JSON.parse(readFileSync(ACYCLIC_DOCUMENT_URL, 'utf8'));
    if (!isObject(parsed)) throw new Error('generated/openapi.acyclic.json is not an object');
    const document: JsonObject = parsed;
    for (const op of operationModels()) {
      const pointer = pointerTo('paths', op.path, op.method.toLowerCase());
      const operation = dereference(document, pointer).value;
      expect(isObject(operation) && operation['operationId'], op.operationId).toBe(op.operationId);
      const examples = dereference(document, `${pointer}/requestBody/content/application~1json/examples`).value;
      const values = isObject(examples)
        ? Object.keys(examples).map((name) => {
            const example = dereference(document, `${pointer}/requestBody/content/application~1json/examples/${pointerTo(name).slice(2)}`).value;
            return isObject(example) ? example['value'] : undefined;
          })
        : [];
      expect(values).toEqual(op.examples.map((e) => e.value));
    }
    expect(document['security']).toEqual(loadDocument()['security']);
  });

  it('fails (exit 1), naming the auth rule Prism breaks: any bearer token is accepted, read-only included', { timeout: 180_000 }, async () => {
    const example = (op: string, field: string): string => {
      const model = operationModels().find((m) => m.operationId === op);
      const value = model?.examples[0]?.value[field];
      return typeof value === 'string' ? value : '';
    };
    const token = (n: number): string => `opk_${String(n).repeat(43)}`;
    const run = await runContract({
      CONTRACT_BASE_URL: url,
      CONTRACT_TOKEN: token(1),
      CONTRACT_READ_ONLY_TOKEN: token(2),
      CONTRACT_COMMENT_ONLY_TOKEN: token(3),
      CONTRACT_NO_ACCESS_TOKEN: token(4),
      CONTRACT_SUSPENDED_TOKEN: token(5),
      CONTRACT_PAUSED_PROJECT_ID: example('resumeProject', 'project_id'),
      CONTRACT_ACTIVE_PROJECT_ID: example('resumeProject', 'project_id'),
      CONTRACT_CLOSED_PROJECT_ID: example('resumeProject', 'project_id'),
      CONTRACT_OPEN_GOAL_ID: example('closeGoal', 'goal_id'),
      CONTRACT_CLOSED_GOAL_ID: example('closeGoal', 'goal_id'),
      CONTRACT_NUM_RUNS: '5',
      // Prism never answers a body that is not JSON: do not wait 5 s for each of those.
      CONTRACT_TIMEOUT_MS: '2500',
    });
    // A failure here prints the run's whole output (withOutput), so a flaky one can be read.
    withOutput(run, () => {
      expect(run.code).toBe(1);
      expect(summaryOf(run.stdout)?.failed).toBeGreaterThan(0);
      for (const op of operationModels()) {
        expect(run.stdout).toMatch(new RegExp(`^${op.operationId} +auth +\\d+ +[1-9]\\d* +\\d+ +✗$`, 'm'));
        expect(run.stdout).toContain(`✗ FAIL ${op.operationId} > auth > An unknown token in production format (opk_ + 43 characters) is refused with 401`);
        expect(run.stdout).toContain(`✗ FAIL ${op.operationId} > auth > A read-only token is refused with 403 ${JSON.stringify(texts.readOnly)} in plain text`);
        expect(run.stdout).toContain(`✗ FAIL ${op.operationId} > permissions > A suspended person's token is refused with 401`);
      }
      expect(run.stdout).toContain(`expected 401 ${JSON.stringify(texts.unauthorized)} in plain text; got 200`);
      expect(run.stdout).toContain(`expected 403 ${JSON.stringify(texts.readOnly)} in plain text; got 200`);
    });
  });
});
