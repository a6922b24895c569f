// The core behind a bare node:http server: what the `mock` command serves with, so a replica's start loads no
// framework (Express was most of the cold start: mock/bench/README.md, "Cold start"). It reads the body as the
// Express adapter's express.raw does (app.ts: never inflated, at most the body limit, a declared length that does not
// match refused), hands the core the request, and writes the answer. Node only.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { collectSoon, LARGE_BODY } from './collect.ts';
import type { MockCore, MockRequest } from '../core/core.ts';
import { MOCK_CONTROL_FAILED } from '../answers/errors.ts';
import { hold } from '../answers/faults.ts';
import { originForm, readTarget } from './requestTarget.ts';

type Body = { bytes: Uint8Array; error?: MockRequest['bodyError'] };

const EMPTY = new Uint8Array(0);

/** What a dropped keep-alive connection sends before it closes (dropConnection); sockets that carried a request. */
const NOT_HTTP = '\0';
const carried = new WeakSet<Socket>();

/**
 * The request as the core reads it: Node keeps the first of a repeated Authorization or Content-Type, joins others.
 * An absolute-form target is answered as its origin form, with its authority as the host (requestTarget.ts).
 */
export function mockRequestOf(req: IncomingMessage, target: string, body: Uint8Array, receivedAt: number): MockRequest {
  const headers = req.headers;
  const absolute = originForm(target);
  const header = (name: string): string | undefined => {
    if (absolute && name === 'host') return absolute.host;
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { method: req.method ?? 'GET', target: absolute?.target ?? target, header, body, receivedAt };
}

/** Hands the core the request and writes its answer, or drops the connection where the answer is a fault. */
export async function answerHttp(core: MockCore, req: IncomingMessage, res: ServerResponse, request: MockRequest): Promise<void> {
  const reused = carried.has(req.socket);
  carried.add(req.socket);
  // The request's signal aborts when its connection closes before the answer is sent: a delayed answer stops waiting.
  if (!request.signal) {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    request.signal = gone.signal;
  }
  const framed = await core.answer(request);
  if (framed.fault) return dropConnection(req, res, framed.holdMs, reused);
  // One writeHead with the headers as a flat list: Node writes them as given, without keeping a header map first.
  const flat: string[] = [];
  for (const [name, value] of framed.headers) flat.push(name, value);
  res.writeHead(framed.status, flat);
  res.end(framed.body);
}

/**
 * A fault (faults.ts): no HTTP answer. The socket is destroyed at once (network-error), or once `holdMs` passes
 * (timeout); a client that gives up first closes it itself, which ends the hold. On a connection that carried a
 * request before, one byte that can begin no HTTP answer goes first: a browser resends a request whose reused
 * keep-alive connection closes before any byte arrives (it takes it for an idle connection the server closed), so a
 * bare close there would be retried unseen and answered normally; with the byte, every client reports a network error.
 */
async function dropConnection(req: IncomingMessage, res: ServerResponse, holdMs: number | undefined, reused: boolean): Promise<void> {
  if (holdMs !== undefined) {
    const gaveUp = new AbortController();
    const abort = (): void => gaveUp.abort();
    res.once('close', abort);
    await hold(holdMs, gaveUp.signal);
    res.off('close', abort);
  }
  const socket = req.socket;
  if (socket.destroyed) return;
  if (reused) socket.write(NOT_HTTP, () => socket.destroy());
  else socket.destroy();
}

/**
 * The body, read whole, or why not: too large (declared or sent), unreadable (a Content-Encoding, a length that does
 * not match what came), or undefined when the client went away (nothing to answer). A refused body is read off
 * first, as body-parser does, except for an encoding, refused at once.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Body | undefined> {
  const declared = req.headers['content-length'];
  const length = Number(declared);
  if (req.headers['transfer-encoding'] === undefined && Number.isNaN(length)) return Promise.resolve({ bytes: EMPTY });
  if ((req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity') return Promise.resolve({ bytes: EMPTY, error: 'unreadable' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let error: Body['error'] = declared !== undefined && length > limit ? 'too-large' : undefined;
    req.on('data', (chunk: Buffer) => {
      if (error) return;
      received += chunk.length;
      if (received > limit) {
        error = 'too-large';
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.once('end', () => {
      if (!error && declared !== undefined && received !== length) error = 'unreadable';
      resolve(error ? { bytes: EMPTY, error } : { bytes: Buffer.concat(chunks) });
    });
    req.once('aborted', () => resolve(undefined));
    req.once('error', () => resolve(undefined));
  });
}

/** A node:http request listener over the core. */
export function createHttpListener(core: MockCore): RequestListener {
  return (req, res) => {
    const receivedAt = performance.now();
    const target = req.url ?? '/';
    readBody(req, core.bodyLimit)
      .then(async (body) => {
        if (body === undefined || res.destroyed) return;
        const request = mockRequestOf(req, target, body.bytes, receivedAt);
        if (body.error) request.bodyError = body.error;
        await answerHttp(core, req, res, request);
        if (body.bytes.length >= LARGE_BODY) collectSoon();
      })
      .catch((error: unknown) => {
        // The mock's own JSON 500 in one line, never a stack trace.
        if (res.headersSent) return void res.destroy();
        const reply = MOCK_CONTROL_FAILED(`${req.method ?? 'GET'} ${readTarget(target).path.slice(0, 100)}`, error);
        res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(reply.body));
      });
  };
}
