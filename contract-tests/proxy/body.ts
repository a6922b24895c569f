// The proxy's bodies, bounded: an answer's Content-Encoding decoded for the check (the client gets the bytes as the
// target sent them), and the proxy's own reads of the target (the mock's records before a first write). Every read
// and every decoding stops at --max-body-bytes and --timeout, whatever the target sends.
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';

export type Bounds = { maxBytes: number; timeoutMs: number };

/** What decoding an answer gave: the body to check, or why there is none (a bad encoding, or too large decoded). */
export type Decoded = { ok: true; body: Buffer } | { ok: false; reason: 'encoding' | 'size'; message: string };

type Decoder = (bytes: Buffer, options: ZlibOptions, done: (error: Error | null, result: Buffer) => void) => void;

const tooLarge = (error: Error): boolean => 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE';

/** RFC 9110 §8.4.1: gzip (and x-gzip), deflate (the zlib format; a raw deflate stream is read too, as browsers do), br. */
const DECODERS: Readonly<Record<string, Decoder>> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: (bytes, options, done) =>
    inflate(bytes, options, (error, result) => (error && !tooLarge(error) ? inflateRaw(bytes, options, done) : done(error, result))),
  br: brotliDecompress,
};

/** One coding undone, at most `maxOutputLength` bytes out, within the time left. */
function undo(decoder: Decoder, bytes: Buffer, bounds: Bounds): Promise<Buffer | 'size' | Error> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(new Error(`not decoded within ${bounds.timeoutMs} ms (--timeout)`)), bounds.timeoutMs);
    timer.unref();
    decoder(bytes, { maxOutputLength: bounds.maxBytes }, (error, result) => {
      clearTimeout(timer);
      if (error && tooLarge(error)) resolve('size');
      else resolve(error ?? result);
    });
  });
}

/**
 * The body as the client's user agent reads it: each coding of `Content-Encoding` undone, last applied first. A coding
 * the proxy does not know, or bytes that do not decode, is `encoding`; a body that decodes past `maxBytes`, `size`.
 */
export async function decodeBody(bytes: Buffer, contentEncoding: string | undefined, bounds: Bounds): Promise<Decoded> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let body = bytes;
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (!decoder)
      return {
        ok: false,
        reason: 'encoding',
        message: `Content-Encoding ${JSON.stringify(coding.slice(0, 40))} is none the proxy can decode (gzip, deflate, br)`,
      };
    const out = await undo(decoder, body, bounds);
    if (out === 'size')
      return { ok: false, reason: 'size', message: `the answer decodes to more than the ${bounds.maxBytes} bytes the proxy checks (--max-body-bytes)` };
    if (out instanceof Error)
      return { ok: false, reason: 'encoding', message: `the body does not decode as Content-Encoding ${coding}: ${out.message.split('\n')[0] ?? ''}` };
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
