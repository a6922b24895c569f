// The decisive checks of the matrix's own tools (`npm --prefix spec/compat test`, once `npm run compat` installed
// them; npm test runs the Prism one, spec/test/compat.test.ts): openapi-zod-client, which failed on the cyclic spec,
// works on the acyclic export, both files validate in swagger-parser, and swagger-parser still rejects a server
// variable with a description (why the spec has none there).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isObject } from '../lib/openapi.ts';
import { FILES } from '../tools/prism.ts';
import { swaggerParserValidate, zodClient } from './compat.ts';

const work = mkdtempSync(join(tmpdir(), 'spec-compat-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tools on the acyclic export', () => {
  it("openapi-zod-client's output for it compiles with tsc (strict) and imports", { timeout: 180_000 }, async () => {
    const result = await zodClient(FILES.acyclic, join(work, 'zod-client'));
    expect(result.note).toMatch(/^0 tsc errors, imports/);
    expect(result.ok).toBe(true);
  });
});

describe('@apidevtools/swagger-parser validate()', () => {
  it.each(Object.entries(FILES))('passes on the %s file', { timeout: 60_000 }, async (_name, file) => {
    expect(await swaggerParserValidate(file)).toEqual({ ok: true, note: 'valid' });
  });

  it('fails, naming the place, on a server variable with a description (why the spec has none there)', { timeout: 60_000 }, async () => {
    const document: unknown = JSON.parse(readFileSync(FILES.literal, 'utf8'));
    const server = isObject(document) && Array.isArray(document['servers']) ? document['servers'][0] : undefined;
    const variables = isObject(server) && isObject(server['variables']) ? server['variables'] : {};
    const variable = variables['base_url'];
    if (!isObject(variable)) throw new Error('the spec has no base_url server variable');
    variable['description'] = 'The origin of the service.';
    const copy = join(work, 'with-variable-description.json');
    writeFileSync(copy, JSON.stringify(document));
    const result = await swaggerParserValidate(copy);
    expect(result.ok).toBe(false);
    expect(result.note).toContain('#/servers/0/variables/base_url must NOT have unevaluated properties');
  });
});
