// `service-external-api coverage FILE… [--min KEY=PERCENT,…] [--format text|json]`: merges coverage files of one shape
// (contract --coverage, drift --coverage, the proxy's GET /__proxy/summary) into one (merge.ts), prints a line per
// operation, and exits 1 when an operation is below a minimum, 2 on bad input (one line).
import { readFileBounded } from '../../spec/lib/read-file.ts';
import { failWith, oneOf, parseCommand } from '../har/args.ts';
import { COVERAGE_KEYS, CoverageInputError, fractions, mergeReports, parseMinimums, percent, reportOf, type CoverageKey } from './merge.ts';

const COVERAGE_USAGE = `Usage: service-external-api coverage FILE… [--min KEY=PERCENT,…] [--format text|json]

Merges coverage files of the same shape (contract --coverage FILE, drift --coverage FILE, the proxy's
GET /__proxy/summary saved to a file) into one and prints one line per operation: documented statuses seen, request
fields and enum values sent, response fields seen non-null, rules run.

  --min KEY=PERCENT,…  fail (exit 1) when an operation is below the minimum; KEY one of ${COVERAGE_KEYS.join(', ')}
                       (e.g. --min statuses=90,rules=100)
  --format F           text (default) or json (the merged coverage, with each operation's percentages)
  --help               show this help

Exit: 0 every minimum met, 1 one is not, 2 bad input (one line on stderr).`;

const OPTIONS = { min: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean' } } as const;
const fail: (message: string) => never = failWith('coverage');
const MAX_BYTES = 16 * 1024 * 1024;

export async function runCoverage(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand('coverage', argv, OPTIONS);
  if (values.help) {
    process.stdout.write(`${COVERAGE_USAGE}\n`);
    return;
  }
  const format = oneOf('coverage', '--format', values.format, ['text', 'json'], 'text');
  if (positionals.length === 0) fail('give at least one coverage file (see --help)');
  let minimums: Partial<Record<CoverageKey, number>> = {};
  try {
    minimums = parseMinimums(values.min ?? '');
    const reports = positionals.map((file) => {
      let text: string;
      try {
        text = readFileBounded(file, MAX_BYTES, file, `is larger than ${MAX_BYTES} bytes`);
      } catch (error) {
        throw new CoverageInputError(error instanceof Error ? error.message : String(error));
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new CoverageInputError(`${file} is not JSON`);
      }
      return reportOf(value, file);
    });
    const merged = mergeReports(reports);
    const below: string[] = [];
    const lines: string[] = [];
    const percentages: Record<string, Record<CoverageKey, number>> = {};
    for (const [id, op] of Object.entries(merged.operations)) {
      const f = fractions(op);
      const p = Object.fromEntries(COVERAGE_KEYS.map((k) => [k, percent(f[k])] as const)) as Record<CoverageKey, number>;
      percentages[id] = p;
      const shown = COVERAGE_KEYS.map((k) => `${k} ${f[k][0]}/${f[k][1]} (${p[k]}%)`).join('; ');
      const never = op.statuses.unseen.length > 0 ? `; never ${op.statuses.unseen.join(' ')}` : '';
      lines.push(`${id}: ${op.exchanges} exchanges; ${shown}${never}`);
      for (const key of COVERAGE_KEYS) {
        const min = minimums[key];
        if (min !== undefined && p[key] < min) below.push(`${id}: ${key} ${p[key]}% is below the minimum ${min}%`);
      }
    }
    if (format === 'json') process.stdout.write(`${JSON.stringify({ files: positionals, ...merged, percentages, below }, null, 2)}\n`);
    else {
      for (const line of [...lines, ...below.map((b) => `✗ ${b}`)]) process.stdout.write(`${line}\n`);
      process.stdout.write(
        `coverage: ${positionals.length} file${positionals.length === 1 ? '' : 's'} merged, ${below.length === 0 ? 'every minimum met' : `${below.length} below the minimum`}\n`,
      );
    }
    process.exitCode = below.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof CoverageInputError) fail(error.message);
    throw error;
  }
}
