// The proxy's bodies, bounded: an answer's Content-Encoding decoded for the check (the client gets the bytes as the
// target sent them), and the proxy's own reads of the target (the mock's records before a first write). Every read
// stops at --max-body-bytes and --timeout, whatever the target sends; decoding an answer has one deadline (the
// exchange's --timeout) and one byte budget for all its codings together, and undoes at most MAX_CODINGS of them.
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { quoted } from '../../spec/lib/violations.ts';

/** `deadline` (performance.now()): when decoding must be done by; else `timeoutMs` from its start. */
export type Bounds = { maxBytes: number; timeoutMs: number; deadline?: number };

/** What decoding an answer gave: the body to check, or why there is none (a bad encoding, or too large decoded). */
export type Decoded = { ok: true; body: Buffer } | { ok: false; reason: 'encoding' | 'size' | 'timeout'; message: string };

type Decoder = (bytes: Buffer, options: ZlibOptions, done: (error: Error | null, result: Buffer) => void) => void;

/**
 * The most codings one answer may stack. Servers send one (Phoenix/Cowboy, nginx, CDNs: `gzip` or `br`); RFC 9110
 * §8.4 allows a list, and two (`br, gzip`) is already a proxy re-compressing. Each coding undone costs a pass over
 * the body: a list of 5,000 (`br, br, …`) cost 38 s and 5 GB decoded per answer.
 */
export const MAX_CODINGS = 3;

/**
 * The bytes all the codings of one answer may decode to together: the checked body (at most --max-body-bytes) and as
 * much again for the layers in between (each is the next one's compressed form, smaller than what it decodes to).
 */
export const budgetOf = (maxBytes: number): number => 2 * maxBytes;

const tooLarge = (error: Error): boolean => 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE';

/** RFC 9110 §8.4.1: gzip (and x-gzip), deflate (the zlib format; a raw deflate stream is read too, as browsers do), br. */
const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: (bytes, options, done) =>
    inflate(bytes, options, (error, result) => (error && !tooLarge(error) ? inflateRaw(bytes, options, done) : done(error, result))),
  br: brotliDecompress,
};

/** One coding undone, at most `maxOutputLength` bytes out, by `deadline` (performance.now()). */
function undo(decoder: Decoder, bytes: Buffer, maxOutputLength: number, deadline: number): Promise<Buffer | 'size' | 'timeout' | Error> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - performance.now()));
    timer.unref();
    decoder(bytes, { maxOutputLength }, (error, result) => {
      clearTimeout(timer);
      if (error && tooLarge(error)) resolve('size');
      else resolve(error ?? result);
    });
  });
}

/** The codings of a Content-Encoding value, in the order they were applied (`identity` and empty items left out). */
function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/**
 * The body as the client's user agent reads it: each coding of `Content-Encoding` undone, last applied first. More
 * than MAX_CODINGS codings, a coding the proxy does not know, or bytes that do not decode, is `encoding`; a body that
 * decodes past `maxBytes`, or codings that decode past budgetOf(maxBytes) together, `size`; all of it by one deadline
 * (`bounds.deadline`, else `timeoutMs` from the start), past which it is `timeout`.
 */
export async function decodeBody(bytes: Buffer, contentEncoding: string | undefined, bounds: Bounds): Promise<Decoded> {
  const codings = codingsOf(contentEncoding);
  if (codings.length > MAX_CODINGS)
    return {
      ok: false,
      reason: 'encoding',
      message: `Content-Encoding lists ${codings.length} codings (${codings.slice(0, 3).join(', ')}, …); the proxy undoes at most ${MAX_CODINGS} (servers send one)`,
    };
  const deadline = bounds.deadline ?? performance.now() + bounds.timeoutMs;
  const late: Decoded = { ok: false, reason: 'timeout', message: `the answer was not decoded within --timeout (${bounds.timeoutMs} ms from the request)` };
  const budget = budgetOf(bounds.maxBytes);
  let decoded = 0;
  let body = bytes;
  for (const coding of codings.reverse()) {
    const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding] : undefined;
    if (!decoder)
      return {
        ok: false,
        reason: 'encoding',
        message: `Content-Encoding ${quoted(coding.slice(0, 40))} is none the proxy can decode (gzip, deflate, br)`,
      };
    if (performance.now() >= deadline) return late;
    const limit = Math.min(bounds.maxBytes, budget - decoded);
    const out = await undo(decoder, body, limit, deadline);
    if (out === 'timeout') return late;
    if (out === 'size')
      return {
        ok: false,
        reason: 'size',
        message:
          limit === bounds.maxBytes
            ? `the answer decodes to more than the ${bounds.maxBytes} bytes the proxy checks (--max-body-bytes)`
            : `the answer's ${codings.length} codings decode to more than ${budget} bytes together (twice --max-body-bytes)`,
      };
    if (out instanceof Error)
      return { ok: false, reason: 'encoding', message: `the body does not decode as Content-Encoding ${coding}: ${out.message.split('\n')[0] ?? ''}` };
    decoded += out.length;
    body = out;
  }
  return { ok: true, body };
}

/** What a bounded read of the target gave: its status and whole body, or why not. */
export type Read = { ok: true; status: number; body: Buffer } | { ok: false; message: string };

/**
 * One request the proxy makes on its own behalf, read whole only while it stays within `maxBytes` and `timeoutMs`
 * (from the start, however slowly or fast the answer trickles): past either, the request is destroyed and the read
 * fails with one sentence.
 */
export function readBounded(send: (options: RequestOptions) => ClientRequest, options: RequestOptions, bounds: Bounds): Promise<Read> {
  return new Promise((resolve) => {
    let settled = false;
    const request = send(options);
    const finish = (read: Read): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!read.ok) request.destroy();
      resolve(read);
    };
    const timer = setTimeout(() => finish({ ok: false, message: `no whole answer within ${bounds.timeoutMs} ms (--timeout)` }), bounds.timeoutMs);
    timer.unref();
    request.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bounds.maxBytes) finish({ ok: false, message: `the answer passed ${bounds.maxBytes} bytes (--max-body-bytes)` });
        else chunks.push(chunk);
      });
      res.on('end', () => finish({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', (error) => finish({ ok: false, message: `the answer broke off (${error.message})` }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, message: `cannot reach it (${error.code ?? error.message})` }));
    request.end();
  });
}
