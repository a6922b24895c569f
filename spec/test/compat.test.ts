// The cheap, decisive part of `npm run compat` (spec/compat/compat.ts), in npm test: Prism, a chosen dependency of
// the package's own tests, starts on the acyclic export and answers a valid resume. The matrix's other tools (among
// them swagger-parser and openapi-zod-client) are installed only when someone runs the matrix; their decisive checks
// are spec/compat/compat.test.ts (`npm --prefix spec/compat test`, after `npm run compat` installed them).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObject } from '../lib/openapi.ts';
import { FILES, prismMock } from '../tools/prism.ts';

/** The dependency names and ranges a package.json (path from the root) declares in `field`. */
function declared(path: string, field: string): Record<string, unknown> {
  const manifest: unknown = JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));
  const dependencies = isObject(manifest) ? manifest[field] : undefined;
  return isObject(dependencies) ? dependencies : {};
}

describe('the matrix is opt-in', () => {
  it("its tools are spec/compat's own dependencies, pinned to exact versions, and none of them the root's", () => {
    const tools = declared('spec/compat/package.json', 'devDependencies');
    expect(Object.keys(tools)).toContain('openapi-zod-client');
    expect(Object.keys(tools)).toContain('@apidevtools/swagger-parser');
    for (const [name, range] of Object.entries(tools)) expect(range, name).toMatch(/^\d+\.\d+\.\d+$/);
    const root = { ...declared('package.json', 'dependencies'), ...declared('package.json', 'devDependencies') };
    expect(Object.keys(tools).filter((name) => name in root)).toEqual([]);
    const lock: unknown = JSON.parse(readFileSync(new URL('../compat/package-lock.json', import.meta.url), 'utf8'));
    const locked = isObject(lock) && isObject(lock['packages']) ? lock['packages'] : {};
    for (const [name, version] of Object.entries(tools)) {
      const entry = locked[`node_modules/${name}`];
      expect(isObject(entry) ? entry['version'] : undefined, name).toBe(version);
    }
  });
});

describe('tools on the acyclic export', () => {
  // A limit on hanging, not on speed (the bench measures Prism's start): a loaded machine may take much longer.
  it("prism mock starts on it and answers a valid resume (the spec's example) with 200", { timeout: 90_000 }, async () => {
    const result = await prismMock(FILES.acyclic);
    expect(result.note).toMatch(/^listening after/);
    expect(result.ok).toBe(true);
  });
});
