// The filing of an exchange: checked by the suite's core (check.ts), what it teaches about an unnamed token learned
// (knowledge.ts), and an exchange that broke the contract described (curl line, answer, expected rule), masked of
// every secret (io/mask.ts) and kept in the log (log.ts), then handed to `onViolation`. Each filing returns how many
// errors the answer's X-Contract-Violations header counts.
import { texts } from '../../spec/lib/messages.ts';
import { mediaTypeOf } from '../../spec/lib/conformance.ts';
import type { RequestIds } from '../model/headers.ts';
import { createMasker } from '../io/mask.ts';
import type { RecordMemory } from '../model/memory.ts';
import { firstHeader, tokenOf, type RawRequest } from '../model/predict.ts';
import { excerpt } from '../model/contract-failure.ts';
import { violation } from '../../spec/lib/violations.ts';
import { checkExchange, type FiledViolation, type Received } from './check.ts';
import type { TokenKnowledge } from './knowledge.ts';
import type { Entry, Rehearsed, ViolationLog } from './log.ts';
import type { MockTarget } from './mock-target.ts';
import { maskedCurl, secretsOf } from './masked-curl.ts';
import { scopeOf } from './scope-of.ts';

export type FilingContext = {
  /** The target's origin and prefix (upstream.ts), as curl lines name it. */
  origin: string;
  knowledge: TokenKnowledge;
  log: ViolationLog;
  /** Each record's last answer per caller and mock session, for the left-alone rule. */
  memory: RecordMemory;
  /** The request ids of the answers forwarded (bounded): no two may share one. */
  requestIds: RequestIds;
  /** Every credential the run holds, and the variable shown instead. */
  secrets?: ReadonlyArray<readonly [string, string]>;
  onViolation?: (entry: Entry) => void;
  /** Whether the target is this package's mock, whose rehearsed answers are excused (mock-target.ts). */
  mockTarget?: MockTarget;
};

type Filed = { count: number; entry: Entry | undefined };

export type Filing = {
  /** Checks one complete exchange; `notes` are what the proxy found besides the check (a failed baseline read). */
  file(request: RawRequest, received: Received, notes?: ReadonlyArray<FiledViolation>): Filed;
  /**
   * An answer whose body is not what its Content-Encoding says (or decodes past --max-body-bytes) cannot be checked:
   * it is one violation, with the bytes as received, and the answer is forwarded as it came.
   */
  undecodable(request: RawRequest, received: Received, reason: 'encoding' | 'size' | 'timeout', message: string): number;
  /** Files violations the proxy found itself (a timeout, an answer too large to check) for an operation's exchange. */
  logged(
    request: RawRequest,
    received: Received | undefined,
    operationId: string,
    rules: Parameters<ViolationLog['record']>[1],
    violations: ReadonlyArray<FiledViolation>,
    expected: string,
    rehearsal?: Rehearsed,
  ): Filed;
};

export function createFiling(context: FilingContext): Filing {
  const { origin, knowledge, log, memory, requestIds } = context;

  function file(request: RawRequest, received: Received, notes: ReadonlyArray<FiledViolation> = []): Filed {
    const mockTarget = context.mockTarget;
    const checked = checkExchange(request, received, knowledge, {
      memory,
      coverage: log.coverage,
      scope: scopeOf(request.headers, knowledge),
      requestIds,
      mockTarget: mockTarget?.known === true,
    });
    if (!checked) {
      mockTarget?.learn(request.method, request.url, received.status, received.body);
      log.unchecked();
      return { count: 0, entry: undefined };
    }
    if (checked.rehearsed === undefined) learn(request, received, checked.prediction.stage, checked.prediction.who !== undefined);
    const rehearsal = checked.rehearsed === undefined ? undefined : { status: received.status, mark: checked.rehearsed };
    return logged(request, received, checked.operationId, checked.rules, [...checked.violations, ...notes], checked.prediction.rule, rehearsal);
  }

  function undecodable(request: RawRequest, received: Received, reason: 'encoding' | 'size' | 'timeout', message: string): number {
    const checked = checkExchange(request, { ...received, body: Buffer.alloc(0) }, knowledge);
    if (!checked) {
      log.unchecked();
      return 0;
    }
    const code = reason === 'size' ? 'response.too-large' : reason === 'timeout' ? 'timeout' : 'response.encoding';
    const v: FiledViolation = { ...violation(['response', 'body'], code, `${message}; it was forwarded unchecked`), rule: reason };
    return logged(request, { ...received, body: received.body.subarray(0, 300) }, checked.operationId, [reason], [v], checked.prediction.rule).count;
  }

  const logged: Filing['logged'] = (request, received, operationId, rules, violations, expected, rehearsal) => {
    const errors = violations.filter((v) => v.severity === 'error').length;
    // Only an exchange that broke the contract is described (and kept): the rest is counted. Whatever it says that
    // came from the target goes through the one masker (io/mask.ts): every token the run holds, in any form.
    const secrets = violations.length > 0 ? secretsOf(request, knowledge) : new Map<string, string>();
    const masker = createMasker([...(context.secrets ?? []), ...secrets]);
    if (violations.length > 0) masker.addFromRequest(request.headers, request.url);
    const entry = log.record(
      operationId,
      rules,
      violations,
      () => {
        const response = received
          ? `${received.status} ${mediaTypeOf(received.headers['content-type']) ?? '(no Content-Type)'}, ${received.body.length} bytes: ${excerpt(received.body.toString('utf8'), 300)}`
          : 'none';
        return {
          at: new Date().toISOString(),
          method: request.method,
          path: masker.mask(request.url.split('?')[0] ?? request.url),
          status: received?.status ?? 0,
          request: masker.mask(maskedCurl(origin, request, secrets)),
          response: masker.mask(response),
          expected: masker.mask(expected),
        };
      },
      rehearsal,
      (text) => masker.mask(text),
    );
    if (entry) context.onViolation?.(entry);
    return { count: errors, entry };
  };

  /** A token the file does not name, answered with the read-only 403 or a 401 after the inputs passed, stays so. */
  function learn(request: RawRequest, received: Received, stage: string, known: boolean): void {
    if (known || (stage !== 'missing-fields' && stage !== 'record')) return;
    const token = tokenOf(firstHeader(request.headers, 'authorization'));
    if (token === undefined) return;
    const text = received.body.toString('utf8');
    if (received.status === 403 && text === texts.readOnly) knowledge.learn(token, 'read-only');
    else if (received.status === 401 && text === texts.unauthorized) knowledge.learn(token, 'refused');
  }

  return { file, undecodable, logged };
}
