// One request's way through the core, from the request to the framed answer, one step a function: the Host guard, CORS
// and the control endpoints, the API answer (sessions, Prefer and queued scenarios, the pipeline, delays), the
// response self-check, and the request journal. core.ts builds the context once per core and calls frameAnswer.
import { control, sessionName } from './controls.ts';
import { cors, type CorsOptions } from './cors.ts';
import { controlOriginAllowed, crossOrigin, misdirected } from './guard.ts';
import * as errors from '../answers/errors.ts';
import { FAULT_CODE, type Fault } from '../answers/faults.ts';
import { answer, type Answer, type MockRequest, type Operations } from './pipeline.ts';
import { busyMessage, requestWait, WaitStopped, type Waits } from './delay.ts';
import { readTarget } from './target.ts';
import { parsePrefer, rehearsed, type Preferences } from '../answers/prefer.ts';
import { frameReply, type Framed, type Reply, type ReplyChecker } from '../answers/reply.ts';
import type { Scenarios, TakenScenario } from '../answers/scenarios.ts';
import { REHEARSAL_HEADER } from '../../../spec/lib/rehearsal.ts';
import { StoreUnavailable, type Sessions } from '../storage/sessions.ts';
import { mark } from '../stages.ts';
import type { Seed } from '../domain/state.ts';

/** What every request of one core shares: its options as resolved once, and whether its validators have loaded. */
export type FrameContext = {
  seed: Seed;
  sessions: Sessions;
  scenarios: Scenarios;
  now: () => Date;
  operations: Operations;
  checkReply: ReplyChecker;
  corsOptions: CorsOptions;
  controlsOn: boolean;
  maxDelay: number;
  delay: { min: number; max: number } | undefined;
  /** The delayed requests waiting now, and how many may (delay.ts). */
  waits: Waits;
  allowedHosts: (() => ReadonlySet<string>) | undefined;
  /** Whether the self-check's validators have loaded: undefined, the error that kept them from it, or the wait for them. */
  ready: () => Error | undefined | Promise<Error | undefined>;
};

const JSON_TYPE: [string, string] = ['content-type', 'application/json; charset=utf-8'];

/** A JSON refusal of the guard (guard.ts) as an answer. */
function refusal(refused: { status: number; body: unknown }): Framed {
  return { status: refused.status, headers: [JSON_TYPE], body: JSON.stringify(refused.body) };
}

/** The request's answer, framed: status, headers and body as the adapters send them (a fault when it is one). */
export async function frameAnswer(ctx: FrameContext, request: MockRequest): Promise<Framed> {
  const startedAt = request.receivedAt ?? performance.now();
  const method = request.method.toUpperCase();
  const host = request.header('host');
  const hosts = ctx.allowedHosts?.();
  if (hosts && host !== undefined && !hosts.has(host.toLowerCase())) return refusal(misdirected(host, hosts, 'This mock'));
  const { url } = readTarget(request.target);
  const isControl = ctx.controlsOn && url.pathname.toLowerCase().startsWith('/__mock/');
  // The controls hand out tokens and reset sessions: CORS only for a trusted origin, and no state change from another.
  const origin = request.header('origin');
  const trusted = !isControl || controlOriginAllowed(origin, ctx.corsOptions.origins, ctx.corsOptions.enabled);
  const allowed = trusted ? cors(ctx.corsOptions, method, request.header) : { headers: [], preflight: method === 'OPTIONS' };
  if (allowed.preflight) return { status: 204, headers: allowed.headers, body: '' };
  if (isControl) {
    if (!trusted && origin !== undefined && method !== 'GET' && method !== 'HEAD') return refusal(crossOrigin(method, url.pathname, origin));
    const query = { method, pathname: url.pathname, query: url.searchParams, header: request.header, body: request.body };
    const answered = await control(query, ctx.seed, ctx.sessions, ctx.now, ctx.scenarios);
    if (answered) return { ...answered, headers: [...allowed.headers, ...answered.headers] };
  }
  const name = sessionName(request.header('x-mock-session'));
  const outcome = await apiAnswer(ctx, request, url, name);
  // The client went away while its answer was delayed: nothing was written, nothing is journaled, nothing is sent.
  if (outcome === 'gone') return { status: 0, headers: [], body: '', fault: 'network-error' };
  const { result, operationId, effective, rehearsal } = outcome;
  const fault = result.reply.code === FAULT_CODE ? effective.fault : undefined;
  // A gateway's page (Prefer: code=503) is framed as an endpoint error view: the service never saw the request.
  const options = result.reply.code === 'MOCK_GATEWAY' ? { ...result.options, entry: true } : result.options;
  const unchecked: Framed = fault
    ? { status: 0, headers: [], body: '', fault, ...(fault === 'timeout' ? { holdMs: ctx.maxDelay } : {}) }
    : frameReply(result.reply, options, allowed.headers.slice());
  mark('serialize');
  const framed = await selfChecked(ctx, result, operationId, unchecked, allowed.headers);
  // A forced answer that passed its self-check is marked as rehearsed (X-Mock-Rehearsal, spec/lib/rehearsal.ts).
  if (framed === unchecked && rehearsal !== undefined && !fault) framed.headers.push([REHEARSAL_HEADER, rehearsal]);
  mark('self-check');
  // With the store gone, the answer stands without its journal entry (and without a second wait for the store).
  if (name.ok && result.reply.code !== 'MOCK_STORE_UNAVAILABLE') {
    const entry = { method: request.method, path: url.pathname, status: framed.status, operationId, fault, startedAt };
    await journal(ctx, name.name, entry);
  }
  mark('journal');
  return framed;
}

type Outcome = { result: Answer; operationId: string | undefined; effective: Preferences; rehearsal: string | undefined };

/**
 * The API's answer: the session, the Prefer header or a queued scenario in its place, the pipeline, the delay; 'gone'
 * when the client left while its answer was delayed (nothing written).
 */
async function apiAnswer(ctx: FrameContext, request: MockRequest, url: URL, name: ReturnType<typeof sessionName>): Promise<Outcome | 'gone'> {
  // The Prefer the answer follows: the request's own, or a queued scenario's in its place.
  let effective: Preferences = {};
  /** The X-Mock-Rehearsal mark of a forced answer (spec/lib/rehearsal.ts). */
  let rehearsal: string | undefined;
  // The delay (Prefer's, a scenario's, or --delay), waited once: before the write, or once the answer is known.
  const delayed = requestWait(
    ctx.waits,
    () => effective.delay ?? (ctx.delay ? ctx.delay.min + Math.random() * (ctx.delay.max - ctx.delay.min) : 0),
    request.signal,
  );
  try {
    const pending = ctx.ready();
    const failure = pending instanceof Promise ? await pending : pending;
    if (failure) throw failure;
    // A body refused while it was read is answered before anything else looks at the request.
    if (request.bodyError) return done(await answer(request, url, { operations: ctx.operations, sessions: ctx.sessions, session: '', force: () => undefined }));
    const prefer = parsePrefer(request.header('prefer'));
    let result: Answer;
    if (!name.ok) result = { reply: errors.MOCK_CONTROL_ERROR(name.message), options: {} };
    else if (!prefer.ok) result = { reply: prefer.error, options: {} };
    else {
      effective = prefer.value;
      const session = name.name;
      // A forced answer or a fault (Prefer: code / example / fault) replaces the operation once the operation is
      // known: no state change. A scenario queued for the operation is consumed here and replaces the request's
      // Prefer. A forced answer is marked as rehearsed (X-Mock-Rehearsal).
      const own = effective;
      const replyFor = (id: string, queued: TakenScenario | string | undefined): Reply | undefined => {
        const chosen = rehearsed(id, own, queued);
        effective = chosen.preferences;
        rehearsal = chosen.mark;
        return chosen.reply;
      };
      const force = (id: string) => {
        const queued = ctx.scenarios.take(session, id);
        return queued instanceof Promise ? queued.then((q) => replyFor(id, q)) : replyFor(id, queued);
      };
      result = await answer(request, url, { operations: ctx.operations, sessions: ctx.sessions, session, force, beforeWrite: delayed.beforeWrite });
    }
    const waited = await delayed.settle();
    if (waited !== 'waited') throw new WaitStopped(waited);
    return done(result);
  } catch (error) {
    if (error instanceof WaitStopped && error.outcome === 'gone') return 'gone';
    const failed = (reply: Reply, options: Answer['options'] = {}): Outcome => ({ result: { reply, options }, operationId: undefined, effective, rehearsal });
    if (error instanceof WaitStopped) return failed(errors.MOCK_UNAVAILABLE(busyMessage(ctx.waits.max)));
    if (error instanceof StoreUnavailable) return failed(errors.MOCK_STORE_UNAVAILABLE(error.message));
    return failed(errors.MOCK_RESPONSE_INVALID([`the mock failed: ${error instanceof Error ? error.message : String(error)}`]), { entry: true });
  }

  function done(result: Answer): Outcome {
    return { result, operationId: result.options.operationId, effective, rehearsal };
  }
}

/**
 * The self-check, once per answer, on what goes on the wire: production's replies only (the mock's own MOCK_ errors
 * are not in the spec). A violation is answered with the mock's loud 500 naming it instead.
 */
async function selfChecked(
  ctx: FrameContext,
  result: Answer,
  operationId: string | undefined,
  framed: Framed,
  headers: ReadonlyArray<[string, string]>,
): Promise<Framed> {
  let violations: string[];
  try {
    const checked = result.reply.code.startsWith('MOCK_') ? [] : ctx.checkReply(result.reply, operationId, framed);
    violations = Array.isArray(checked) ? checked : await checked;
  } catch (error) {
    violations = [`the self-check failed: ${error instanceof Error ? error.message : String(error)}`];
  }
  return violations.length > 0 ? frameReply(errors.MOCK_RESPONSE_INVALID(violations), result.options, headers.slice()) : framed;
}

type JournalEntry = { method: string; path: string; status: number; operationId: string | undefined; fault: Fault | undefined; startedAt: number };

/** The request in its session's journal (GET /__mock/requests); a store that is gone loses the entry, not the answer. */
async function journal(ctx: FrameContext, session: string, entry: JournalEntry): Promise<void> {
  try {
    await ctx.sessions.record(session, {
      at: ctx.now().toISOString(),
      method: entry.method,
      path: entry.path,
      status: entry.status,
      duration_ms: Math.round(performance.now() - entry.startedAt),
      operation: entry.operationId ?? null,
      ...(entry.fault ? { fault: entry.fault } : {}),
    });
  } catch (error) {
    if (!(error instanceof StoreUnavailable)) throw error;
  }
}
