// "Try it" in the reference page: every operation answered inside the page by the package's production-true mock (its
// framework-free core, mock/src/core/core.ts), with no server and no service worker, so it works from file:// and any
// static host. build.ts bundles this module (esbuild) and inlines it at the end of the page; it starts after the
// reference has rendered. State carries over between calls (resume, then resume again) until Reset; the events view
// shows who the writes would have notified; "Send to a server" sends the same request with fetch instead.
//
// Stable hooks (held-out checks use them): [data-try-operation="<operationId>"] holding select[data-try-persona]
// (the fixture personas, and `none` for no token), textarea[data-try-body], button[data-try-send],
// button[data-try-reset], and after a send [data-try-status] (the status as text) and [data-try-response] (the body
// as the server sent it). select[data-try-simulate] picks what to rehearse: nothing (the real answer), a network error,
// a timeout, each documented status (the spec's own example for it), or a mock-only gateway status (502, 503, 504: a
// gateway's page), sent as the mock's `Prefer`; a fault shows [data-try-status] as `network error` or `timeout`, no
// response, and [data-try-note] saying what the mock did (while a timeout is held: [data-try-waiting]), in the page
// and from a mock server alike (a dropped connection is not mistaken for CORS).
import { operationModels, type OperationModel } from '../../spec/lib/operations.ts';
import { loadDocument } from '../../spec/lib/openapi.ts';
import { createMockCore } from '../../mock/src/core/core.ts';
import { fixturesOf } from '../../mock/src/core/controls.ts';
import { FAULTS, type Fault } from '../../mock/src/answers/faults.ts';
import { gatewayStatuses } from '../../mock/src/answers/errors.ts';
import { DEFAULT_SESSION } from '../../mock/src/storage/sessions.ts';
import { PERSONAS } from '../../mock/src/domain/state.ts';
import { defaultBaseUrl } from '../samples.ts';

const NO_TOKEN = 'none';
/** The origin requests to the in-page mock are addressed to (never fetched: the core answers them). */
const IN_PAGE = 'http://mock.invalid';

/** How long the in-page mock holds a simulated timeout before it drops the request (a page should not wait 30 s). */
const PAGE_HOLD_MS = 3000;
const core = createMockCore({ selfCheck: 'off', maxDelay: PAGE_HOLD_MS });

/** What happened for each fault, and what a client sees, in a sentence (the mock sends no HTTP answer for either). */
const FAULT_NOTES: Record<Fault, string> = {
  'network-error':
    'No HTTP answer: the mock dropped the connection as asked (fault=network-error). A client sees a network error (fetch rejects with a TypeError).',
  timeout: `No HTTP answer: the mock held the request as asked (fault=timeout; here ${PAGE_HOLD_MS / 1000} s, on a mock server until its --max-delay) and then dropped it. A client sees its own timeout, or a network error.`,
};
/** The mock-only gateway statuses (the spec's x-messages/gateway): Simulate offers each an operation does not document. */
const GATEWAY_STATUSES = gatewayStatuses();
const baseUrl = defaultBaseUrl(loadDocument());

/** What the panel shows: the status as text (a number, or `3xx` for a redirect a browser hides), headers, body. */
type Answer = { status: number | string; headers: Array<[string, string]>; body: string };

/** The fixtures of the in-page mock's state: tokens by persona, records by story. */
async function fixtures(): Promise<ReturnType<typeof fixturesOf>> {
  return core.sessions.read(DEFAULT_SESSION, (store) => fixturesOf(core.seed, store.state));
}

/** The fixture group a request's record field reads from: `project_id` → `projects`, `goal_id` → `goals`. */
function recordField(model: OperationModel): { field: string; group: 'projects' | 'goals' } | undefined {
  for (const field of model.fields) {
    if (field.kind !== 'id' || !field.required) continue;
    const group = `${field.name.replace(/_id$/, '')}s`;
    if (group === 'projects' || group === 'goals') return { field: field.name, group };
  }
  return undefined;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function labelled(text: string, control: HTMLElement, id: string): HTMLElement {
  control.id = id;
  const wrapper = element('div', { class: 'try-field' });
  wrapper.append(element('label', { for: id }, text), control);
  return wrapper;
}

/** What a page may know of a redirect: in a browser, only that it was one (an opaque redirect: status 0, no headers). */
const UNREADABLE = 'not readable by a web page';

/**
 * A redirect answer (fetch's `redirect: 'manual'`) as the panel shows it: its status and Location when the runtime
 * exposes them, else `3xx` and a Location the page cannot read (browsers hide both from scripts). Not a redirect:
 * undefined.
 */
function redirectOf(
  response: Pick<Response, 'type' | 'status' | 'headers'>,
): { status: string; headers: Array<[string, string]>; body: string; location: string } | undefined {
  const opaque = response.type === 'opaqueredirect';
  if (!opaque && (response.status < 300 || response.status > 399)) return undefined;
  const location = response.headers.get('location') ?? UNREADABLE;
  const status = opaque || response.status === 0 ? '3xx' : String(response.status);
  return { status, headers: [['location', location]], body: '', location };
}

function redirectNote(redirect: { status: string; location: string }): string {
  const where = redirect.location === UNREADABLE ? 'its Location, which the browser does not let this page read' : redirect.location;
  return `The server answered ${redirect.status}, a redirect to ${where}. Try it does not follow redirects: nothing was sent there. The curl line below shows the redirect's status and Location (curl -i).`;
}

/** A curl line for the same request, against `base` (the token as given, or as $API_TOKEN when none is shown). */
function curlLine(base: string, model: OperationModel, token: string | undefined, body: string, prefer?: string): string {
  const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
  const auth = token === undefined ? '' : ` -H ${quote(`Authorization: Bearer ${token}`)}`;
  const simulate = prefer === undefined ? '' : ` -H ${quote(`Prefer: ${prefer}`)}`;
  return `curl -i -X ${model.method} ${quote(`${base.replace(/\/+$/, '')}${model.path}`)}${auth}${simulate} -H 'Content-Type: application/json' --data-raw ${quote(body)}`;
}

/** The controls of one operation's panel, and where its answers go. */
type Controls = {
  persona: HTMLSelectElement;
  record: HTMLSelectElement;
  example: HTMLSelectElement;
  body: HTMLTextAreaElement;
  simulate: HTMLSelectElement;
  remote: HTMLInputElement;
  remoteBase: HTMLInputElement;
  remoteToken: HTMLInputElement;
  send: HTMLButtonElement;
  reset: HTMLButtonElement;
  events: HTMLButtonElement;
  out: HTMLDivElement;
  /** The request field that names the record, and the fixture group it reads from. */
  target: { field: string; group: 'projects' | 'goals' } | undefined;
};

/**
 * Simulate: the real answer, a fault, each documented status (mock/src/answers/prefer.ts answers it with the spec's
 * example) and the mock-only gateway statuses (a gateway's page, which no operation documents).
 */
function simulateSelect(model: OperationModel): HTMLSelectElement {
  const simulate = element('select', { 'data-try-simulate': '' });
  simulate.append(element('option', { value: '' }, 'nothing: the real answer'));
  for (const fault of FAULTS) simulate.append(element('option', { value: `fault=${fault}` }, fault.replace('-', ' ')));
  for (const status of model.responses.keys()) simulate.append(element('option', { value: `code=${status}` }, `status ${status}`));
  for (const status of GATEWAY_STATUSES)
    if (!model.responses.has(String(status)))
      simulate.append(element('option', { value: `code=${status}` }, `status ${status}: a gateway's page (mock-only, no operation documents it)`));
  return simulate;
}

function controlsOf(model: OperationModel): Controls {
  const persona = element('select', { 'data-try-persona': '' });
  for (const name of [...PERSONAS, NO_TOKEN]) persona.append(element('option', { value: name }, name === NO_TOKEN ? 'none (no token)' : name));
  const example = element('select', { 'data-try-example': '' });
  for (const named of model.examples) example.append(element('option', { value: named.name }, named.name));
  return {
    persona,
    record: element('select', { 'data-try-record': '' }),
    example,
    body: element('textarea', { 'data-try-body': '', rows: '12', cols: '80', spellcheck: 'false' }),
    simulate: simulateSelect(model),
    remote: element('input', { type: 'checkbox', 'data-try-remote': '' }),
    remoteBase: element('input', { type: 'url', 'data-try-base-url': '', value: baseUrl }),
    remoteToken: element('input', { type: 'password', 'data-try-token': '', autocomplete: 'off' }),
    send: element('button', { type: 'button', 'data-try-send': '' }, 'Send'),
    reset: element('button', { type: 'button', 'data-try-reset': '' }, 'Reset'),
    events: element('button', { type: 'button', 'data-try-events': '' }, 'Events'),
    out: element('div', { class: 'try-out', role: 'status', 'aria-live': 'polite' }),
    target: recordField(model),
  };
}

/** Keeps the body the chosen example with the chosen record; the records offered are the fixtures of the in-page mock. */
function wireBody(model: OperationModel, c: Controls): () => Promise<void> {
  const fill = async (): Promise<void> => {
    const chosen = model.examples.find((e) => e.name === c.example.value) ?? model.examples[0];
    const value: Record<string, unknown> = { ...(chosen?.value ?? {}) };
    if (c.target && c.record.value) value[c.target.field] = (await fixtures())[c.target.group][c.record.value];
    c.body.value = JSON.stringify(value, null, 2);
  };
  void fixtures().then((f) => {
    const target = c.target;
    if (!target) return;
    for (const story of Object.keys(f[target.group])) c.record.append(element('option', { value: story }, `${story}: ${f[target.group][story] ?? ''}`));
    // The example's own record first: the body as the spec shows it.
    const exampleId = model.examples[0]?.value[target.field];
    const story = Object.entries(f[target.group]).find(([, recordId]) => recordId === exampleId)?.[0];
    if (story) c.record.value = story;
  });
  c.example.addEventListener('change', () => void fill());
  c.record.addEventListener('change', () => void fill());
  return fill;
}

/** An answer: its status, headers and body as sent, and the same request with curl. */
function showAnswer(out: HTMLElement, answer: Answer, curl: string, note?: string): void {
  out.replaceChildren(
    element('p', {}, 'Status: '),
    element('pre', { 'data-try-headers': '' }, answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')),
    element('pre', { 'data-try-response': '' }, answer.body),
    element('p', {}, 'The same request with curl:'),
    element('pre', { 'data-try-curl': '' }, curl),
  );
  out.firstChild?.appendChild(element('strong', { 'data-try-status': '' }, String(answer.status)));
  if (note) out.prepend(element('p', { 'data-try-note': '' }, note));
}

/** A fault's answer: no status, no response, a sentence on what happened and what a client sees. */
function showFault(out: HTMLElement, fault: Fault, curl: string, note: string = FAULT_NOTES[fault]): void {
  out.replaceChildren(
    element('p', {}, 'Status: '),
    element('p', { 'data-try-note': '' }, note),
    element('p', {}, 'The same request with curl (against the mock server):'),
    element('pre', { 'data-try-curl': '' }, curl),
  );
  out.firstChild?.appendChild(element('strong', { 'data-try-status': '' }, fault.replace('-', ' ')));
}

/** While a simulated timeout is held: what is happening, until the answer (none) replaces it. */
function showWaiting(out: HTMLElement, where: 'page' | 'server'): void {
  const until =
    where === 'page'
      ? `for ${PAGE_HOLD_MS / 1000} s (a mock server holds it until its --max-delay)`
      : 'until its --max-delay passes (30 s unless started with another)';
  out.replaceChildren(
    element(
      'p',
      { 'data-try-note': '', 'data-try-waiting': '' },
      `Waiting: the mock holds this request ${until}, then drops the connection, as asked (fault=timeout). No answer will come.`,
    ),
  );
}

/** The headers of a fetch Response, in order. */
function headersOf(response: Response): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of response.headers) out.push([name, value]);
  return out;
}

/** Why a fetch to a server rejected: the fault the request asked for, or that the browser did not send it (CORS) or got no answer. */
function remoteFailure(url: string, fault: Fault | undefined, error: unknown): string {
  const reported = error instanceof Error ? error.message : String(error);
  if (fault === 'network-error')
    return `No HTTP answer: the mock dropped the connection as asked (fault=network-error); fetch reports it as a network error (${reported}). A server that is not this package's mock ignores Prefer: then ${url} was not reached, or does not allow this page's origin (CORS).`;
  if (fault === 'timeout')
    return `No HTTP answer: the mock held the request until its --max-delay passed and then dropped the connection, as asked (fault=timeout); fetch reports it as a network error (${reported}).`;
  return `The browser did not send it, or got no answer: ${url} does not allow this page's origin (CORS), or cannot be reached (${reported}).`;
}

/** "Send to a server": the same request with fetch, a redirect shown and never followed. */
async function sendRemote(model: OperationModel, c: Controls, headers: Record<string, string>, fault: Fault | undefined): Promise<void> {
  const given = c.remoteToken.value.trim();
  if (given) headers['authorization'] = `Bearer ${given}`;
  const url = `${c.remoteBase.value.replace(/\/+$/, '')}${model.path}`;
  const curl = curlLine(c.remoteBase.value, model, given ? '$API_TOKEN' : undefined, c.body.value, headers['prefer']);
  if (fault === 'timeout') showWaiting(c.out, 'server');
  try {
    // A redirect is the server's answer, never followed: following it would send the body (and the token, to the
    // same origin) to a server the user did not name, and show that server's answer as this one's.
    const response = await fetch(url, { method: model.method, headers, body: c.body.value, redirect: 'manual' });
    const redirect = redirectOf(response);
    if (redirect) return showAnswer(c.out, redirect, curl, redirectNote(redirect));
    showAnswer(c.out, { status: response.status, headers: headersOf(response), body: await response.text() }, curl);
  } catch (error) {
    const note = remoteFailure(url, fault, error);
    if (fault) showFault(c.out, fault, curl, note);
    else c.out.replaceChildren(element('p', { 'data-try-note': '' }, note));
  }
}

/** Answered inside the page by the in-page mock (a fault: no answer, said in a sentence). */
async function sendInPage(model: OperationModel, c: Controls, headers: Record<string, string>, fault: Fault | undefined): Promise<void> {
  const token = c.persona.value === NO_TOKEN ? undefined : (await fixtures()).tokens[c.persona.value];
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (fault === 'timeout') showWaiting(c.out, 'page');
  const response = await core.fetch(new Request(`${IN_PAGE}${model.path}`, { method: model.method, headers, body: c.body.value }));
  const curl = curlLine(baseUrl, model, token, c.body.value, headers['prefer']);
  if (response.type === 'error') return showFault(c.out, fault ?? 'network-error', curl);
  showAnswer(c.out, { status: response.status, headers: headersOf(response), body: await response.text() }, curl);
}

/** Send, Reset and Events. */
function wireActions(model: OperationModel, c: Controls, fill: () => Promise<void>): void {
  c.send.addEventListener('click', () => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const prefer = c.simulate.value || undefined;
    if (prefer !== undefined) headers['prefer'] = prefer;
    const fault = FAULTS.find((f) => prefer === `fault=${f}`);
    void (c.remote.checked ? sendRemote(model, c, headers, fault) : sendInPage(model, c, headers, fault));
  });
  c.reset.addEventListener('click', () => {
    void Promise.resolve(core.sessions.reset(undefined)).then(() => {
      c.out.replaceChildren(element('p', { 'data-try-note': '' }, 'Every record is back to the seed.'));
      return fill();
    });
  });
  c.events.addEventListener('click', () => {
    void (async () => {
      const response = await core.fetch(new Request(`${IN_PAGE}/__mock/events`));
      c.out.replaceChildren(
        element('p', {}, "Who the writes so far would have notified (the mock's event journal):"),
        element('pre', { 'data-try-events-out': '' }, JSON.stringify(await response.json(), null, 2)),
      );
    })();
  });
}

/** The panel's elements in reading (and keyboard) order. */
function layout(model: OperationModel, c: Controls): HTMLElement {
  const id = model.operationId;
  const root = element('section', { 'data-try-operation': id, class: 'try-it', 'aria-labelledby': `try-${id}-title` });
  root.append(element('h2', { id: `try-${id}-title` }, `Try it: ${model.operationId} (${model.method} ${model.path})`));
  const server = element('fieldset', { class: 'try-remote' });
  server.append(
    element('legend', {}, 'Or send it to a server'),
    labelled('Send to a server', c.remote, `try-${id}-remote`),
    labelled('Base URL', c.remoteBase, `try-${id}-base`),
    labelled('Token', c.remoteToken, `try-${id}-token`),
  );
  const actions = element('div', { class: 'try-actions' });
  actions.append(c.send, c.reset, c.events);
  root.append(
    element(
      'p',
      {},
      'Answered inside this page by the production-true mock of the service: the same statuses, bodies and state changes as production, with no server.',
    ),
    labelled('Persona (whose token)', c.persona, `try-${id}-persona`),
    ...(c.target ? [labelled(`Record (${c.target.field})`, c.record, `try-${id}-record`)] : []),
    labelled('Request example', c.example, `try-${id}-example`),
    labelled('Body (JSON)', c.body, `try-${id}-body`),
    labelled('Simulate (the mock answers as if the request carried Prefer: …)', c.simulate, `try-${id}-simulate`),
    server,
    actions,
    c.out,
  );
  return root;
}

function panel(model: OperationModel): HTMLElement {
  const controls = controlsOf(model);
  const fill = wireBody(model, controls);
  void fill();
  wireActions(model, controls, fill);
  return layout(model, controls);
}

const STYLE = `
.try-host { max-width: 60rem; margin: 2rem auto; padding: 0 1.5rem 3rem; font-family: system-ui, sans-serif; }
.try-it { border: 1px solid #c9cfd8; border-radius: 8px; padding: 1rem 1.25rem; margin: 1.5rem 0; }
.try-it h2 { font-size: 1.2rem; margin: 0 0 .5rem; }
.try-field { margin: .5rem 0; display: flex; flex-direction: column; gap: .25rem; }
.try-field label { font-weight: 600; }
.try-it textarea { font-family: ui-monospace, monospace; font-size: .85rem; width: 100%; box-sizing: border-box; }
.try-it pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f6f8; padding: .5rem; border-radius: 4px; }
.try-actions { display: flex; gap: .5rem; margin: .75rem 0; }
.try-actions button { padding: .4rem 1rem; border: 1px solid #8a94a3; border-radius: 4px; background: #fff; cursor: pointer; font: inherit; }
.try-actions button[data-try-send] { background: #1f6feb; border-color: #1f6feb; color: #fff; }
.try-remote .try-field:first-of-type { flex-direction: row; align-items: center; }
.try-it input[type=url], .try-it input[type=password], .try-it select { font: inherit; padding: .25rem; }
.try-it :focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
.try-skip { position: fixed; top: .5rem; left: .5rem; z-index: 1000; padding: .5rem 1rem; transform: translateY(-200%); }
.try-skip:focus { transform: none; }
`;

/** Mounts the panels below the reference, once it has rendered. */
function mount(): void {
  const host = element('section', { class: 'try-host', 'aria-label': 'Try the API in this page' });
  host.append(element('h1', {}, 'Try it'));
  for (const model of operationModels()) host.append(panel(model));
  const style = element('style', {}, STYLE);
  document.head.append(style);
  document.body.append(host);
  // The first stop of the keyboard: past the reference to the panels (shown only while focused).
  const skip = element('button', { type: 'button', class: 'try-skip', 'data-try-skip': '' }, 'Skip to Try it');
  skip.addEventListener('click', () => {
    host.querySelector<HTMLElement>('select[data-try-persona]')?.focus();
    host.scrollIntoView();
  });
  document.body.prepend(skip);
}

if (document.readyState === 'complete') setTimeout(mount, 0);
else window.addEventListener('load', () => setTimeout(mount, 0), { once: true });
