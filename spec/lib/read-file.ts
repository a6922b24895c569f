// Reading a file someone handed a command (a spec, a recording, a tokens or coverage file) as the input it is: through
// one open handle, opened without following a symlink and without blocking (a FIFO or a device opens and is refused,
// never waited on), checked on the handle itself (a regular file within `limit` bytes), and read with that limit (a
// file that grows after the check is refused, not read on). What is checked is what is read: nothing is looked up by
// its path twice.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** Why a file was not read, as `<name> <reason>`; `reason` alone for a caller that names the file itself. */
export class FileReadError extends Error {
  override name = 'FileReadError';
  readonly reason: string;
  constructor(name: string, reason: string) {
    super(`${name} ${reason}`);
    this.reason = reason;
  }
}

const codeOf = (error: unknown): string =>
  (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim().slice(0, 160) ?? '';

/** The file's text, or a FileReadError; `name` names it in the error, `over` says what a size past `limit` exceeds. */
export function readFileBounded(path: string, limit: number, name: string, over = `is over ${limit} bytes`): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP' || code === 'EMLINK') throw new FileReadError(name, 'is a symlink that changed while it was read (refused)');
    throw new FileReadError(name, `cannot be read (${code})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new FileReadError(name, 'is not a regular file (a FIFO, a device or a folder is never read)');
    if (stat.size > limit) throw new FileReadError(name, over);
    const buffer = Buffer.alloc(Math.min(limit, stat.size) + 1);
    let length = 0;
    for (;;) {
      let read: number;
      try {
        read = readSync(fd, buffer, length, buffer.length - length, null);
      } catch (error) {
        throw new FileReadError(name, `cannot be read (${codeOf(error)})`);
      }
      if (read === 0) break;
      length += read;
      if (length >= buffer.length) throw new FileReadError(name, `grew while it was read (over ${stat.size} bytes)`);
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
