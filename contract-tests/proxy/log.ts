// What the proxy remembers: the last exchanges that broke the contract (bounded in entries and in bytes, so memory
// stays bounded however long it runs and however large the answers), counts per operation × rule (a fixed set), the
// coverage of the traffic (counts per documented status, field and rule), and the JUnit report built from them.
// An entry lists at most MAX_REPORTED violations (then one "and N more"), each text cut to a few hundred characters and
// escaped (printable): whatever came from the target or the client reads as one line, never as a forged one.
// Nothing here ever holds a token: file-exchange.ts hands every text through its masker (`mask`) first.
import { Coverage } from '../model/coverage.ts';
import { capViolations, formatLocation, formatViolation, printable } from '../../spec/lib/violations.ts';
import { CALLER_FIELDS } from '../model/state-rules.ts';
import { expectedNote, expectedOfProduction } from '../model/expected.ts';
import { RULE_ORDER, RULES, type FiledViolation, type Rule } from './check.ts';

export type Entry = {
  seq: number;
  at: string;
  operation: string;
  method: string;
  path: string;
  status: number;
  /** The request as a curl line against the target, tokens as $VARIABLES. */
  request: string;
  /** Status, Content-Type, size and the start of the body. */
  response: string;
  /** The rule that decided the expected answer for this request. */
  expected: string;
  /** How many errors and warnings the exchange had (`violations` lists at most MAX_REPORTED, then "and N more"). */
  errors: number;
  warnings: number;
  /** Decisive first; a violation that follows from it names it in `follows`. */
  violations: Array<{ severity: FiledViolation['severity']; rule: Rule; code: string; location: string; message: string; follows?: string }>;
  /** The violations as the suite prints them, one line each. */
  lines: string[];
};

type Tally = { checked: number; failed: number; samples: string[] };

/** An answer the target's mock was asked to rehearse (X-Mock-Rehearsal), excused from production's rules. */
export type Rehearsed = { status: number; mark: string };

export const DEFAULT_CAPACITY = 1000;
/** The most bytes the kept entries take (as the JSON /__proxy/violations sends), whatever their number. */
export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
/** The least --max-log-bytes may be: a few of the largest entries (each is at most about 100 KB: MAX_TEXT, the cap). */
export const MIN_MAX_BYTES = 1024 * 1024;
const SAMPLES_PER_RULE = 5;
/** The longest text of an entry (a message, a location, the answer's excerpt); the curl line may be longer (its body is cut at 16 KB). */
const MAX_TEXT = 400;

/** A text cut at `max` characters (with how long it was). */
const cut = (text: string, max = MAX_TEXT): string => (text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text);
/** A text for an entry: escaped (printable), cut at `max` characters. */
const clip = (text: string, max = MAX_TEXT): string => cut(printable(text), max);

export class ViolationLog {
  readonly capacity: number;
  readonly maxBytes: number;
  readonly startedAt = new Date().toISOString();
  /** The kept entries, oldest first from `#head` (dropped from the front: by number past capacity, by bytes past maxBytes). */
  #kept: Array<{ entry: Entry; bytes: number } | undefined> = [];
  #head = 0;
  #bytes = 0;
  #seq = 0;
  #exchanges = 0;
  #unchecked = 0;
  #broken = 0;
  #errors = 0;
  #warnings = 0;
  /** Warnings that are production's own way (expected.ts expectedOfProduction): noted, not counted as warnings. */
  #expected = 0;
  #upstreamErrors = 0;
  #checkFailures = 0;
  #lastCheckFailure: string | undefined;
  #codes = new Map<string, number>();
  #warningCodes = new Map<string, number>();
  #operations = new Map<string, { exchanges: number; broken: number; rehearsed: number; rules: Map<Rule, Tally> }>();
  #rehearsed = 0;
  #rehearsedStatuses = new Map<string, number>();
  #rehearsedBy = { prefer: 0, scenario: 0 };
  /** What the traffic exercised (the proxy's checks count into it). */
  coverage = new Coverage();

  constructor(capacity = DEFAULT_CAPACITY, maxBytes = DEFAULT_MAX_BYTES) {
    this.capacity = capacity;
    this.maxBytes = Math.max(MIN_MAX_BYTES, maxBytes);
  }

  /** An exchange that called no operation of the spec (forwarded, not checked). */
  unchecked(): void {
    this.#exchanges++;
    this.#unchecked++;
  }

  /** The check of an exchange failed (counted as unchecked; the last reason, one line, in the summary). */
  checkFailed(error: unknown): void {
    this.#exchanges++;
    this.#unchecked++;
    this.#checkFailures++;
    this.#lastCheckFailure = clip(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }

  /** The target could not be reached, or the exchange broke off (502/504 from the proxy). */
  upstreamError(): void {
    this.#exchanges++;
    this.#upstreamErrors++;
  }

  /**
   * Counts a checked exchange (every violation counts); returns its entry (with its sequence number) when it broke the
   * contract. `mask` is applied to every text of the entry that came from the exchange (file-exchange.ts's masker).
   */
  record(
    operation: string,
    rules: ReadonlyArray<Rule>,
    violations: ReadonlyArray<FiledViolation>,
    describe: () => Omit<Entry, 'seq' | 'violations' | 'lines' | 'operation' | 'errors' | 'warnings'>,
    rehearsal: Rehearsed | undefined = undefined,
    mask: (text: string) => string = (text) => text,
  ): Entry | undefined {
    this.#exchanges++;
    const op = this.#operations.get(operation) ?? { exchanges: 0, broken: 0, rehearsed: 0, rules: new Map<Rule, Tally>() };
    this.#operations.set(operation, op);
    op.exchanges++;
    if (rehearsal) {
      this.#rehearsed++;
      op.rehearsed++;
      const status = String(rehearsal.status);
      this.#rehearsedStatuses.set(status, (this.#rehearsedStatuses.get(status) ?? 0) + 1);
      this.#rehearsedBy[rehearsal.mark === 'prefer' ? 'prefer' : 'scenario']++;
    }
    const errors = violations.filter((v) => v.severity === 'error');
    const warnings = violations.filter((v) => v.severity === 'warning');
    // Production's own way (an error sent without a Content-Type) is noted, not counted: the suite's rule (expected.ts).
    const counted = warnings.filter((v) => !expectedOfProduction(v));
    this.#expected += warnings.length - counted.length;
    this.#warnings += counted.length;
    for (const w of counted) this.#warningCodes.set(w.code, (this.#warningCodes.get(w.code) ?? 0) + 1);
    const failedRules = new Set(errors.map((v) => v.rule));
    for (const rule of new Set([...rules, ...failedRules])) {
      const tally = op.rules.get(rule) ?? { checked: 0, failed: 0, samples: [] };
      op.rules.set(rule, tally);
      tally.checked++;
      if (failedRules.has(rule)) tally.failed++;
    }
    if (errors.length === 0) return undefined;
    this.#broken++;
    op.broken++;
    this.#errors += errors.length;
    for (const v of errors) this.#codes.set(v.code, (this.#codes.get(v.code) ?? 0) + 1);
    const seq = ++this.#seq;
    const described = describe();
    const entry = {
      ...described,
      method: clip(mask(described.method), 40),
      path: clip(mask(described.path), 2048),
      request: printable(mask(described.request)),
      response: clip(mask(described.response)),
      expected: clip(mask(described.expected)),
    };
    // What a person reads: the first MAX_REPORTED violations (then "and N more"), masked, escaped and cut (a location's
    // names are quoted by formatLocation).
    const shown = capViolations(violations, (v, left) => ({
      ...v,
      rule: left.find((l) => l.severity === 'error')?.rule ?? left[0]?.rule ?? 'spec.schema',
    })).map((v) => ({ ...v, location: v.location.map((part) => (typeof part === 'string' ? cut(mask(part)) : part)), message: clip(mask(v.message)) }));
    const full: Entry = {
      ...entry,
      seq,
      operation,
      errors: errors.length,
      warnings: warnings.length,
      violations: shown.map((v) => ({
        severity: v.severity,
        rule: v.rule,
        code: v.code,
        location: formatLocation(v.location),
        message: v.message,
        ...(v.follows ? { follows: v.follows } : {}),
      })),
      // The consequences indented under the violation they follow from.
      lines: shown.map((v) => (v.follows ? `  ↳ ${formatViolation(v)}` : formatViolation(v))),
    };
    for (const v of shown) {
      const tally = op.rules.get(v.rule);
      if (v.severity === 'error' && tally && tally.samples.length < SAMPLES_PER_RULE)
        tally.samples.push(`#${seq} ${entry.method} ${entry.path} → ${entry.status}: ${formatViolation(v)}\n  ${entry.request}`);
    }
    this.#keep(full);
    return full;
  }

  /** Keeps an entry, dropping the oldest while there are more than `capacity` or they take more than `maxBytes`. */
  #keep(entry: Entry): void {
    const bytes = Buffer.byteLength(JSON.stringify(entry));
    this.#kept.push({ entry, bytes });
    this.#bytes += bytes;
    while (this.#kept.length - this.#head > 1 && (this.#kept.length - this.#head > this.capacity || this.#bytes > this.maxBytes)) {
      this.#bytes -= this.#kept[this.#head]?.bytes ?? 0;
      this.#kept[this.#head] = undefined;
      this.#head++;
    }
    // Dropped entries leave the array now and then, not one by one (each shift would copy the rest).
    if (this.#head > 1024 && this.#head * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The kept entries, oldest first; `since`: only those after that sequence number. */
  entries(since = 0): Entry[] {
    const out: Entry[] = [];
    for (let i = this.#head; i < this.#kept.length; i++) {
      const kept = this.#kept[i];
      if (kept && kept.entry.seq > since) out.push(kept.entry);
    }
    return out;
  }

  /** The bytes the kept entries take (each as JSON). */
  get bytes(): number {
    return this.#bytes;
  }

  get broken(): number {
    return this.#broken;
  }

  reset(): void {
    this.#kept = [];
    this.#head = 0;
    this.#bytes = 0;
    this.#exchanges = this.#unchecked = this.#broken = this.#errors = this.#warnings = this.#upstreamErrors = this.#checkFailures = 0;
    this.#rehearsed = this.#expected = 0;
    this.#lastCheckFailure = undefined;
    this.#rehearsedStatuses.clear();
    this.#rehearsedBy = { prefer: 0, scenario: 0 };
    this.#codes.clear();
    this.#warningCodes.clear();
    this.#operations.clear();
    this.coverage = new Coverage();
  }

  summary(target: string, learnedTokens: number) {
    const kept = this.entries().length;
    return {
      target,
      started_at: this.startedAt,
      exchanges: this.#exchanges,
      checked: this.#exchanges - this.#unchecked - this.#upstreamErrors,
      unchecked: this.#unchecked,
      upstream_errors: this.#upstreamErrors,
      check_failures: this.#checkFailures,
      ...(this.#lastCheckFailure === undefined ? {} : { last_check_failure: this.#lastCheckFailure }),
      broken: this.#broken,
      violations: this.#errors,
      warnings: this.#warnings,
      by_code: Object.fromEntries([...this.#codes].sort((a, b) => b[1] - a[1])),
      warnings_by_code: Object.fromEntries([...this.#warningCodes].sort((a, b) => b[1] - a[1])),
      // What production itself does and the spec documents, said once as the suite's report says it.
      expected: { answers: this.#expected, ...(this.#expected > 0 ? { note: expectedNote(this.#expected) } : {}) },
      // Answers the target's mock was asked to rehearse (X-Mock-Rehearsal), held to the spec only (a gateway's
      // status to nothing): never counted as the target's own behaviour.
      rehearsed: {
        exchanges: this.#rehearsed,
        by_status: Object.fromEntries([...this.#rehearsedStatuses].sort((a, b) => Number(a[0]) - Number(b[0]))),
        by_mark: { ...this.#rehearsedBy },
      },
      operations: Object.fromEntries(
        [...this.#operations].map(([name, op]) => [
          name,
          {
            exchanges: op.exchanges,
            broken: op.broken,
            rehearsed: op.rehearsed,
            rules: Object.fromEntries(ruleOrder(op.rules).map(([rule, t]) => [rule, { checked: t.checked, failed: t.failed }])),
          },
        ]),
      ),
      learned_tokens: learnedTokens,
      coverage: { summary: this.coverage.lines(), ...this.coverage.report() },
      buffer: { capacity: this.capacity, kept, dropped: this.#broken - kept, bytes: this.#bytes, max_bytes: this.maxBytes },
    };
  }

  /** JUnit XML: a test suite per operation, a test case per rule (failed with samples, or skipped when never checked). */
  junit(target: string, operations: ReadonlyArray<string>): string {
    // XML-escaped, and every unprintable character (none of which XML 1.0 allows, or a terminal should get) as a
    // visible \uXXXX; only the report's own line breaks (between samples) stay.
    const esc = (text: string): string =>
      text
        .split('\n')
        .map(printable)
        .join('\n')
        .replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const suites: string[] = [];
    let tests = 0;
    let failures = 0;
    let skipped = 0;
    const coverage = new Map(this.coverage.lines().map((line) => [line.slice(0, line.indexOf(':')), line]));
    for (const operation of operations) {
      const op = this.#operations.get(operation);
      const cases: string[] = [];
      let suiteFailures = 0;
      let suiteSkipped = 0;
      for (const rule of RULE_ORDER) {
        const description = RULES[rule];
        const tally = op?.rules.get(rule);
        const name = `${rule}: ${description}`;
        if (!tally) {
          suiteSkipped++;
          const callerFields: Partial<Record<string, ReadonlyArray<string>>> = CALLER_FIELDS;
          const why =
            rule === 'caller' && callerFields[operation]?.length === 0 ? `${operation}'s answer names no caller` : 'no exchange through the proxy exercised it';
          cases.push(`    <testcase classname="${esc(operation)}" name="${esc(name)}" time="0"><skipped message="${esc(why)}"/></testcase>`);
        } else if (tally.failed > 0) {
          suiteFailures++;
          cases.push(
            `    <testcase classname="${esc(operation)}" name="${esc(name)}" time="0">\n      <failure message="${esc(`${tally.failed} of ${tally.checked} exchanges broke it`)}">${esc(tally.samples.join('\n'))}</failure>\n    </testcase>`,
          );
        } else {
          cases.push(`    <testcase classname="${esc(operation)}" name="${esc(name)}" time="0"><system-out>${tally.checked} exchanges</system-out></testcase>`);
        }
      }
      tests += cases.length;
      failures += suiteFailures;
      skipped += suiteSkipped;
      const exercised = `    <system-out>${esc(`coverage of the traffic: ${coverage.get(operation) ?? operation}`)}</system-out>`;
      suites.push(
        `  <testsuite name="${esc(operation)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="${suiteSkipped}" timestamp="${this.startedAt}">\n${cases.join('\n')}\n${exercised}\n  </testsuite>`,
      );
    }
    return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${esc(`contract proxy → ${target}`)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skipped}">\n${suites.join('\n')}\n</testsuites>\n`;
  }
}

function ruleOrder(rules: Map<Rule, Tally>): Array<[Rule, Tally]> {
  return [...rules].sort((a, b) => RULE_ORDER.indexOf(a[0]) - RULE_ORDER.indexOf(b[0]));
}
