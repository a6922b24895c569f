// generated/openapi.runtime.json, the document the package's code reads (spec/lib/openapi.ts), against
// generated/openapi.json, the one users get: the same document but for its prose. A stripped example value, schema
// keyword or name would change what the mock answers or checks; only `description`, `externalDocs` and `$comment`
// keywords may be gone.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObject, loadDocument } from '../lib/openapi.ts';
import { DOCUMENT_URL } from '../lib/files.ts';

const full: unknown = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8'));
const PROSE = new Set(['description', 'externalDocs', '$comment']);

/** Where `runtime` differs from `original` other than by a prose keyword left out. */
function differences(original: unknown, runtime: unknown, path: string, out: string[]): string[] {
  if (Array.isArray(original) && Array.isArray(runtime) && original.length === runtime.length) {
    for (const [i, item] of original.entries()) differences(item, runtime[i], `${path}/${i}`, out);
    return out;
  }
  if (!isObject(original) || !isObject(runtime)) {
    if (JSON.stringify(original) !== JSON.stringify(runtime)) out.push(path);
    return out;
  }
  for (const key of Object.keys(original)) {
    if (!(key in runtime)) {
      if (!PROSE.has(key) || typeof original[key] === 'object') out.push(`${path}/${key} is missing`);
      continue;
    }
    differences(original[key], runtime[key], `${path}/${key}`, out);
  }
  for (const key of Object.keys(runtime)) if (!(key in original)) out.push(`${path}/${key} was added`);
  return out;
}

describe('the run-time document', () => {
  it('is the bundled document without its prose: every schema keyword, name, example and value kept', () => {
    expect(differences(full, loadDocument(), '', [])).toEqual([]);
  });

  // The examples are data the run time needs (the seed is built from them, `Prefer: example=` answers them) and each 200
  // example is the mock's whole answer (npm run examples), so they stay; the prose is the rest.
  it('is at most 65 % of the bytes (the prose is the rest)', () => {
    expect(JSON.stringify(loadDocument()).length).toBeLessThan(JSON.stringify(full).length * 0.65);
  });
});
