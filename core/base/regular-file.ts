/**
 * Files the user names (a HAR, a report), opened so that what is not a regular file is refused before a byte is
 * read: a FIFO (`<(curl …)`) may never end, /dev/zero never stops, a directory is no file; and past a cap, so that a
 * file of gigabytes is refused in one line instead of filling the memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** A file that is not a regular file or is past its cap: one line, said as it is. */
export class FileRefused extends Error {}

/**
 * Opens a regular file of at most `maxBytes` for reading (non-blocking: opening a FIFO would wait for a writer).
 * With `pipe`, a pipe (`<(…)`, a FIFO) is opened too, to be read as a stream: `bytes` is then undefined and the
 * reader counts what it reads against the cap (readPipeBlock).
 * @param env the variable that changes the cap, named in the refusal
 */
export function openRegularFile(
  file: string,
  maxBytes: number,
  env: string,
  opts: { pipe?: boolean } = {},
): { fd: number; bytes: number; pipe?: false } | { fd: number; bytes: undefined; pipe: true } {
  // A file that cannot be opened throws as it did (ENOENT, EACCES): the caller says which file.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const st = fstatSync(fd);
  if (!st.isFile()) {
    // Kept non-blocking: a blocking open of a FIFO waits for a writer, forever if none comes. readPipeBlock waits
    // for bytes itself, within PIPE_WAIT_MS.
    if (opts.pipe && st.isFIFO()) return { fd, bytes: undefined, pipe: true };
    closeSync(fd);
    const what = st.isDirectory()
      ? 'a directory'
      : st.isFIFO()
        ? 'a pipe'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device'
          : st.isSocket()
            ? 'a socket'
            : 'not a file';
    throw new FileRefused(`not a regular file (${what}): give the path of a file`);
  }
  if (st.size > maxBytes) {
    closeSync(fd);
    throw new FileRefused(`${st.size} bytes, past the cap of ${maxBytes} bytes (${env}): not read`);
  }
  return { fd, bytes: st.size };
}

/** The text of a regular file of at most `maxBytes` (openRegularFile), read whole. */
export function readRegularFile(file: string, maxBytes: number, env: string): string {
  return readRegularBytes(file, maxBytes, env).toString('utf8');
}

/**
 * Reads the next block of a pipe into `block`, counting against the cap as it goes: past `maxBytes` read in all
 * (`so_far` before this block), the pipe is refused (FileRefused) without reading further. 0 at its end.
 */
export function readPipeBlock(
  fd: number,
  block: Buffer,
  soFar: number,
  maxBytes: number,
  env: string,
  waitMs = PIPE_WAIT_MS,
): number {
  // The pipe is open non-blocking (openRegularFile): no byte yet is EAGAIN, and no writer yet reads as its end.
  // Before the first byte, an end is taken for a writer still to come; after it, for the end. Either way the wait
  // for a byte is bounded: a pipe nobody writes to is refused in one line, never waited on forever.
  const since = Date.now();
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, block, 0, Math.min(block.length, maxBytes + 1 - soFar), null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      n = -1;
    }
    if (n > 0 || (n === 0 && soFar > 0)) {
      if (soFar + n > maxBytes)
        throw new FileRefused(`a pipe that went on past the cap of ${maxBytes} bytes (${env}): not read further`);
      return n;
    }
    if (Date.now() - since >= waitMs)
      throw new FileRefused(
        n === 0
          ? `a pipe that nobody wrote to within ${waitMs / 1000} s: not read (is its writer running?)`
          : `a pipe that gave no byte for ${waitMs / 1000} s: not read further`,
      );
    Atomics.wait(PAUSE, 0, 0, 20);
  }
}

/** How long a pipe may give no byte (nobody writes to it, or its writer stalls); CONFORMANCE_PIPE_WAIT_MS changes it. */
export const PIPE_WAIT_MS = Number(process.env.CONFORMANCE_PIPE_WAIT_MS) || 60_000;
/** What a synchronous wait for a pipe sleeps on (Atomics.wait: no busy loop). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The bytes of a regular file of at most `maxBytes` (openRegularFile), read whole. */
export function readRegularBytes(file: string, maxBytes: number, env: string): Buffer {
  const { fd, bytes } = openRegularFile(file, maxBytes, env) as { fd: number; bytes: number };
  try {
    const buf = Buffer.allocUnsafe(bytes);
    let at = 0;
    // A file that grew since it was measured is read to the length measured: the cap holds.
    while (at < bytes) {
      const n = readSync(fd, buf, at, bytes - at, at);
      if (n <= 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}

/** The largest report.json that diff, merge and baseline read (CONFORMANCE_MAX_REPORT_BYTES changes it). */
export const MAX_REPORT_BYTES = Number(process.env.CONFORMANCE_MAX_REPORT_BYTES) || 256 * 1024 * 1024;

/** A report.json's bytes, refused in one line when it is not a regular file or is past MAX_REPORT_BYTES. */
export const readReportBytes = (file: string): Buffer =>
  readRegularBytes(file, MAX_REPORT_BYTES, 'CONFORMANCE_MAX_REPORT_BYTES');

/**
 * The caps of the small files the CLI reads, each checked before a byte is read (openRegularFile): a config file,
 * a baseline, a key or certificate (PEM), a trusted root. Past its cap, or not a regular file, a file is refused
 * in one line (exit 2).
 */
export const FILE_CAPS = {
  config: { bytes: 1024 * 1024, what: "a config file's cap" },
  baseline: { bytes: 16 * 1024 * 1024, what: "a baseline's cap" },
  pem: { bytes: 1024 * 1024, what: "a key or certificate file's cap" },
  trustedRoot: { bytes: 16 * 1024 * 1024, what: "a trusted root's cap" },
} as const;

/** The text of a file the CLI reads whole, refused when not a regular file or past its kind's cap (FILE_CAPS). */
export const readCappedText = (file: string, kind: keyof typeof FILE_CAPS): string =>
  readRegularFile(file, FILE_CAPS[kind].bytes, FILE_CAPS[kind].what);
