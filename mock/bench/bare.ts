// The baselines: a bare Express 5 app and a bare node:http server that answer each bench scenario with a body
// computed before they listen (our mock's real answer, fetched once by run.ts), so the bench can tell what the
// mock's own work costs on top of the framework and of Node's HTTP stack.
//
//   node mock/bench/bare.ts express|http --port 0 < answers.json    prints `port: N` once listening
//
// answers.json: [{ "path", "auth", "session", "status", "headers": {…}, "body" }]; a POST is matched by its path and by
// whether it carries an Authorization and an X-Mock-Session header. Anything else is 404.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

type Answer = { path: string; auth: boolean; session: boolean; status: number; headers: Record<string, string>; body: Buffer };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseAnswers(text: string): Answer[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('answers must be a JSON array');
  return parsed.map((item: unknown, index) => {
    if (!isRecord(item) || typeof item['path'] !== 'string' || typeof item['auth'] !== 'boolean' || typeof item['session'] !== 'boolean' || typeof item['status'] !== 'number' || typeof item['body'] !== 'string' || !isRecord(item['headers'])) {
      throw new Error(`answers[${index}] is not { path, auth, session, status, headers, body }`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(item['headers'])) if (typeof value === 'string') headers[name] = value;
    return { path: item['path'], auth: item['auth'], session: item['session'], status: item['status'], headers, body: Buffer.from(item['body'], 'utf8') };
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

const { values, positionals } = parseArgs({ options: { port: { type: 'string', default: '0' } }, allowPositionals: true });
const kind = positionals[0];
if (kind !== 'express' && kind !== 'http') {
  process.stderr.write('usage: node mock/bench/bare.ts express|http [--port N] < answers.json\n');
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

async function expressApp(): Promise<import('express').Express> {
  // Imported only for this baseline, so the node:http one carries no Express code in its RSS.
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.post('/{*rest}', (req, res) => send(res, find(req.path, req.headers)));
  return app;
}

const server =
  kind === 'express'
    ? createServer(await expressApp())
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
