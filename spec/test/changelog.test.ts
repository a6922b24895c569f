// A release's CHANGELOG section is read by the API's consumers: one line per change they can act
// on, naming every operation it reaches once, and one line per kind of change that asks nothing of them (descriptions,
// header documentation, the spec's structure, the mock's test cases) instead of a bullet per internal edit and
// operation (the 0.1.0 → 0.2.0 section had 42 "Safe" bullets such as "HeadersMap at … was added").
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Change, diffDocuments, formatChangelog, withChanges } from '../diff/diff.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

const change = (
  id: string,
  level: Change['level'],
  operations: string[],
  message: string,
  direction: Change['direction'] = 'response',
  pointer = `#/x/${id}`,
): Change => ({
  id,
  level,
  direction,
  operation: operations[0] ?? null,
  operations,
  pointer,
  message,
});
const section = (changes: Change[]): string =>
  formatChangelog(withChanges({ base: '0.1.0', revision: '0.2.0', changes: [], counts: { ERR: 0, WARN: 0, INFO: 0 } }, changes));
const bullets = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('- '));

describe('formatChangelog', () => {
  it('lists a change once, naming every operation it reaches, and once for both directions when the words are the same', () => {
    const text = section([
      change('property-removed', 'ERR', ['resumeProject', 'closeGoal'], 'Property `closed_at` of `Goal` was removed.'),
      change('schema-type-changed', 'ERR', ['closeGoal'], 'The type at /Goal/name changed.', 'request', '#/a'),
      change('schema-type-changed', 'ERR', ['resumeProject'], 'The type at /Goal/name changed.', 'response', '#/a'),
    ]);
    expect(text).toBe(
      [
        '### Breaking',
        '',
        '- `closeGoal`, `resumeProject`: The type at /Goal/name changed. (request, response, `schema-type-changed`)',
        '- `closeGoal`, `resumeProject`: Property `closed_at` of `Goal` was removed. (response, `property-removed`)',
        '',
      ].join('\n'),
    );
  });

  it('folds what asks nothing of a client into one line per kind, with how many and where', () => {
    const noise = [
      ...['Forbidden', 'NotFound', 'Unauthorized'].map((name) =>
        change(
          'headers-map-added',
          'INFO',
          ['closeGoal', 'resumeProject'],
          `HeadersMap at /components/responses/${name}/headers was added.`,
          'response',
          `#/components/responses/${name}/headers`,
        ),
      ),
      change(
        'schema-pattern-modified',
        'INFO',
        ['closeGoal'],
        'Schema pattern at /components/headers/RequestId/schema changed.',
        'response',
        '#/components/headers/RequestId/schema/pattern',
      ),
      change('documentation-changed', 'INFO', [], 'The description at /info changed.', 'document'),
      change('documentation-changed', 'INFO', ['closeGoal'], 'The description at /components/responses/Unauthorized changed.'),
      change('spec-extension-added', 'INFO', [], 'SpecExtension at /components/x-messages was added.', 'document'),
      change('behaviour-case-added', 'INFO', ['closeGoal'], 'New behaviour cases: 1 case, e.g. x.'),
      change('link-added', 'INFO', ['resumeProject'], 'Link at /x was added.'),
      change('response-property-added', 'INFO', ['resumeProject'], 'Property `paused_at` was added to the response at /Project.'),
    ];
    const text = section(noise);
    expect(bullets(text)).toEqual([
      '- `resumeProject`: Property `paused_at` was added to the response at /Project. (response, `response-property-added`)',
      '- Documentation: 3 descriptions, examples or notes edited (`closeGoal` and the document as a whole); no change to what a client sends or reads.',
      '- Response headers described more precisely: 4 edits of the spec (`closeGoal`, `resumeProject`); the headers sent are unchanged.',
      "- The mock's behaviour table checks 1 case more or fewer (`closeGoal`): what is tested, not what a client gets.",
      "- The spec's structure: 1 edit with no effect on a client (`resumeProject`) (`service-external-api diff` lists each).",
    ]);
    expect(text).not.toContain('HeadersMap');
    expect(text.match(/^### /gm)).toEqual(['### ']);
  });

  it('says so when nothing changed', () => {
    expect(section([])).toBe('- No change to the contract.\n');
  });

  it("on this package's own spec since its last release: a handful of lines, none about the diff engine's internals", async () => {
    const releases = readdirSync(join(ROOT, 'spec', 'releases'))
      .filter((f) => /^\d+\.\d+\.\d+\.json$/.test(f))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    const report = await diffDocuments(join(ROOT, 'spec', 'releases', releases.at(-1) ?? ''), join(ROOT, 'spec', 'openapi.yaml'));
    const text = formatChangelog(
      withChanges(
        report,
        report.changes.filter((c) => c.id !== 'api-version-changed' && c.id !== 'api-version-not-bumped'),
      ),
    );
    const lines = bullets(text);
    // Not a bullet per change and operation, and no line is a change's internal type name.
    expect(lines.length).toBeLessThanOrEqual(report.changes.filter((c) => c.level !== 'INFO').length + 6);
    for (const line of lines) expect(line).not.toMatch(/\b(HeadersMap|SpecExtension|MediaTypesMap)\b/);
    expect(lines.length).toBeGreaterThan(0);
  }, 60_000);
});
