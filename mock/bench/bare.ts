// The baselines: a bare Express 5 app and a bare node:http server that answer each bench scenario with a body
// computed before they listen (our mock's real answer, fetched once by run.ts), so the bench can tell what the
// mock's own work costs on top of the framework and of Node's HTTP stack; and the fair floor for any mock, an
// Express 5 app that parses the request body (express.json()) and stringifies the same answer object per request
// (res.json), so what it does per request is what any mock must do at least.
//
//   node mock/bench/bare.ts express|http|express-floor --port 0 < answers.json    prints `port: N` once listening
//
// answers.json: [{ "path", "auth", "session", "status", "headers": {…}, "body" }]; a POST is matched by its path and by
// whether it carries an Authorization and an X-Mock-Session header. Anything else is 404. The floor parses each JSON
// answer once at start and sends `res.json(value)` per request (an answer that is not JSON, the 401's text, as it
// is); it answers 400 to a request whose body is not a JSON object.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { productionJson } from '../../spec/lib/number-form.ts';

type Answer = {
  path: string;
  auth: boolean;
  session: boolean;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  json: { value: unknown } | undefined;
};

const KINDS = ['express', 'http', 'express-floor'] as const;
type BareKind = (typeof KINDS)[number];

function jsonOf(body: string, contentType: string | undefined): { value: unknown } | undefined {
  if (!contentType?.toLowerCase().startsWith('application/json')) return undefined;
  return { value: JSON.parse(body) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseAnswers(text: string): Answer[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('answers must be a JSON array');
  return parsed.map((item: unknown, index) => {
    if (
      !isRecord(item) ||
      typeof item['path'] !== 'string' ||
      typeof item['auth'] !== 'boolean' ||
      typeof item['session'] !== 'boolean' ||
      typeof item['status'] !== 'number' ||
      typeof item['body'] !== 'string' ||
      !isRecord(item['headers'])
    ) {
      throw new Error(`answers[${index}] is not { path, auth, session, status, headers, body }`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(item['headers'])) if (typeof value === 'string') headers[name] = value;
    return {
      path: item['path'],
      auth: item['auth'],
      session: item['session'],
      status: item['status'],
      headers,
      body: Buffer.from(item['body'], 'utf8'),
      json: jsonOf(item['body'], headers['content-type']),
    };
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

const { values, positionals } = parseArgs({ options: { port: { type: 'string', default: '0' } }, allowPositionals: true });
const kind = positionals[0];
const isKind = (value: string | undefined): value is BareKind => KINDS.some((k) => k === value);
if (!isKind(kind)) {
  process.stderr.write(`usage: node mock/bench/bare.ts ${KINDS.join('|')} [--port N] < answers.json\n`);
  process.exit(2);
}
const answers = parseAnswers(await readStdin());
const key = (path: string, auth: boolean, session: boolean): string => `${auth ? 'auth' : 'anon'} ${session ? 'session' : 'default'} ${path}`;
const byKey = new Map(answers.map((a) => [key(a.path, a.auth, a.session), a]));
const find = (path: string | undefined, headers: IncomingMessage['headers']): Answer | undefined =>
  byKey.get(key(path ?? '', headers['authorization'] !== undefined, headers['x-mock-session'] !== undefined));

function send(res: ServerResponse, answer: Answer | undefined): void {
  if (!answer) {
    res.statusCode = 404;
    res.end();
    return;
  }
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader('content-length', answer.body.length);
  res.end(answer.body);
}

/** The floor: the request body parsed, the answer's object stringified, as any JSON server must do per request. */
function sendStringified(res: import('express').Response, answer: Answer | undefined, requestBody: unknown): void {
  if (!answer) {
    res.status(404).end();
    return;
  }
  if (typeof requestBody !== 'object' || requestBody === null || Array.isArray(requestBody)) {
    res.status(400).end();
    return;
  }
  if (!answer.json) {
    send(res, answer);
    return;
  }
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  // Written as production writes numbers (a float 5.0 as `5.0`), as the mock does: the same bytes, the same work.
  const body = productionJson(answer.json.value);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

async function expressApp(floor: boolean): Promise<import('express').Express> {
  // Imported only for these baselines, so the node:http one carries no Express code in its RSS.
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  if (floor) {
    app.use(express.json());
    app.post('/{*rest}', (req, res) => sendStringified(res, find(req.path, req.headers), req.body));
  } else app.post('/{*rest}', (req, res) => send(res, find(req.path, req.headers)));
  return app;
}

const server =
  kind !== 'http'
    ? createServer(await expressApp(kind === 'express-floor'))
    : createServer((req: IncomingMessage, res: ServerResponse) => {
        const path = req.url?.split('?')[0];
        send(res, req.method === 'POST' ? find(path, req.headers) : undefined);
      });
server.listen(Number(values.port), '127.0.0.1', () => {
  process.stdout.write(`${kind} baseline listening\nport: ${(server.address() as AddressInfo).port}\n`);
});
const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
