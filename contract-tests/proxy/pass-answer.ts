// The answer of an exchange, passed back: held (up to --max-body-bytes) until the exchange is filed
// (file-exchange.ts), so that an answer that broke the contract carries X-Contract-Violations, then written unchanged.
// A larger answer streams through unchecked and is one violation; a client that reads slowly pauses the target.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RawRequest } from '../model/predict.ts';
import { violation } from '../../spec/lib/violations.ts';
import { decodeBody } from './body.ts';
import { checkExchange, type FiledViolation, type Received } from './check.ts';
import { endToEnd, flat, lowerJoined } from './end-to-end.ts';
import type { Filing } from './file-exchange.ts';
import type { TokenKnowledge } from './knowledge.ts';
import type { ViolationLog } from './log.ts';
import type { MockTarget } from './mock-target.ts';
import { sendLine, VIOLATIONS_HEADER } from './send-answer.ts';
import type { Upstream } from './upstream.ts';

/** What forwarding an exchange needs, both ways. */
export type ForwardContext = {
  upstream: Upstream;
  knowledge: TokenKnowledge;
  log: ViolationLog;
  filing: Filing;
  /** Bodies up to this size are checked; larger ones are forwarded unchecked. */
  maxBody: number;
  /** An answer that has not come within this time is a 504 and a violation; also the bound of decoding one. */
  timeoutMs: number;
  /** Whether the target is this package's mock: asked before an answer marked X-Mock-Rehearsal is filed. */
  mockTarget?: MockTarget;
};

/** One exchange under way, as the request side (forward-request.ts) shares it with the answer's. */
export type Exchange = {
  /** The request as the proxy read it (its body undefined when it was past --max-body-bytes). */
  request(): RawRequest;
  /** What the proxy found before forwarding (failed baseline reads): filed with the exchange. */
  notes: ReadonlyArray<FiledViolation>;
  /** Whether the exchange is over: answered, timed out, failed or given up by the client. */
  readonly settled: boolean;
  /** Ends the exchange (and its timeout); false when it was already over, and nothing more may be written. */
  settle(): boolean;
  /** When --timeout runs out for this exchange (performance.now()): decoding its answer must be done by then too. */
  readonly deadline: number;
};

export function passAnswer(upstreamRes: IncomingMessage, res: ServerResponse, exchange: Exchange, context: ForwardContext): void {
  const { knowledge, log, filing, maxBody, timeoutMs } = context;
  const { origin } = context.upstream;
  const raw = exchange.request;
  const headers = endToEnd(upstreamRes.rawHeaders);
  const status = upstreamRes.statusCode ?? 502;
  const body: Buffer[] = [];
  let size = 0;
  let streaming = false;
  /** Writes to the client; a client that reads slowly pauses the target's answer until it has drained. */
  let answerWaits = false;
  const pass = (chunk: Buffer): void => {
    if (!res.write(chunk) && !answerWaits) {
      answerWaits = true;
      upstreamRes.pause();
      res.once('drain', () => {
        answerWaits = false;
        upstreamRes.resume();
      });
    }
  };
  let oversize = 0;
  upstreamRes.on('data', (chunk: Buffer) => {
    if (exchange.settled) return;
    if (streaming) {
      pass(chunk);
      return;
    }
    size += chunk.length;
    body.push(chunk);
    if (size > maxBody) {
      // Too large to hold for the check: the rest streams through, and the answer is a violation that says so
      // (an operation's documented answers are a few KB), counted in the header sent now.
      streaming = true;
      const request = raw();
      const checked = checkExchange(request, { status, headers: lowerJoined(headers), body: Buffer.alloc(0) }, knowledge);
      if (checked) {
        const v: FiledViolation = {
          ...violation(
            ['response', 'body'],
            'response.too-large',
            `the answer is larger than the ${maxBody} bytes the proxy checks (--max-body-bytes); it was forwarded unchecked`,
          ),
          rule: 'size',
        };
        oversize = filing.logged(
          request,
          { status, headers: lowerJoined(headers), body: Buffer.concat(body).subarray(0, 300) },
          checked.operationId,
          ['size'],
          [v],
          checked.prediction.rule,
        ).count;
      } else log.unchecked();
      res.writeHead(status, upstreamRes.statusMessage, flat(oversize > 0 ? [...headers, [VIOLATIONS_HEADER, String(oversize)]] : headers));
      for (const part of body.splice(0)) pass(part);
    }
  });
  upstreamRes.on('end', () => {
    if (!exchange.settle()) return;
    if (streaming) {
      res.end();
      return;
    }
    const bytes = Buffer.concat(body);
    const received: Received = { status, headers: lowerJoined(headers), body: bytes };
    // Checked as the client's user agent reads it (decoded, body.ts); forwarded as the target sent it.
    void decodeBody(bytes, received.headers['content-encoding'], { maxBytes: maxBody, timeoutMs, deadline: exchange.deadline }).then(async (decoded) => {
      await context.mockTarget?.settle(received.headers);
      let count = 0;
      try {
        count = decoded.ok
          ? filing.file(raw(), { ...received, body: decoded.body }, exchange.notes).count
          : filing.undecodable(raw(), received, decoded.reason, decoded.message);
      } catch (error) {
        // A check that fails on an answer (a bug, or an input no bound foresaw) costs that check, never the answer
        // nor the proxy: the exchange is counted unchecked, and the client gets the answer as the target sent it.
        log.checkFailed(error);
      }
      const out = count > 0 ? [...headers, [VIOLATIONS_HEADER, String(count)] as [string, string]] : headers;
      if (res.destroyed) return;
      res.writeHead(status, upstreamRes.statusMessage, flat(out));
      res.end(bytes);
    });
  });
  upstreamRes.on('error', () => {
    if (!exchange.settle()) return;
    log.upstreamError();
    sendLine(res, 502, `proxy: the answer from ${origin} broke off`);
  });
}
