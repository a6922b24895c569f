// The proxy's own answers: JSON for its endpoints and refusals, one line of plain text for a 502 or 504.
import type { ServerResponse } from 'node:http';

/** The header that counts the contract's errors in an answer the proxy passes on. */
export const VIOLATIONS_HEADER = 'X-Contract-Violations';

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = `${JSON.stringify(value, null, 2)}\n`;
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The proxy's own answer (502, 504): one line of plain text; `violations` counted in the header when there are some. */
export function sendLine(res: ServerResponse, status: number, line: string, violations = 0): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${line}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(violations > 0 ? { [VIOLATIONS_HEADER]: String(violations) } : {}),
  });
  res.end(body);
}
