// The request forwarding: the request goes to the target unchanged (the body streamed as it arrives, over the
// upstream's keep-alive agent, no header added; hop-by-hop headers dropped and Host set to the target's), the answer
// comes back unchanged (pass-answer.ts: filed before it is written, so that an answer that broke the contract carries
// X-Contract-Violations). The upload keeps backpressure; a request body past --max-body-bytes streams through
// unchecked; no answer within --timeout is a 504 and a violation; a target that cannot be reached is a 502.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RawRequest } from '../model/predict.ts';
import { violation } from '../../spec/lib/violations.ts';
import { checkExchange, type FiledViolation } from './check.ts';
import { endToEnd, flat } from './end-to-end.ts';
import { passAnswer, type Exchange, type ForwardContext } from './pass-answer.ts';
import { sendLine } from './send-answer.ts';

/** Forwards one request and passes its answer back; `notes` are filed with the exchange (failed baseline reads). */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, notes: ReadonlyArray<FiledViolation>, context: ForwardContext): void {
  const { knowledge, log, filing, maxBody, timeoutMs } = context;
  const { target, origin, prefix, agent, send } = context.upstream;
  const requestHeaders = endToEnd(req.rawHeaders);
  const upstreamHeaders = requestHeaders.map(([n, v]): [string, string] => (n.toLowerCase() === 'host' ? [n, target.host] : [n, v]));
  if (!upstreamHeaders.some(([n]) => n.toLowerCase() === 'host')) upstreamHeaders.unshift(['Host', target.host]);
  const chunks: Buffer[] = [];
  let kept = 0;
  let complete = false;
  let tooLarge = false;
  let finished = false;

  const raw = (): RawRequest => ({
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: requestHeaders,
    body: tooLarge ? undefined : Buffer.concat(chunks),
  });
  const deadline = performance.now() + timeoutMs;
  const timer = setTimeout(() => {
    if (finished) return;
    finished = true;
    upstream?.destroy();
    const request = raw();
    const checked = checkExchange(request, { status: 504, headers: {}, body: Buffer.alloc(0) }, knowledge);
    let count = 0;
    if (checked) {
      const v: FiledViolation = { ...violation(['response'], 'timeout', `the target did not answer within ${timeoutMs} ms (--timeout)`), rule: 'timeout' };
      count = filing.logged(request, undefined, checked.operationId, ['timeout'], [v], checked.prediction.rule).count;
    } else log.upstreamError();
    sendLine(res, 504, `proxy: ${origin} did not answer ${req.method ?? 'GET'} ${req.url ?? '/'} within ${timeoutMs} ms`, count);
  }, timeoutMs);
  timer.unref();

  const exchange: Exchange = {
    request: raw,
    notes,
    deadline,
    get settled() {
      return finished;
    },
    settle() {
      if (finished) return false;
      finished = true;
      clearTimeout(timer);
      return true;
    },
  };

  let upstream: ReturnType<typeof send> | undefined;
  const open = (retry: boolean): void => {
    const request = send({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: `${prefix}${req.url ?? '/'}`,
      headers: flat(upstreamHeaders),
      agent,
      setHost: false,
    });
    upstream = request;
    request.on('response', (upstreamRes) => passAnswer(upstreamRes, res, exchange, context));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (finished) return;
      // A kept-alive socket the target closed meanwhile: once more on a fresh one, when the whole body is at hand.
      if (!retry && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && complete && !tooLarge) {
        open(true);
        upstream?.end(Buffer.concat(chunks));
        return;
      }
      finished = true;
      clearTimeout(timer);
      log.upstreamError();
      sendLine(res, 502, `proxy: cannot reach ${origin} (${error.code ?? error.message})`);
    });
  };
  open(false);

  let uploadWaits = false;
  req.on('data', (chunk: Buffer) => {
    if (!tooLarge) {
      kept += chunk.length;
      if (kept > maxBody) {
        tooLarge = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    }
    // Backpressure: a target that reads slowly (or not at all) slows the client down, instead of the proxy
    // holding the upload in memory.
    // A chunk already read while paused writes without a second listener: one 'drain' resumes.
    const sink = upstream;
    if (sink && !sink.write(chunk) && !uploadWaits) {
      uploadWaits = true;
      req.pause();
      sink.once('drain', () => {
        uploadWaits = false;
        req.resume();
      });
    }
  });
  req.on('end', () => {
    complete = true;
    upstream?.end();
  });
  res.on('close', () => {
    if (!res.writableFinished) {
      finished = true;
      clearTimeout(timer);
      upstream?.destroy();
    }
  });
}
