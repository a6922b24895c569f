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
// a timeout, or each documented status (the spec's own example for it), sent as the mock's `Prefer`; a fault shows
// [data-try-status] as `network error` or `timeout` and no response.
import { operationModels, type OperationModel } from '../../spec/lib/operations.ts';
import { loadDocument } from '../../spec/lib/openapi.ts';
import { createMockCore } from '../../mock/src/core/core.ts';
import { fixturesOf } from '../../mock/src/core/controls.ts';
import { FAULTS, type Fault } from '../../mock/src/answers/faults.ts';
import { DEFAULT_SESSION } from '../../mock/src/storage/sessions.ts';
import { PERSONAS } from '../../mock/src/domain/state.ts';
import { defaultBaseUrl } from '../samples.ts';

const NO_TOKEN = 'none';
/** The origin requests to the in-page mock are addressed to (never fetched: the core answers them). */
const IN_PAGE = 'http://mock.invalid';

/** How long the in-page mock holds a simulated timeout before it drops the request (a page should not wait 30 s). */
const PAGE_HOLD_MS = 3000;
const core = createMockCore({ selfCheck: 'off', maxDelay: PAGE_HOLD_MS });

/** What a client sees for each fault, in a sentence (the mock sends no HTTP answer for either). */
const FAULT_NOTES: Record<Fault, string> = {
  'network-error': 'No HTTP answer: the connection was dropped. A client sees a network error (fetch rejects with a TypeError).',
  timeout: `No HTTP answer: the server held the request (here ${PAGE_HOLD_MS / 1000} s, on the mock server --max-delay) and then dropped it. A client sees its own timeout, or a network error.`,
};
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

function panel(model: OperationModel): HTMLElement {
  const id = model.operationId;
  const root = element('section', { 'data-try-operation': id, class: 'try-it', 'aria-labelledby': `try-${id}-title` });
  root.append(element('h2', { id: `try-${id}-title` }, `Try it: ${model.operationId} (${model.method} ${model.path})`));

  const persona = element('select', { 'data-try-persona': '' });
  for (const name of [...PERSONAS, NO_TOKEN]) persona.append(element('option', { value: name }, name === NO_TOKEN ? 'none (no token)' : name));
  const record = element('select', { 'data-try-record': '' });
  const target = recordField(model);
  const example = element('select', { 'data-try-example': '' });
  for (const named of model.examples) example.append(element('option', { value: named.name }, named.name));
  const body = element('textarea', { 'data-try-body': '', rows: '12', cols: '80', spellcheck: 'false' });
  // Simulate: the real answer, a fault, or each documented status (mock/src/answers/prefer.ts answers it with the spec's example).
  const simulate = element('select', { 'data-try-simulate': '' });
  simulate.append(element('option', { value: '' }, 'nothing: the real answer'));
  for (const fault of FAULTS) simulate.append(element('option', { value: `fault=${fault}` }, fault.replace('-', ' ')));
  for (const status of model.responses.keys()) simulate.append(element('option', { value: `code=${status}` }, `status ${status}`));
  const remote = element('input', { type: 'checkbox', 'data-try-remote': '' });
  const remoteBase = element('input', { type: 'url', 'data-try-base-url': '', value: baseUrl });
  const remoteToken = element('input', { type: 'password', 'data-try-token': '', autocomplete: 'off' });
  const send = element('button', { type: 'button', 'data-try-send': '' }, 'Send');
  const reset = element('button', { type: 'button', 'data-try-reset': '' }, 'Reset');
  const events = element('button', { type: 'button', 'data-try-events': '' }, 'Events');
  const out = element('div', { class: 'try-out', role: 'status', 'aria-live': 'polite' });

  const fill = async (): Promise<void> => {
    const chosen = model.examples.find((e) => e.name === example.value) ?? model.examples[0];
    const value: Record<string, unknown> = { ...(chosen?.value ?? {}) };
    if (target && record.value) value[target.field] = (await fixtures())[target.group][record.value];
    body.value = JSON.stringify(value, null, 2);
  };
  void fixtures().then((f) => {
    if (!target) return;
    for (const story of Object.keys(f[target.group])) record.append(element('option', { value: story }, `${story}: ${f[target.group][story] ?? ''}`));
    // The example's own record first: the body as the spec shows it.
    const exampleId = model.examples[0]?.value[target.field];
    const story = Object.entries(f[target.group]).find(([, recordId]) => recordId === exampleId)?.[0];
    if (story) record.value = story;
  });
  void fill();
  example.addEventListener('change', () => void fill());
  record.addEventListener('change', () => void fill());

  const show = (answer: Answer, curl: string, note?: string): void => {
    out.replaceChildren(
      element('p', {}, 'Status: '),
      element('pre', { 'data-try-headers': '' }, answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')),
      element('pre', { 'data-try-response': '' }, answer.body),
      element('p', {}, 'The same request with curl:'),
      element('pre', { 'data-try-curl': '' }, curl),
    );
    out.firstChild?.appendChild(element('strong', { 'data-try-status': '' }, String(answer.status)));
    if (note) out.prepend(element('p', { 'data-try-note': '' }, note));
  };

  /** A fault's answer: no status, no response, a sentence on what a client sees. */
  const showFault = (fault: Fault, curl: string): void => {
    out.replaceChildren(
      element('p', {}, 'Status: '),
      element('p', { 'data-try-note': '' }, FAULT_NOTES[fault]),
      element('p', {}, 'The same request with curl (against the mock server):'),
      element('pre', { 'data-try-curl': '' }, curl),
    );
    out.firstChild?.appendChild(element('strong', { 'data-try-status': '' }, fault.replace('-', ' ')));
  };

  send.addEventListener('click', () => {
    void (async () => {
      const token = persona.value === NO_TOKEN ? undefined : (await fixtures()).tokens[persona.value];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const prefer = simulate.value || undefined;
      if (prefer !== undefined) headers['prefer'] = prefer;
      if (remote.checked) {
        const given = remoteToken.value.trim();
        if (given) headers['authorization'] = `Bearer ${given}`;
        const url = `${remoteBase.value.replace(/\/+$/, '')}${model.path}`;
        try {
          // A redirect is the server's answer, never followed: following it would send the body (and the token, to
          // the same origin) to a server the user did not name, and show that server's answer as this one's.
          const response = await fetch(url, { method: model.method, headers, body: body.value, redirect: 'manual' });
          const curl = curlLine(remoteBase.value, model, given ? '$API_TOKEN' : undefined, body.value, prefer);
          const redirect = redirectOf(response);
          if (redirect) {
            show(redirect, curl, redirectNote(redirect));
            return;
          }
          const answerHeaders: Array<[string, string]> = [];
          for (const [name, value] of response.headers) answerHeaders.push([name, value]);
          show({ status: response.status, headers: answerHeaders, body: await response.text() }, curl);
        } catch (error) {
          out.replaceChildren(
            element(
              'p',
              { 'data-try-note': '' },
              `The browser did not send it, or got no answer: ${url} does not allow this page's origin (CORS), or cannot be reached (${error instanceof Error ? error.message : String(error)}).`,
            ),
          );
        }
        return;
      }
      if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
      const fault = FAULTS.find((f) => prefer === `fault=${f}`);
      if (fault === 'timeout') out.replaceChildren(element('p', { 'data-try-note': '' }, 'Sent; no answer yet…'));
      const response = await core.fetch(new Request(`${IN_PAGE}${model.path}`, { method: model.method, headers, body: body.value }));
      const curl = curlLine(baseUrl, model, token, body.value, prefer);
      if (response.type === 'error') return showFault(fault ?? 'network-error', curl);
      const answerHeaders: Array<[string, string]> = [];
      for (const [name, value] of response.headers) answerHeaders.push([name, value]);
      show({ status: response.status, headers: answerHeaders, body: await response.text() }, curl);
    })();
  });
  reset.addEventListener('click', () => {
    void Promise.resolve(core.sessions.reset(undefined)).then(() => {
      out.replaceChildren(element('p', { 'data-try-note': '' }, 'Every record is back to the seed.'));
      return fill();
    });
  });
  events.addEventListener('click', () => {
    void (async () => {
      const response = await core.fetch(new Request(`${IN_PAGE}/__mock/events`));
      out.replaceChildren(
        element('p', {}, "Who the writes so far would have notified (the mock's event journal):"),
        element('pre', { 'data-try-events-out': '' }, JSON.stringify(await response.json(), null, 2)),
      );
    })();
  });

  const server = element('fieldset', { class: 'try-remote' });
  server.append(
    element('legend', {}, 'Or send it to a server'),
    labelled('Send to a server', remote, `try-${id}-remote`),
    labelled('Base URL', remoteBase, `try-${id}-base`),
    labelled('Token', remoteToken, `try-${id}-token`),
  );
  const actions = element('div', { class: 'try-actions' });
  actions.append(send, reset, events);
  root.append(
    element(
      'p',
      {},
      'Answered inside this page by the production-true mock of the service: the same statuses, bodies and state changes as production, with no server.',
    ),
    labelled('Persona (whose token)', persona, `try-${id}-persona`),
    ...(target ? [labelled(`Record (${target.field})`, record, `try-${id}-record`)] : []),
    labelled('Request example', example, `try-${id}-example`),
    labelled('Body (JSON)', body, `try-${id}-body`),
    labelled('Simulate (the mock answers as if the request carried Prefer: …)', simulate, `try-${id}-simulate`),
    server,
    actions,
    out,
  );
  return root;
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
