// Drift's reports: text (each exchange that broke the contract as the proxy prints it live, then one line of counts),
// JSON, JUnit XML (the proxy's, one test case per operation and rule) and SARIF 2.1.0 (one result per violation, the
// rule as ruleId, the HAR entry as the location: for code-scanning views).
import { RULE_ORDER, RULES } from '../proxy/check.ts';
import { operationIds, type DriftResult } from './drift.ts';

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function countsLine(result: DriftResult): string {
  return `drift: ${plural(result.exchanges, 'exchange')}, ${result.checked} checked, ${result.broken} broke the contract (${plural(result.violations, 'violation')}, ${plural(result.warnings, 'warning')})`;
}

export function driftText(result: DriftResult): string {
  const lines: string[] = [];
  for (const f of result.findings) {
    const errors = f.violations.filter((v) => v.severity === 'error').length;
    lines.push(`✗ entry ${f.entry} ${f.operation}: ${f.method} ${f.path} → ${f.status} (${plural(errors, 'violation')})`);
    for (const line of f.lines) lines.push(`  ${line}`);
    lines.push(`  request: ${f.request}`);
  }
  lines.push(countsLine(result));
  return `${lines.join('\n')}\n`;
}

export function driftJson(result: DriftResult, har: string, spec: string | undefined): string {
  const summary = result.log.summary(result.origin, 0);
  return `${JSON.stringify(
    {
      har,
      spec: spec ?? null,
      exchanges: result.exchanges,
      checked: result.checked,
      broken: result.broken,
      violations: result.violations,
      warnings: result.warnings,
      findings: result.findings,
      operations: summary.operations,
      coverage: summary.coverage,
    },
    null,
    2,
  )}\n`;
}

export function driftJunit(result: DriftResult): string {
  return result.log.junit(result.origin, operationIds());
}

const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** SARIF 2.1.0: every violation a result; `level` error or warning; the HAR entry as the location. */
export function driftSarif(result: DriftResult, har: string, version: string): string {
  const results = result.findings.flatMap((f) =>
    f.violations.map((v) => ({
      ruleId: v.rule,
      ruleIndex: RULE_ORDER.indexOf(v.rule),
      level: v.severity === 'error' ? 'error' : 'warning',
      message: { text: `${f.method} ${f.path} → ${f.status}: ${v.location} ${v.message}` },
      locations: [
        {
          physicalLocation: { artifactLocation: { uri: har } },
          logicalLocations: [{ name: f.operation, fullyQualifiedName: `${f.operation}/log.entries/${f.entry}`, kind: 'function' }],
        },
      ],
      partialFingerprints: { exchange: `${f.operation}:${f.method}:${f.path}:${v.code}:${f.entry}` },
      properties: { entry: f.entry, code: v.code, location: v.location, request: f.request, ...(v.follows ? { follows: v.follows } : {}) },
    })),
  );
  return `${JSON.stringify(
    {
      $schema: SARIF_SCHEMA,
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: {
              name: 'service-external-api drift',
              version,
              rules: RULE_ORDER.map((id) => ({ id, name: id, shortDescription: { text: RULES[id] } })),
            },
          },
          artifacts: [{ location: { uri: har } }],
          results,
        },
      ],
    },
    null,
    2,
  )}\n`;
}
