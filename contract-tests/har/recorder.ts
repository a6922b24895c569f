// The recorder behind `proxy --record FILE`: each exchange the proxy forwards becomes a masked HAR entry
// (mask-exchange.ts), off the answer's path (the masking runs after the answer is on its way). The file is written
// whole, to a temporary file renamed over FILE (never half written), at most once a second while exchanges come
// (so it is valid HAR within a second of the last one), and at once by `flush()` on SIGINT/SIGTERM. Bounded: past
// --record-max-bytes, recording stops with one line (`onStop`) and the proxy goes on forwarding.
import { closeSync, copyFileSync, ftruncateSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import type { RawRequest } from '../model/predict.ts';
import type { HarLog, Received } from './har.ts';
import { ExchangeMasker } from './mask-exchange.ts';
import { isObject } from '../../spec/lib/openapi.ts';
import { TOKEN_FORM } from '../model/fixtures.ts';

export const DEFAULT_RECORD_MAX_BYTES = 64 * 1024 * 1024;
const DEBOUNCE_MS = 1000;

export type RecorderOptions = {
  file: string;
  /** The target's origin and path prefix: the recorded URLs are absolute, under it. */
  origin: string;
  /** Each token of the --tokens file and its persona. */
  personas?: Iterable<readonly [string, string]>;
  maxBytes?: number;
  creator?: { name: string; version: string };
  /** The fixture records and people of the --tokens file (no token): written into the log for drift. */
  fixtures?: HarLog['_fixtures'];
  /** Told once, when recording stops at maxBytes (or the file cannot be written). */
  onStop?: (line: string) => void;
  now?: () => Date;
};

export class Recorder {
  readonly #options: RecorderOptions;
  readonly #masker: ExchangeMasker;
  readonly #maxBytes: number;
  /** The entries not yet in the file, as JSON texts; how many are; and the bytes of all. */
  #entries: string[] = [];
  #count = 0;
  #bytes = 0;
  /** Where the last entry in the file ends (the tail starts): undefined until the file is first written. */
  #end: number | undefined;
  /** How many entries the file holds. */
  #written = 0;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #dirty = false;
  #fixtures: HarLog['_fixtures'];
  readonly #pending: Array<[RawRequest, Received, Date, number]> = [];

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.#masker = new ExchangeMasker(options.personas ?? []);
    this.#fixtures = options.fixtures;
    this.#maxBytes = options.maxBytes ?? DEFAULT_RECORD_MAX_BYTES;
    this.flush();
  }

  get count(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Records one exchange (masked on the next turn of the event loop, off the answer's path). */
  add(request: RawRequest, received: Received, started: Date, durationMs: number): void {
    if (this.#stopped) return;
    this.#pending.push([request, received, started, durationMs]);
    if (this.#pending.length === 1) setImmediate(() => this.#drain());
  }

  #drain(): void {
    for (const [request, received, started, durationMs] of this.#pending.splice(0)) this.#add(request, received, started, durationMs);
  }

  #add(request: RawRequest, received: Received, started: Date, durationMs: number): void {
    if (this.#stopped) return;
    this.#learn(request, received);
    // One line per entry: the file diffs by exchange and stays small.
    const text = JSON.stringify(this.#masker.entry(this.#options.origin, request, received, { started, durationMs }));
    const size = Buffer.byteLength(text) + 4;
    if (this.#bytes + size > this.#maxBytes) {
      this.#stop(
        `proxy: --record stopped at ${this.#count} exchanges: the next would pass --record-max-bytes ${this.#maxBytes}; the proxy goes on forwarding and checking`,
      );
      return;
    }
    this.#entries.push(text);
    this.#count++;
    this.#bytes += size;
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      if (this.#dirty) this.flush();
    }, DEBOUNCE_MS);
  }

  /** The mock's fixtures document passing through names the personas' tokens (and its records, for drift and replay). */
  #learn(request: RawRequest, received: Received): void {
    if (received.status !== 200 || request.method !== 'GET' || (request.url.split('?')[0] ?? '') !== '/__mock/fixtures') return;
    let document: unknown;
    try {
      document = JSON.parse(received.body.toString('utf8'));
    } catch {
      return;
    }
    if (!isObject(document) || !isObject(document['tokens'])) return;
    const pairs = Object.entries(document['tokens']).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && TOKEN_FORM.test(e[1]) && /^[a-z_]+$/.test(e[0]),
    );
    this.#masker.learn(pairs.map(([persona, token]) => [token, persona] as const));
    this.#fixtures ??= { projects: document['projects'], goals: document['goals'], people: document['people'] };
  }

  #stop(line: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.flush();
    this.#options.onStop?.(line);
  }

  /** The start of the file up to its first entry, and its end after the last (the log's `_` fields are in the end). */
  #frame(): { head: string; tail: string } {
    const creator = this.#options.creator ?? { name: 'service-external-api proxy', version: '1' };
    const extra = { _tokens: this.#masker.forms, ...(this.#fixtures ? { _fixtures: this.#fixtures } : {}) };
    const head = `{\n "log": {\n  "version": "1.2",\n  "creator": ${JSON.stringify(creator)},\n  "entries": [\n`;
    const fields = Object.entries(extra).map(([k, v]) => `,\n  ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    return { head, tail: `\n  ]${fields.join('')}\n }\n}\n` };
  }

  /**
   * Writes the file now: a temporary file renamed over it, so a reader never sees half of one. The file written before
   * is copied (by the kernel) and the new entries written over its end, so a flush costs what is new, not the whole
   * recording; the entries written are not kept.
   */
  flush(): void {
    this.#dirty = false;
    const file = this.#options.file;
    const temporary = `${file}.${process.pid}.tmp`;
    const { head, tail } = this.#frame();
    const fresh = this.#entries.splice(0);
    try {
      if (this.#end === undefined) {
        const body = `${head}${fresh.map((e) => `   ${e}`).join(',\n')}`;
        writeFileSync(temporary, `${body}${tail}`);
        this.#end = Buffer.byteLength(body);
      } else {
        copyFileSync(file, temporary);
        const added = fresh.length === 0 ? '' : `${this.#written > 0 ? ',\n' : ''}${fresh.map((e) => `   ${e}`).join(',\n')}`;
        const bytes = Buffer.from(`${added}${tail}`);
        const fd = openSync(temporary, 'r+');
        try {
          writeSync(fd, bytes, 0, bytes.length, this.#end);
          ftruncateSync(fd, this.#end + bytes.length);
        } finally {
          closeSync(fd);
        }
        this.#end += Buffer.byteLength(added);
      }
      this.#written += fresh.length;
      renameSync(temporary, file);
    } catch (error) {
      if (!this.#stopped)
        this.#stop(`proxy: --record cannot write ${file} (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); recording stopped`);
    }
  }

  /** Writes what is pending and stops the timer (on exit). */
  close(): void {
    this.#drain();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.flush();
  }
}
