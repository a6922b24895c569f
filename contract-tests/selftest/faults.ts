// Injected faults: each breaks one rule of production's behaviour in a proxy in front of the mock (support.ts
// startFaultProxy). Shared by the suite's fault test (faults.test.ts: the suite must fail naming each one) and the
// validation proxy's (proxy.test.ts: the proxy must report each one its smoke set reaches).
import { messages, texts } from '../../spec/lib/messages.ts';
import { productionJson } from '../../spec/lib/number-form.ts';
import { isObject, type JsonObject } from '../../spec/lib/openapi.ts';
import { specAnswers as production } from '../../spec/test/spec-answers.ts';
import type { Fault, ProxiedReply, ProxiedRequest } from './support.ts';

export type Tokens = Record<string, string>;
/** One broken rule and the lines the suite's output must contain about it. */
type Injected = { name: string; fault: (tokens: Tokens) => Fault; expect: RegExp[] };
export type Case = { name: string; faults: Injected[]; files?: string[]; env?: Record<string, string>; exit: 0 | 1 };

const JSON_TYPE = 'application/json; charset=utf-8';
const RESUME = /\/projects\/resume/;

/** A pattern that matches `text` as it is: the expected lines quote production's texts, read from the spec. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** The suite's line for an expected plain-text answer. */
const expectedText = (status: number, text: string): string => `expected ${status} ${literally(JSON.stringify(text))} in plain text`;
const missingFieldsBody = (names: string[]): string => production.badRequest(messages.missingFields(names));

/** The text's JSON object; undefined when it is not JSON or not an object. */
function jsonObjectOf(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites the JSON body of 200 replies. */
function on200(change: (body: JsonObject, req: ProxiedRequest) => void): Fault {
  return {
    response: (req, reply) => {
      const body = reply.status === 200 ? jsonObjectOf(reply.body) : undefined;
      if (!body) return reply;
      change(body, req);
      // Written back as production writes numbers, so that only the change is a fault (spec/lib/number-form.ts).
      return { ...reply, body: productionJson(body) };
    },
  };
}
/** Rewrites the mock's state (GET /__mock/state) as an implementation whose rows are wrong would show it. */
function onState(change: (state: JsonObject) => void): Fault {
  return {
    controls: true,
    response: (req, reply) => {
      const state = req.path.startsWith('/__mock/state') && reply.status === 200 ? jsonObjectOf(reply.body) : undefined;
      if (!state) return reply;
      change(state);
      return { ...reply, body: JSON.stringify(state) };
    },
  };
}
/** Rewrites the subscriptions of the newest subscription list (`rows`, among `all` the state's subscriptions). */
function onNewestList(change: (rows: JsonObject[], all: unknown[]) => void): Fault {
  return onState((state) => {
    const lists = state['subscription_lists'];
    const all = state['subscriptions'];
    const newest: unknown = Array.isArray(lists) ? lists.at(-1) : undefined;
    if (!isObject(newest) || !Array.isArray(all)) return;
    change(
      all.filter((r): r is JsonObject => isObject(r) && r['subscription_list_id'] === newest['id']),
      all,
    );
  });
}
function entity(body: JsonObject, key: string): JsonObject {
  const value = body[key];
  return isObject(value) ? value : {};
}
/** Replaces one persona's token by another's on the way in. */
function swapToken(tokens: Tokens, from: string, to: string): Fault {
  return {
    request: (req) => {
      const auth = req.headers['authorization'];
      const source = tokens[from];
      const target = tokens[to];
      if (auth === undefined || source === undefined || target === undefined || !auth.includes(source)) return req;
      return { ...req, headers: { ...req.headers, authorization: auth.replace(source, target) } };
    },
  };
}
function rewriteBody(change: (body: JsonObject) => void): Fault {
  return {
    request: (req) => {
      const body = jsonObjectOf(req.body);
      if (!body) return req;
      change(body);
      return { ...req, body: JSON.stringify(body) };
    },
  };
}
let replies = 0;
/**
 * A reply a fault makes up, with the headers production puts on every answer (a fresh request id, its Cache-Control),
 * so that it breaks only the rule it is about (RULES.md#headers).
 */
const reply = (status: number, body: string, headers: Record<string, string> = {}): ProxiedReply => ({
  status,
  headers: { 'cache-control': texts.cacheControl, 'x-request-id': `fault${String(++replies).padStart(15, '0')}`, ...headers },
  body,
});

/** Several faults at once: request rewrites in order (the first direct reply wins), then reply rewrites in order. */
export function compose(faults: ReadonlyArray<Fault>): Fault {
  return {
    ...(faults.some((f) => f.controls === true) ? { controls: true } : {}),
    request: (req) => {
      let current: ProxiedRequest = req;
      for (const f of faults) {
        if (!f.request) continue;
        const next = f.request(current);
        if (next === 'hang' || 'status' in next) return next;
        current = next;
      }
      return current;
    },
    response: (req, r) => {
      let current: ProxiedReply | 'hang' = r;
      for (const f of faults) if (f.response && current !== 'hang') current = f.response(req, current);
      return current;
    },
  };
}

export const cases: Case[] = [
  // The six of the brief, each alone against the whole suite.
  {
    name: 'a wrong status: 201 instead of 200 for a successful write',
    exit: 1,
    faults: [
      {
        name: 'wrong status',
        fault: () => ({ response: (_req, r) => (r.status === 200 ? { ...r, status: 201 } : r) }),
        expect: [
          /status 201 is not documented for resumeProject; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500/,
          /status 201 is not documented for closeGoal; documented: 200, 400, 401, 403, 404, 405, 406, 413, 415, 500/,
        ],
      },
    ],
  },
  {
    name: 'a dropped required field: project.state and goal.closed_at are left out',
    exit: 1,
    faults: [
      {
        name: 'dropped required field',
        fault: () =>
          on200((body) => {
            delete entity(body, 'project')['state'];
            delete entity(body, 'goal')['closed_at'];
          }),
        expect: [
          /response\.body\.project\.state {2}required field "state" is missing/,
          /response\.body\.goal\.closed_at {2}required field "closed_at" is missing/,
        ],
      },
    ],
  },
  {
    name: 'a wrong type: goal.success is the string "true"',
    exit: 1,
    faults: [
      {
        name: 'wrong type',
        fault: () =>
          on200((body) => {
            if (isObject(body['goal'])) body['goal']['success'] = 'true';
          }),
        expect: [/response\.body\.goal\.success {2}must be boolean or null, got string "true"/],
      },
    ],
  },
  {
    name: 'a wrong error body: the missing-fields 400 lists the fields out of declaration order',
    exit: 1,
    faults: [
      {
        name: 'wrong error body',
        fault: () => ({
          response: (_req, r) => {
            const match = new RegExp(`"${literally(messages.missingFields([]))}([^"]+)"`).exec(r.body);
            if (r.status !== 400 || !match?.[1]) return r;
            return { ...r, body: r.body.replace(match[1], match[1].split(', ').reverse().join(', ')) };
          },
        }),
        expect: [
          new RegExp(
            `expected the body ${literally(missingFieldsBody(['project_id', 'message']))}; got ${literally(JSON.stringify(missingFieldsBody(['message', 'project_id'])))}`,
          ),
        ],
      },
    ],
  },
  {
    name: 'ignored auth: a read-only token may write (200)',
    exit: 1,
    faults: [
      {
        name: 'read-only token writes',
        fault: (tokens) => swapToken(tokens, 'read_only', 'full_access'),
        expect: [
          /✗ FAIL resumeProject > auth > A read-only token is refused with 403/,
          /✗ FAIL closeGoal > auth > A read-only token is refused with 403/,
          new RegExp(`${expectedText(403, texts.readOnly)}; got 200`),
        ],
      },
    ],
  },
  {
    name: 'state not applied: a resumed project stays paused',
    exit: 1,
    faults: [
      {
        name: 'state not applied',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['state'] === 'active') project['state'] = 'paused';
          }),
        expect: [
          /✗ FAIL resumeProject > state > Resuming a paused project makes it active/,
          /resuming a paused project makes it active \(RULES\.md#decision-3\); got state "paused"/,
        ],
      },
    ],
  },
  // More kinds, in groups.
  {
    name: 'auth and permissions: any bearer token, a lowercase scheme, a JSON 401, comment-only writes, 403 for the invisible',
    files: ['auth', 'permissions'],
    exit: 1,
    faults: [
      {
        name: 'any bearer token accepted',
        fault: (tokens) => ({
          request: (req) => {
            const auth = req.headers['authorization'] ?? '';
            const known = Object.values(tokens).some((t) => auth.includes(t));
            return !known && /^Bearer opk_/.test(auth) ? { ...req, headers: { ...req.headers, authorization: `Bearer ${tokens['full_access'] ?? ''}` } } : req;
          },
        }),
        expect: [
          /✗ FAIL resumeProject > auth > An unknown token in production format \(opk_ \+ 43 characters\) is refused with 401/,
          new RegExp(`${expectedText(401, texts.unauthorized)}; got 200`),
        ],
      },
      {
        name: 'lowercase scheme accepted',
        fault: () => ({
          request: (req) =>
            req.headers['authorization']?.startsWith('bearer ')
              ? { ...req, headers: { ...req.headers, authorization: req.headers['authorization'].replace(/^bearer /, 'Bearer ') } }
              : req,
        }),
        expect: [/✗ FAIL closeGoal > auth > The scheme is case-sensitive: "bearer …" is refused with 401/],
      },
      {
        name: '401 as JSON',
        fault: () => ({
          response: (_req, r) =>
            r.status === 401 ? reply(401, '{"error":"Unauthorized","message":"Authentication required"}', { 'content-type': JSON_TYPE }) : r,
        }),
        expect: [
          /Content-Type application\/json is not documented for resumeProject 401; documented: text\/plain/,
          new RegExp(`response\\.body {2}must be ${literally(JSON.stringify(texts.unauthorized))}`),
        ],
      },
      {
        name: 'comment-only person writes',
        fault: (tokens) => swapToken(tokens, 'comment_only', 'full_access'),
        expect: [/✗ FAIL closeGoal > permissions > A person who can see the record but not edit it gets 403 JSON/, /expected 403 JSON Forbidden; got 200/],
      },
      {
        name: 'forbidden instead of not found',
        fault: (tokens) => ({
          response: (req, r) =>
            r.status === 404 && (req.headers['authorization'] ?? '').includes(tokens['no_access'] ?? '-')
              ? reply(403, production.forbidden, { 'content-type': JSON_TYPE })
              : r,
        }),
        expect: [/expected 404 JSON Not found; got 403/],
      },
    ],
  },
  {
    name: 'inputs: the token checked first, enums case-insensitive, unknown fields dropped, null accepted',
    files: ['ids', 'validation', 'order'],
    exit: 1,
    faults: [
      {
        name: 'token before inputs',
        fault: () => ({ request: (req) => (req.headers['authorization'] === undefined && req.method === 'POST' ? reply(401, texts.unauthorized) : req) }),
        expect: [
          /✗ FAIL resumeProject > ids > A malformed project_id is 404 even without a token/,
          /✗ FAIL closeGoal > order > Without a token, null in a required field is still 400/,
          new RegExp(`expected 404 Not found \\(an undecodable id, sent bare\\); got 401 ${literally(JSON.stringify(texts.unauthorized))}`),
        ],
      },
      {
        name: 'case-insensitive enum',
        fault: () =>
          rewriteBody((body) => {
            if (typeof body['success_status'] === 'string') body['success_status'] = body['success_status'].toLowerCase();
          }),
        expect: [new RegExp(`expected 400 ${literally(JSON.stringify(messages.invalidEnum('success_status', 'Achieved', ['achieved', 'missed'])))}; got 200`)],
      },
      {
        name: 'unknown fields dropped',
        fault: () =>
          rewriteBody((body) => {
            if (typeof body['contract_probe_field'] === 'number') delete body['contract_probe_field'];
          }),
        expect: [
          new RegExp(
            `expected 400 ${literally(JSON.stringify(messages.unknownField('contract_probe_field')))} or 500 ${literally(production.decodingCrash)}; got 200`,
          ),
        ],
      },
      {
        name: 'null accepted',
        fault: () =>
          rewriteBody((body) => {
            if (body['success'] === null) body['success'] = 'yes';
          }),
        expect: [/✗ FAIL closeGoal > validation > null in "success" is 400/],
      },
    ],
  },
  {
    name: 'state rules and response details: success, status, a reopened project, "nil" as null, a stale closed_at, a nested const, a header',
    files: ['resumeProject', 'closeGoal', 'responses'],
    exit: 1,
    faults: [
      {
        name: 'success true for any text',
        fault: () =>
          on200((body) => {
            if (isObject(body['goal'])) body['goal']['success'] = true;
          }),
        expect: [/success is true only when the success sent is exactly "yes" \(sent "no"/],
      },
      {
        name: 'status ignores success_status',
        fault: () =>
          on200((body) => {
            if (isObject(body['goal'])) body['goal']['status'] = 'achieved';
          }),
        expect: [/status follows the success_status sent \("missed"\)/],
      },
      {
        name: 'closed project reopened',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['state'] === 'closed') Object.assign(project, { state: 'active', closed_at: null, success_status: 'nil' });
          }),
        expect: [/resuming a closed project must leave it closed/],
      },
      {
        name: '"nil" as null',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['success_status'] === 'nil') project['success_status'] = null;
          }),
        expect: [/response\.body\.project\.success_status {2}must be string, got null/],
      },
      {
        name: 'stale closed_at',
        fault: () =>
          on200((body) => {
            if (isObject(body['goal'])) body['goal']['closed_at'] = '2020-01-01T00:00:00Z';
          }),
        expect: [/close sets closed_at to now .* but it is 2020-01-01T00:00:00Z/],
      },
      {
        name: 'wrong nested const',
        fault: () =>
          on200((body) => {
            const permissions = entity(body, 'project')['permissions'];
            if (isObject(permissions)) permissions['__typename'] = 'permissions';
          }),
        expect: [/response\.body\.project\.permissions\.__typename {2}must be "project_permissions"; got "permissions"/],
      },
      {
        name: 'wrong documented header',
        fault: () => ({ response: (_req, r) => (r.status === 200 ? { ...r, headers: { ...r.headers, 'cache-control': 'no-store' } } : r) }),
        expect: [/response\.header\.cache-control {2}must be "max-age=0, private, must-revalidate"; got "no-store"/],
      },
    ],
  },
  {
    name: 'state details: who closed, the status, the permissions, the retrospective, updated_at',
    files: ['state'],
    exit: 1,
    faults: [
      {
        name: 'closed by someone else',
        fault: () =>
          on200((body) => {
            const closedBy = entity(body, 'goal')['closed_by'];
            if (isObject(closedBy)) closedBy['id'] = `someone-else-${'A'.repeat(21)}B`;
          }),
        expect: [/response\.body\.goal\.closed_by\.id {2}closed_by is the caller, the person of the token that made the write \(CONTRACT_PERSON_ID = /],
      },
      {
        name: 'status not from the last check-in',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['state'] === 'active' && isObject(project['last_check_in'])) project['status'] = 'pending';
          }),
        expect: [
          /an active project that is not outdated has the status of its last check-in \(Project\.status\/1; RULES\.md#state-project\): expected "caution"; got "pending"/,
        ],
      },
      {
        name: 'cannot edit after a write',
        fault: () =>
          on200((body) => {
            const permissions = entity(body, 'goal')['permissions'];
            if (isObject(permissions)) permissions['can_edit'] = false;
          }),
        expect: [/the write succeeded, so the caller can edit this goal .* but permissions\.can_edit is false/],
      },
      {
        name: 'a stale retrospective',
        fault: () =>
          on200((body) => {
            const retrospective = entity(body, 'goal')['retrospective'];
            if (isObject(retrospective))
              retrospective['content'] = JSON.stringify({
                type: 'doc',
                content: [{ type: 'paragraph', content: [{ type: 'text', text: 'an older retrospective' }] }],
              });
          }),
        expect: [/the goal's retrospective is the one just sent/],
      },
      {
        name: 'updated_at not bumped',
        fault: () =>
          on200((body) => {
            entity(body, 'project')['updated_at'] = '2020-01-01T00:00:00Z';
            entity(body, 'goal')['updated_at'] = '2020-01-01T00:00:00Z';
          }),
        expect: [
          /resume bumps updated_at to now \(RULES\.md#state-resume\), but it is 2020-01-01T00:00:00Z/,
          /close bumps updated_at in the same write, so it is not before closed_at/,
        ],
      },
    ],
  },
  {
    name: 'broken successes: an HTML page for resume, a 500 for close',
    files: ['responses'],
    exit: 1,
    faults: [
      {
        name: 'non-JSON 200',
        fault: () => ({
          response: (req, r) =>
            r.status === 200 && RESUME.test(req.path)
              ? reply(200, '<html><body>Service temporarily unavailable</body></html>', { 'content-type': 'text/html' })
              : r,
        }),
        expect: [/Content-Type text\/html is not documented for resumeProject 200; documented: application\/json/, /the body is not JSON \(/],
      },
      {
        name: 'server error on valid input',
        fault: () => ({
          response: (req, r) => (r.status === 200 && !RESUME.test(req.path) ? reply(500, production.operationFailed, { 'content-type': JSON_TYPE }) : r),
        }),
        expect: [/valid input must never be a server error; got 500/, /expected 200 with the changed record; got 500/],
      },
    ],
  },
  {
    name: 'a hung server: successful writes are never answered',
    files: ['responses', 'auth'],
    env: { CONTRACT_TIMEOUT_MS: '700' },
    exit: 1,
    faults: [
      {
        name: 'hang',
        fault: () => ({ response: (_req, r) => (r.status === 200 ? 'hang' : r) }),
        expect: [
          /timeout: no complete response to POST \/api\/external\/v1\/projects\/resume within 700 ms \(CONTRACT_TIMEOUT_MS\)/,
          /^resumeProject +auth +1\d +0 +0$/m,
        ],
      },
    ],
  },
  {
    name: 'a success without a Content-Type: only error answers may come without one',
    files: ['responses'],
    exit: 1,
    faults: [
      {
        name: 'no Content-Type on 200',
        fault: () => ({
          response: (_req, r) => {
            if (r.status !== 200) return r;
            const { 'content-type': _dropped, ...headers } = r.headers;
            return { ...r, headers };
          },
        }),
        expect: [/response\.header\.content-type {2}no Content-Type header on a 200: resumeProject documents application\/json for it/],
      },
    ],
  },
  // What a write must leave alone: each fault changes a field the write does not change, top-level and nested, for
  // both operations: differently on every answer (a counter kept by the fault), or the same way every time (seen
  // against the record as it was before the first write: the mock's GET /__mock/records/{id}).
  {
    name: 'left alone: inserted_at, a milestone, is_pinned, the champion, a target, a checklist item and the description change on writes',
    exit: 1,
    faults: [
      {
        name: 'inserted_at rewritten',
        fault: () => {
          let n = 0;
          return on200((body) => {
            const project = entity(body, 'project');
            if ('inserted_at' in project) project['inserted_at'] = new Date(Date.UTC(2025, 0, 1) + ++n * 1000).toISOString().replace('.000', '');
          });
        },
        expect: [
          /response\.body\.project\.inserted_at {2}resume changes only state, status, next_check_in_scheduled_at, is_outdated, updated_at of the project .* but this field was "2025-01-01T00:00:\d\dZ" in the previous answer for the same project and is "2025-01-01T00:00:\d\dZ" now/,
        ],
      },
      {
        name: 'a nested milestone toggled',
        fault: () => {
          let n = 0;
          return on200((body) => {
            const milestones = entity(body, 'project')['milestones'];
            const first: unknown = Array.isArray(milestones) ? milestones[0] : undefined;
            if (isObject(first)) first['status'] = ++n % 2 === 0 ? 'done' : 'pending';
          });
        },
        expect: [/response\.body\.project\.milestones\[0\]\.status {2}resume changes only/],
      },
      {
        name: "the champion's title rewritten",
        fault: () => {
          let n = 0;
          return on200((body) => {
            const champion = entity(body, 'goal')['champion'];
            if (isObject(champion)) champion['title'] = `Head of Growth ${++n}`;
          });
        },
        expect: [
          /response\.body\.goal\.champion\.title {2}close changes only closed_at, is_closed, is_outdated, closed_by, success, success_status, status, updated_at, retrospective of the goal/,
        ],
      },
      {
        name: 'a target moved',
        fault: () => {
          let n = 0;
          return on200((body) => {
            const targets = entity(body, 'goal')['targets'];
            const first: unknown = Array.isArray(targets) ? targets[0] : undefined;
            if (isObject(first) && typeof first['value'] === 'number') first['value'] = first['value'] + ++n;
          });
        },
        expect: [/response\.body\.goal\.targets\[0\]\.value {2}close changes only/],
      },
      {
        name: 'is_pinned set by every resume',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['is_pinned'] === false) project['is_pinned'] = true;
          }),
        expect: [
          /response\.body\.project\.is_pinned {2}resume changes only .* but this field was false in the previous answer for the same project and is true now/,
        ],
      },
      {
        name: 'a checklist item renamed by every close',
        fault: () =>
          on200((body) => {
            const checklist = entity(body, 'goal')['checklist'];
            const first: unknown = Array.isArray(checklist) ? checklist[0] : undefined;
            if (isObject(first)) first['name'] = 'Renamed by the close';
          }),
        expect: [/response\.body\.goal\.checklist\[0\]\.name {2}close changes only .* and is "Renamed by the close" now/],
      },
      {
        name: 'the description rewritten',
        fault: () => {
          let n = 0;
          return on200((body) => {
            const goal = entity(body, 'goal');
            if (typeof goal['description'] === 'string')
              goal['description'] = JSON.stringify({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: `closed ${++n} times` }] }] });
          });
        },
        expect: [/response\.body\.goal\.description {2}close changes only/],
      },
    ],
  },
  // Fields that must agree with each other, in every answer, top-level and nested, for both operations.
  {
    name: 'agreement: a renamed project, a champion with an old slug, a wrong space_id, an open project with an outcome, a stale status, a dated id, a closed goal outdated, a nested goal half closed',
    exit: 1,
    faults: [
      {
        name: 'name without its id',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (typeof project['name'] === 'string') project['name'] = `Renamed ${project['name']}`;
          }),
        expect: [
          /response\.body\.project\.id {2}a project's id is the slug of its name before its short id \(RULES\.md#response-ids\): name "Renamed [^"]+" gives "renamed-[a-z0-9-]+-[A-Za-z0-9]+"; got /,
        ],
      },
      {
        name: "a nested person's id from an old name",
        fault: () =>
          on200((body) => {
            const champion = entity(body, 'goal')['champion'];
            if (isObject(champion)) champion['full_name'] = 'Alice Johnson-Smith';
          }),
        expect: [
          /response\.body\.goal\.champion\.id {2}a person's id is the slug of its full_name before its short id \(RULES\.md#response-ids\): full_name "Alice Johnson-Smith" gives "alice-johnson-smith-/,
        ],
      },
      {
        name: 'space_id names another space',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (typeof project['space_id'] === 'string') project['space_id'] = 'DoesNotNameTheSpace01';
          }),
        expect: [/response\.body\.project\.space_id {2}space_id names the space the answer carries \(the bare short id of its id "growth-/],
      },
      {
        name: "an open project with an outcome, in a goal's projects",
        fault: () =>
          on200((body) => {
            const projects = entity(body, 'goal')['projects'];
            const open: unknown = Array.isArray(projects) ? projects.find((p) => isObject(p) && p['success_status'] === 'nil') : undefined;
            if (isObject(open)) open['success_status'] = 'achieved';
          }),
        expect: [/response\.body\.goal\.projects\[\d\]\.success_status {2}a project that is not closed has success_status "nil"/],
      },
      {
        name: 'status not computed from is_outdated',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (project['state'] === 'active' && project['is_outdated'] === false) project['status'] = 'outdated';
          }),
        expect: [
          /response\.body\.project\.status {2}an active project that is not outdated has the status of its last check-in \(Project\.status\/1; RULES\.md#state-project\): expected "caution"; got "outdated"/,
        ],
      },
      {
        name: 'a check-in id with another day',
        fault: () =>
          on200((body) => {
            const last = entity(body, 'project')['last_check_in'];
            if (isObject(last) && typeof last['id'] === 'string') last['id'] = last['id'].replace(/^\d{4}-\d\d-\d\d/, '2020-01-01');
          }),
        expect: [
          /response\.body\.project\.last_check_in\.id {2}a project_check_in's id is the date it was made \(inserted_at 2025-05-30T16:10:00Z\) before its short id/,
        ],
      },
      {
        name: 'a closed goal still outdated',
        fault: () =>
          on200((body) => {
            const goal = entity(body, 'goal');
            if (goal['is_closed'] === true) goal['is_outdated'] = true;
          }),
        expect: [/response\.body\.goal\.is_outdated {2}a closed goal is not outdated \(Goals\.outdated\?\/1; RULES\.md#state-goal\): expected false; got true/],
      },
      {
        name: 'a nested goal half closed',
        fault: () =>
          on200((body) => {
            const goal = entity(body, 'project')['goal'];
            if (isObject(goal) && goal['closed_at'] === null) goal['is_closed'] = true;
          }),
        expect: [
          /response\.body\.project\.goal\.is_closed {2}a goal is closed exactly when closed_at is set \(Goal\.state\/1; RULES\.md#state-goal\): is_closed true, closed_at null/,
        ],
      },
    ],
  },
  // Every answer's headers, whatever its status (RULES.md#headers): each fault passes the spec's 200-only checks.
  {
    name: 'headers on every answer: a constant request id, a publicly cacheable 401, a WWW-Authenticate challenge, a repeated Cache-Control on errors',
    files: ['auth', 'ids'],
    exit: 1,
    faults: [
      {
        name: 'a constant request id',
        fault: () => ({
          response: (_req, r) => (r.headers['x-request-id'] === undefined ? r : { ...r, headers: { ...r.headers, 'x-request-id': 'F_uAnbzq1dCbYgIAAAJB' } }),
        }),
        expect: [/every answer has a fresh x-request-id \(RULES\.md#headers\); "F_uAnbzq1dCbYgIAAAJB" was already the id of an earlier answer/],
      },
      {
        name: 'a publicly cacheable 401',
        fault: () => ({ response: (_req, r) => (r.status === 401 ? { ...r, headers: { ...r.headers, 'cache-control': 'public, max-age=3600' } } : r) }),
        expect: [/an error answer must never be stored by a shared cache: .* got "public, max-age=3600"/],
      },
      {
        name: 'a WWW-Authenticate challenge',
        fault: () => ({ response: (_req, r) => (r.status === 401 ? { ...r, headers: { ...r.headers, 'www-authenticate': 'Bearer realm="api"' } } : r) }),
        expect: [/production sends no authentication challenge .*; got WWW-Authenticate "Bearer realm=\\"api\\""/],
      },
      {
        name: 'a repeated Cache-Control on errors',
        fault: () => ({
          response: (_req, r) => {
            const value = r.headers['cache-control'];
            return r.status === 404 && value !== undefined ? { ...r, headers: { ...r.headers, 'cache-control': `${value}, ${value}` } } : r;
          },
        }),
        expect: [/production sends cache-control once; it came repeated/],
      },
    ],
  },
  // The exact media type of each error class (RULES.md#media-types): the spec's check compares media types alone.
  {
    name: 'media types: a JSON 404 without its Content-Type, JSON without its charset',
    files: ['ids', 'permissions'],
    exit: 1,
    faults: [
      {
        name: 'a JSON 404 without its Content-Type',
        fault: (tokens) => ({
          response: (req, r) => {
            if (r.status !== 404 || !(req.headers['authorization'] ?? '').includes(tokens['no_access'] ?? '-')) return r;
            const { 'content-type': _dropped, ...headers } = r.headers;
            return { ...r, headers };
          },
        }),
        expect: [/production sends 404 JSON Not found with Content-Type "application\/json; charset=utf-8" \(RULES\.md#media-types\); got none/],
      },
      {
        name: 'JSON without its charset',
        fault: () => ({
          response: (_req, r) =>
            r.headers['content-type'] === JSON_TYPE && r.status !== 404 ? { ...r, headers: { ...r.headers, 'content-type': 'application/json' } } : r,
        }),
        expect: [/with Content-Type "application\/json; charset=utf-8" \(RULES\.md#media-types\); got "application\/json"/],
      },
    ],
  },
  // Forms and values a write computes (RULES.md#timestamps, RULES.md#state-resume, RULES.md#state-close).
  {
    name: 'computed: timestamps with an offset or milliseconds, the next check-in a week late',
    files: ['resumeProject', 'closeGoal', 'state'],
    exit: 1,
    faults: [
      {
        name: 'timestamps in another form',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            if (typeof project['updated_at'] === 'string') project['updated_at'] = project['updated_at'].replace('Z', '.000Z');
            const goal = entity(body, 'goal');
            if (typeof goal['closed_at'] === 'string') goal['closed_at'] = goal['closed_at'].replace('Z', '+00:00');
          }),
        expect: [
          /response\.body\.project\.updated_at {2}production writes updated_at in UTC to the second, like 2025-06-13T15:42:07Z .*; got "[^"]+\.000Z"/,
          /response\.body\.goal\.closed_at {2}production writes closed_at in UTC to the second, .*; got "[^"]+\+00:00"/,
        ],
      },
      {
        name: 'the next check-in a week late',
        fault: () =>
          on200((body) => {
            const project = entity(body, 'project');
            const next = project['next_check_in_scheduled_at'];
            if (typeof next === 'string' && project['state'] === 'active')
              project['next_check_in_scheduled_at'] = new Date(Date.parse(next) + 7 * 86_400_000).toISOString().replace('.000Z', 'Z');
          }),
        expect: [
          /response\.body\.project\.next_check_in_scheduled_at {2}resume moves a check-in due .* to \S+ on \S+ \(the server's Date\): the coming Friday/,
        ],
      },
    ],
  },
  // The same write twice (RULES.md#state-close): alone, since any other fault on a close would stop the test before its second close.
  {
    name: "the same write twice: a close again keeps the first close's retrospective",
    files: ['closeGoal'],
    exit: 1,
    faults: [
      {
        name: "a close again keeps the first close's retrospective",
        fault: () => {
          const first = new Map<string, unknown>();
          return on200((body) => {
            const goal = entity(body, 'goal');
            const id = goal['id'];
            const retrospective = goal['retrospective'];
            if (typeof id !== 'string' || !isObject(retrospective)) return;
            const kept = first.get(id);
            if (kept === undefined) first.set(id, retrospective['id']);
            else retrospective['id'] = kept;
          });
        },
        expect: [/response\.body\.goal\.retrospective\.id {2}closing again records another close, and the goal's retrospective is the newest one/],
      },
    ],
  },
  // Nested records as the caller sees them, at any depth (RULES.md#nested-records): the nested projects of a goal.
  {
    name: "nested records: a nested project's milestones out of order, its privacy not from its access levels, its permissions of no one level",
    files: ['closeGoal'],
    exit: 1,
    faults: [
      {
        name: "a nested project's milestones out of order",
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const projects = entity(body, 'goal')['projects'];
            if (!Array.isArray(projects)) return;
            for (const project of projects) if (isObject(project) && Array.isArray(project['milestones'])) project['milestones'].reverse();
          }),
        }),
        expect: [/response\.body\.goal\.projects\[\d\]\.milestones {2}a project's milestones come in the order of its milestones_ordering_state/],
      },
      {
        name: "a nested project's privacy not from its access levels",
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const projects = entity(body, 'goal')['projects'];
            const first: unknown = Array.isArray(projects) ? projects[0] : undefined;
            if (isObject(first) && typeof first['privacy'] === 'string') first['privacy'] = 'public';
          }),
        }),
        expect: [/response\.body\.goal\.projects\[0\]\.privacy {2}a project's privacy is what its access levels give .*; got "public"/],
      },
      {
        name: "a nested project's permissions of no one level",
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const projects = entity(body, 'goal')['projects'];
            const last: unknown = Array.isArray(projects) ? projects[projects.length - 1] : undefined;
            const permissions = isObject(last) ? last['permissions'] : undefined;
            if (isObject(permissions) && permissions['has_full_access'] === true) permissions['can_comment'] = false;
          }),
        }),
        expect: [
          /response\.body\.goal\.projects\[\d\]\.permissions {2}a project's permissions come from one access level, so has_full_access implies can_comment/,
        ],
      },
    ],
  },
  // Beyond one caller: what only another allowed caller, a list order, a nested id, a number's bytes or two
  // timestamps of one answer show. Each fault is one the earlier rules let through. The faults on the bytes come last:
  // the others parse and write the body again.
  {
    name: 'beyond one caller: the editor with full access, nested permissions not the caller’s, contributors and targets out of order, a goal’s projects naming its parent, 70.0 and 100 for the numbers, updated_at two hours after closed_at',
    files: ['state', 'closeGoal', 'resumeProject'],
    exit: 1,
    faults: [
      {
        name: 'the editor gets full access in every answer',
        fault: (tokens) => ({
          response: (req, r) => {
            const editor = tokens['editor'];
            if (r.status !== 200 || editor === undefined || !(req.headers['authorization'] ?? '').includes(editor)) return r;
            const body = jsonObjectOf(r.body);
            if (!body) return r;
            for (const key of ['project', 'goal']) {
              const permissions = entity(body, key)['permissions'];
              if (isObject(permissions)) permissions['has_full_access'] = true;
            }
            return { ...r, body: productionJson(body) };
          },
        }),
        expect: [
          /response\.body\.(project|goal)\.permissions {2}a (project|goal)'s permissions are the caller's own, the highest of their bindings \(RULES\.md#caller-fields\): the editor caller .* so at most level 70; got the flags of level 100/,
        ],
      },
      {
        name: 'the editor shows the champion’s unread notifications',
        fault: (tokens) => {
          let seen: unknown[] = [];
          return {
            // The editor's view of the record before its first write (GET /__mock/records/{id}?as=editor) shows them too.
            controls: true,
            response: (req, r) => {
              const body = r.status === 200 ? jsonObjectOf(r.body) : undefined;
              const project = body ? entity(body, 'project') : undefined;
              if (!body || !project || !Array.isArray(project['notifications'])) return r;
              const editor = tokens['editor'];
              const asEditor = req.path.includes('as=editor') || (editor !== undefined && (req.headers['authorization'] ?? '').includes(editor));
              if (!asEditor) {
                if (project['notifications'].length > 0) seen = project['notifications'];
                return r;
              }
              if (seen.length === 0) return r;
              project['notifications'] = seen;
              return { ...r, body: productionJson(body) };
            },
          };
        },
        expect: [
          /response\.body\.project\.notifications\[0\] {2}a project's notifications are the caller's own unread ones \(RULES\.md#caller-fields\): notification [0-9a-f-]+ is not an unread notification of the editor person/,
        ],
      },
      {
        name: 'a nested project’s permissions are not the caller’s (the champion without full access)',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const projects = entity(body, 'goal')['projects'];
            if (!Array.isArray(projects)) return;
            for (const project of projects) {
              const permissions = isObject(project) ? project['permissions'] : undefined;
              if (isObject(permissions) && permissions['has_full_access'] === true) permissions['has_full_access'] = false;
            }
          }),
        }),
        expect: [
          /response\.body\.goal\.projects\[\d\]\.permissions {2}a project's permissions are the caller's own.*: the full_access caller .* is the champion \(100\).* so level 100; got the flags of level 70/,
        ],
      },
      {
        name: 'contributors champion, contributor, reviewer',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const contributors = entity(body, 'project')['contributors'];
            if (!Array.isArray(contributors) || contributors.length < 3) return;
            const [champion, reviewer, ...rest] = contributors;
            contributors.splice(0, contributors.length, champion, ...rest, reviewer);
          }),
        }),
        expect: [/response\.body\.project\.contributors {2}a project's contributors come champion, reviewer, contributor, then by full name/],
      },
      {
        name: 'targets newest first',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const targets = entity(body, 'goal')['targets'];
            if (Array.isArray(targets)) targets.reverse();
          }),
        }),
        expect: [/response\.body\.goal\.targets {2}a goal's targets come in the order of their index/],
      },
      {
        name: 'task statuses in reverse',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const statuses = entity(body, 'project')['task_statuses'];
            if (Array.isArray(statuses)) statuses.reverse();
          }),
        }),
        expect: [/response\.body\.project\.task_statuses {2}a project's task_statuses come in the order of their index/],
      },
      {
        name: 'the project’s subscription list is the write’s',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const list = entity(body, 'project')['subscription_list'];
            if (isObject(list)) list['parent_type'] = 'comment_thread';
          }),
        }),
        expect: [/response\.body\.project\.subscription_list\.parent_type {2}a project's subscription_list is the project's own, parent_type "project"/],
      },
      {
        name: 'a goal’s projects name its parent goal',
        fault: () => ({
          controls: true,
          ...on200((body) => {
            const goal = entity(body, 'goal');
            const parent = goal['parent_goal_id'];
            const projects = goal['projects'];
            if (typeof parent !== 'string' || !Array.isArray(projects)) return;
            for (const project of projects) if (isObject(project)) project['goal_id'] = parent.split('-').at(-1) ?? parent;
          }),
        }),
        expect: [/response\.body\.goal\.projects\[\d\]\.goal_id {2}a project the goal lists names the goal that holds it/],
      },
      {
        name: 'updated_at two hours after closed_at (local time written as UTC)',
        fault: () =>
          on200((body) => {
            const goal = entity(body, 'goal');
            const closedAt = goal['closed_at'];
            if (typeof closedAt === 'string' && goal['is_closed'] === true)
              goal['updated_at'] = new Date(Date.parse(closedAt) + 7_200_000).toISOString().replace('.000Z', 'Z');
          }),
        expect: [/response\.body\.goal\.updated_at {2}close sets closed_at and bumps updated_at in the same write, so they are the same instant/],
      },
      {
        name: 'access levels written 70.0',
        fault: () => ({ response: (_req, r) => (r.status === 200 ? { ...r, body: r.body.replace(/"space":70([,}])/g, '"space":70.0$1') } : r) }),
        expect: [/response\.body\.(project|goal)\.access_levels\.space {2}space is an integer field .* like 70; got 70\.0/],
      },
      {
        name: 'a whole float written as an integer (progress 100)',
        fault: () => ({
          response: (_req, r) => (r.status === 200 ? { ...r, body: r.body.replace(/"progress_percentage":(\d+)\.0([,}])/g, '"progress_percentage":$1$2') } : r),
        }),
        expect: [/response\.body\.goal\.progress_percentage {2}progress_percentage is a float field .*: \d+\.0; got \d+ /],
      },
    ],
  },
  // The subscriptions and notifications of a write that names people (RULES.md#subscriptions), as the state shows them
  // (an implementation whose rows are wrong: the mock's GET /__mock/state rewritten as such an implementation's).
  {
    name: 'subscriptions: a mentioned person invited, the author notified, the caller subscribed twice',
    files: ['state'],
    exit: 1,
    faults: [
      {
        name: 'a mentioned person subscribed as invited',
        fault: () =>
          onNewestList((rows) => {
            for (const row of rows) if (row['type'] === 'mentioned') row['type'] = 'invited';
          }),
        expect: [/state\.subscriptions {2}the comment_only person is subscribed as "mentioned" \(only mentioned; RULES\.md#subscriptions\); got "invited"/],
      },
      {
        name: 'the author notified of their own write',
        fault: () =>
          onState((state) => {
            const activities = state['activities'];
            const notifications = state['notifications'];
            const last: unknown = Array.isArray(activities) ? activities.at(-1) : undefined;
            if (!isObject(last) || !Array.isArray(notifications)) return;
            notifications.push({
              ...(isObject(notifications[0]) ? notifications[0] : {}),
              id: `author-${String(last['id'])}`,
              person_uuid: last['author_uuid'],
              activity_id: last['id'],
            });
          }),
        expect: [/state\.notifications {2}the author of a write is never notified of it \(RULES\.md#side-effects\); the (full_access|editor) person was/],
      },
      {
        name: 'the caller subscribed twice',
        fault: () =>
          onNewestList((rows, all) => {
            const invited = rows.find((r) => r['type'] === 'invited');
            if (invited) all.push({ ...invited, id: `${String(invited['id'])}-again` });
          }),
        expect: [
          /state\.subscriptions {2}each person is subscribed once, however often they are listed or mentioned \(RULES\.md#subscriptions\); the \w+ person has 2 subscriptions/,
        ],
      },
    ],
  },
  {
    name: 'subscriptions: a mention not subscribed, a listed person without access notified',
    files: ['state'],
    exit: 1,
    faults: [
      {
        name: 'a listed person without access notified',
        fault: () =>
          onState((state) => {
            const [activities, lists, subscriptions, notifications] = ['activities', 'subscription_lists', 'subscriptions', 'notifications'].map(
              (k) => state[k],
            );
            const last: unknown = Array.isArray(activities) ? activities.at(-1) : undefined;
            const list: unknown = Array.isArray(lists) ? lists.at(-1) : undefined;
            if (!isObject(last) || !isObject(list) || !Array.isArray(subscriptions) || !Array.isArray(notifications)) return;
            const notified = new Set(notifications.flatMap((n) => (isObject(n) && n['activity_id'] === last['id'] ? [n['person_uuid']] : [])));
            for (const row of subscriptions)
              if (
                isObject(row) &&
                row['subscription_list_id'] === list['id'] &&
                row['person_uuid'] !== last['author_uuid'] &&
                !notified.has(row['person_uuid'])
              )
                notifications.push({ id: `also-${String(row['id'])}`, person_uuid: row['person_uuid'], activity_id: last['id'], read: false });
          }),
        expect: [
          /state\.notifications {2}only subscribers who can see the record are notified \(a subscriber without access is subscribed, never notified; RULES\.md#subscriptions\); the no_access person was notified/,
        ],
      },
      {
        name: 'a mentioned person not subscribed',
        fault: () =>
          onNewestList((rows, all) => all.splice(0, all.length, ...all.filter((r) => !isObject(r) || !rows.includes(r) || r['type'] !== 'mentioned'))),
        expect: [/state\.subscriptions {2}the comment_only person is mentioned, so the write subscribes them \(RULES\.md#subscriptions\); no subscription/],
      },
    ],
  },
  // The control: an additive field is a warning, and the run passes.
  {
    name: 'control: an additive response field is a warning, not a failure',
    files: ['responses', 'resumeProject'],
    exit: 0,
    faults: [
      {
        name: 'additive field',
        fault: () =>
          on200((body) => {
            entity(body, 'project')['extra_field'] = 1;
            entity(body, 'goal')['extra_field'] = 1;
          }),
        expect: [/response\.body\.project\.extra_field {2}field "extra_field" is not in the spec \(an additive field: reported, not a failure\)/],
      },
    ],
  },
];
