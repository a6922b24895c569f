// Where the generated documents are on disk, for the Node tools that read them as files (the docs build, the bench,
// the compatibility runs, tests). Kept out of openapi.ts, which a browser bundle loads: a bundler would copy every
// file a `new URL(…, import.meta.url)` names into the build, and the types would need Node's URL.

/** The bundled document as users get it, prose included (the docs page renders it). */
export const DOCUMENT_URL = new URL('../../generated/openapi.json', import.meta.url);
/** The acyclic projection of the same document, for tools that cannot load cycles (spec/lib/acyclic.ts). */
export const ACYCLIC_DOCUMENT_URL = new URL('../../generated/openapi.acyclic.json', import.meta.url);

/** The bundled document with its prose, read from disk (loadDocument() in openapi.ts is the run-time one, without). */
export async function loadFullDocument(): Promise<import('./openapi.ts').JsonObject> {
  const { readFileSync } = await import('node:fs');
  const parsed: unknown = JSON.parse(readFileSync(DOCUMENT_URL, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('generated/openapi.json is not an OpenAPI document; run npm run generate');
  return parsed as import('./openapi.ts').JsonObject;
}
