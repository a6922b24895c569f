// The proxy's own endpoints, under /__proxy/: GET violations (the exchanges kept, `?since=SEQ` for the newer ones),
// GET summary, POST reset (same-origin or no Origin only, as the mock's controls: mock/src/core/guard.ts). Any other
// method on them is 405, any other path under /__proxy 404; nothing here is forwarded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { controlOriginAllowed, crossOrigin } from '../../mock/src/core/guard.ts';
import { firstHeader } from '../model/predict.ts';
import { endToEnd } from './end-to-end.ts';
import type { TokenKnowledge } from './knowledge.ts';
import type { ViolationLog } from './log.ts';
import { sendJson } from './send-answer.ts';

export type ControlContext = {
  /** The target's origin and prefix, as the reports name it. */
  origin: string;
  log: ViolationLog;
  knowledge: TokenKnowledge;
  /** Forgets everything seen: the log, the learned tokens, the records' answers and baselines, the request ids. */
  reset(): void;
};

/** Answers a request to /__proxy or under it. */
export function answerControl(req: IncomingMessage, res: ServerResponse, url: URL, context: ControlContext): void {
  const { log, knowledge } = context;
  const route = `${req.method ?? 'GET'} ${url.pathname.replace(/\/+$/, '')}`;
  if (route === 'GET /__proxy/violations') {
    const since = Number(url.searchParams.get('since') ?? '0');
    const entries = log.entries(Number.isInteger(since) && since > 0 ? since : 0);
    sendJson(res, 200, { target: context.origin, broken: log.broken, kept: entries.length, violations: entries });
  } else if (route === 'GET /__proxy/summary') {
    sendJson(res, 200, log.summary(context.origin, knowledge.learned));
  } else if (route === 'POST /__proxy/reset') {
    const origin = firstHeader(endToEnd(req.rawHeaders), 'origin');
    if (!controlOriginAllowed(origin, undefined)) {
      const refused = crossOrigin('POST', '/__proxy/reset', origin ?? '');
      sendJson(res, refused.status, refused.body);
      return;
    }
    context.reset();
    sendJson(res, 200, { reset: true });
  } else if (['/__proxy/violations', '/__proxy/summary', '/__proxy/reset'].includes(url.pathname.replace(/\/+$/, ''))) {
    sendJson(res, 405, {
      error: 'Method not allowed',
      message: `${route} is not a proxy endpoint; use GET /__proxy/violations, GET /__proxy/summary or POST /__proxy/reset`,
    });
  } else {
    sendJson(res, 404, { error: 'Not found', message: 'the proxy serves GET /__proxy/violations, GET /__proxy/summary and POST /__proxy/reset' });
  }
}
