// Views of the persona table in the READMEs. The table has one home, the `x-persona` rows of mock/openapi.yaml's
// Fixtures tokens; `npm run generate` writes each view between its markers and `npm run check:generated` fails when a
// view is not what the rows give, so a README never restates the table by hand.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isObject } from '../lib/openapi.ts';

/** A persona as the views need it: its name, its token's description, and its row. */
type PersonaView = { persona: string; description: string; token: string; records: string; person: string; title?: string };

/** A document's generated part: the file (from the repository's root), what stands between the markers. */
export type DocView = { file: string; name: string; text: string };

const MOCK_DOCUMENT = 'mock/openapi.yaml';

function personaRows(root: string): PersonaView[] {
  const document: unknown = parse(readFileSync(join(root, MOCK_DOCUMENT), 'utf8'));
  const schemas = isObject(document) && isObject(document['components']) ? document['components']['schemas'] : undefined;
  const fixtures = isObject(schemas) ? schemas['Fixtures'] : undefined;
  const tokens = isObject(fixtures) && isObject(fixtures['properties']) ? fixtures['properties']['tokens'] : undefined;
  const properties = isObject(tokens) && isObject(tokens['properties']) ? tokens['properties'] : {};
  return Object.entries(properties).map(([persona, property]) => {
    const row = isObject(property) ? property['x-persona'] : undefined;
    // generate.ts's personaTableSource has already refused a malformed row; this only reads.
    const field = (key: string): string => (isObject(row) && typeof row[key] === 'string' ? row[key] : '');
    const description = isObject(property) && typeof property['description'] === 'string' ? property['description'] : '';
    const title = field('title');
    return { persona, description, token: field('token'), records: field('records'), person: field('person'), ...(title ? { title } : {}) };
  });
}

/** What a write by the persona answers on every seeded record, with the RULES.md row of its body. */
function writeAnswer(view: PersonaView): string {
  if (view.token === 'read-only') return '403, plain text ([RULES.md#error-22](../RULES.md#error-22))';
  if (view.token === 'refused') return '401, plain text ([RULES.md#error-21](../RULES.md#error-21))';
  if (view.records === 'view') return '403 JSON ([RULES.md#error-25](../RULES.md#error-25))';
  if (view.records === 'none') return '404 JSON ([RULES.md#error-24](../RULES.md#error-24))';
  return '200';
}

const whose = (view: PersonaView): string => (view.title ? `${view.person} (${view.title})` : view.person);

/** The contract suite's variable for a persona: `tokens.X` → `CONTRACT_X_TOKEN`, `full_access` → `CONTRACT_TOKEN`. */
const variableOf = (persona: string): string => (persona === 'full_access' ? 'CONTRACT_TOKEN' : `CONTRACT_${persona.toUpperCase()}_TOKEN`);

/** Every view of the persona table, as each README shows it. */
export function docViews(root: string): DocView[] {
  const rows = personaRows(root);
  return [
    {
      file: 'mock/README.md',
      name: 'personas',
      text: [
        '| persona | whose token | what it is | a write to a seeded project or goal answers |',
        '|---|---|---|---|',
        ...rows.map((r) => `| \`${r.persona}\` | ${whose(r)} | ${r.description} | ${writeAnswer(r)} |`),
      ].join('\n'),
    },
    {
      file: 'contract-tests/README.md',
      name: 'persona-variables',
      text: [
        "| variable | whose token (the mock's persona) | a write to the fixtures answers | default |",
        '|---|---|---|---|',
        ...rows.map((r) => `| \`${variableOf(r.persona)}\` | \`${r.persona}\`: ${r.description} | ${writeAnswer(r)} | read from the mock |`),
      ].join('\n'),
    },
  ];
}

const begin = (name: string): string => `<!-- generated: ${name} (npm run generate writes this from ${MOCK_DOCUMENT}; do not edit) -->`;
const end = (name: string): string => `<!-- /generated: ${name} -->`;

/** The document with the view between its markers, or an error naming the missing marker. */
export function withView(document: string, view: DocView): string {
  const from = document.indexOf(begin(view.name));
  const to = document.indexOf(end(view.name));
  if (from < 0 || to < from) throw new Error(`${view.file}: the markers ${begin(view.name)} … ${end(view.name)} are missing`);
  return `${document.slice(0, from + begin(view.name).length)}\n${view.text}\n${document.slice(to)}`;
}
