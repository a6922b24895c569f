// The memory phase: a fresh mock, 100 sessions × N writes, then its RSS and its heap after a forced GC.
import { isObject } from '../../spec/lib/openapi.ts';
import { EVENT_JOURNAL_LIMIT } from '../src/storage/store.ts';
import { stop } from './children.ts';
import { rounded } from './format.ts';
import { heapAfterGc, type HeapAfterGc } from './heap.ts';
import type { BodyCheck } from './job.ts';
import { runWorker } from './measuring-children.ts';
import { rssBytes } from './proc.ts';
import { mockCheck, OPERATIONS, sessionWrites, type Fixtures } from './scenarios.ts';
import { say } from './say.ts';
import { MEMORY_CONNECTIONS, MEMORY_SESSIONS, type Settings } from './settings.ts';
import { send, startServer, type Context } from './start-server.ts';

export type SessionWritesResult = {
  sessions: number;
  writes_per_session: number;
  order: string;
  rps: number;
  cpu_us_per_request: number;
  responses: number;
  rss_mb: number | null;
  heap_after_gc: HeapAfterGc;
  /** Each session's event journal length, checked against the writes it got (GET /__mock/sessions). */
  sessions_checked: string;
};

/**
 * 100 sessions × N writes on a fresh mock started as npm start: resume and close alternating, every session getting
 * the same number (each connection cycles a resume and a close of every session), then its RSS and heap.
 */
async function sessionWrites100(ctx: Context, fixtures: Fixtures, writes: number, failures: string[]): Promise<SessionWritesResult> {
  const server = await startServer('mock', ctx);
  try {
    const requests = sessionWrites(fixtures, MEMORY_SESSIONS);
    const check: BodyCheck = { kind: 'one-of', checks: OPERATIONS.map((operationId) => mockCheck({ operationId, expectStatus: 200 }, fixtures)) };
    const amount = MEMORY_SESSIONS * writes;
    const result = await runWorker(server, requests, 200, check, { connections: MEMORY_CONNECTIONS, warmup: 0, duration: 0, amount });
    const rss = rssBytes(server.pid);
    const bad = result.unexpected_status + result.mismatches + result.errors;
    if (bad > 0 || result.responses !== amount)
      failures.push(
        `memory phase: ${result.responses} of ${amount} answers, ${result.unexpected_status} wrong statuses, ${result.mismatches} wrong bodies, ${result.errors} errors${result.sample_mismatch ? ` (e.g. ${result.sample_mismatch.slice(0, 120)})` : ''}`,
      );
    // Every session got its writes: each has them all in its event journal (a store's writes since the seed, at most
    // EVENT_JOURNAL_LIMIT), and all of them are there, so none was dropped and refilled.
    const listed: unknown = JSON.parse((await send(server.url, { method: 'GET', path: '/__mock/sessions', headers: {} })).body);
    const sessions = isObject(listed) && Array.isArray(listed['sessions']) ? listed['sessions'].filter(isObject) : [];
    const expected = Math.min(EVENT_JOURNAL_LIMIT, writes);
    const counts = new Map<string, number>();
    for (const s of sessions)
      if (typeof s['name'] === 'string' && s['name'].startsWith('mem-')) counts.set(String(s['events']), (counts.get(String(s['events'])) ?? 0) + 1);
    const checked = [...counts].map(([events, n]) => `${n} sessions with ${events} events`).join(', ') || 'no sessions';
    if (counts.get(String(expected)) !== MEMORY_SESSIONS)
      failures.push(`memory phase: expected ${MEMORY_SESSIONS} sessions with ${expected} events each, got ${checked}`);
    const heap = await heapAfterGc(server.pid, server.proc.stderr);
    return {
      sessions: MEMORY_SESSIONS,
      writes_per_session: writes,
      order: 'per session: resumeProject then closeGoal, alternating',
      rps: result.rps,
      cpu_us_per_request: result.server_cpu_us_per_request,
      responses: result.responses,
      rss_mb: rss === undefined ? null : rounded(rss / 1048576, 1),
      heap_after_gc: heap,
      sessions_checked: checked,
    };
  } finally {
    await stop(server.proc);
  }
}

/** The memory phase of a full run (null with `--session-writes 0`, or when it failed: the failure is filed). */
export async function sessionWritesPhase(
  full: boolean,
  settings: Settings,
  ctx: Context,
  fixtures: Fixtures,
  failures: string[],
): Promise<SessionWritesResult | null> {
  let memory: SessionWritesResult | null = null;
  if (full && settings.sessionWrites > 0) {
    say(`memory: ${MEMORY_SESSIONS} sessions × ${settings.sessionWrites} writes on a fresh mock…`);
    try {
      memory = await sessionWrites100(ctx, fixtures, settings.sessionWrites, failures);
    } catch (error) {
      failures.push(`memory phase: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return memory;
}
