/**
 * A HAR file read as a stream, an entry at a time (stream-json's tokens): a capture of any size costs its index and
 * the bodies it holds in memory within a budget; longer bodies go to files of their own, as live bodies spill
 * (core/transport/body-sink.ts). Only log.entries and log._conformance are read; everything else (pages, creator) is skipped
 * without being kept. What is not a regular file (a FIFO, /dev/zero, a directory) or is past the cap is refused in
 * one line before a byte is read.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { FileRefused, openRegularFile, readPipeBlock } from '../base/regular-file.js';
import { join } from 'node:path';
import { jsonParser, type Token } from 'stream-json/parser.js';
import { none } from 'stream-chain/defs.js';
import { exchangeOf, HarError, type HarEntry, type HarRoles } from './har.js';
import type { RecordedExchange } from './recorded-source.js';

/** The largest HAR read (CONFORMANCE_MAX_HAR_BYTES changes it): past it, the file is refused before it is read. */
export const MAX_HAR_BYTES = Number(process.env.CONFORMANCE_MAX_HAR_BYTES) || 4 * 1024 ** 3;
const HAR_CAP_ENV = 'CONFORMANCE_MAX_HAR_BYTES';
/** A body's text held in memory up to this many characters; past it, the body goes to a file of its own. */
const BODY_IN_MEMORY_CHARS = 1024 * 1024;
/**
 * Bytes of the file read at a time: few, so that a block's tokens die young (with 1 MiB blocks, their 50,000 tokens
 * outlived the young generation and a capture of a million entries peaked at twice the memory).
 */
const READ_BLOCK = 64 * 1024;
/** The longest string of an entry outside its body (a URL of a 5 MB id is legal); past it the entry is left out. */
const STRING_MAX_CHARS = 16 * 1024 * 1024;

/** What reading a HAR gave besides its exchanges. */
export interface HarStreamResult {
  roles?: HarRoles;
  /** Entries left out, and why (no body recorded, not HTTP); the first few, with the count. */
  leftOut: string[];
  leftOutCount: number;
  entries: number;
}

/**
 * Opens a HAR file for reading, or refuses it in one line: not a regular file (a FIFO never ends, /dev/zero never
 * stops), or longer than the cap.
 */
export function openHar(file: string, maxBytes = MAX_HAR_BYTES): ReturnType<typeof openRegularFile> {
  try {
    // A pipe (`check-har <(…)`) is read as a stream, its bytes counted against the cap as they come.
    return openRegularFile(file, maxBytes, HAR_CAP_ENV, { pipe: true });
  } catch (e) {
    throw new HarError(
      e instanceof FileRefused
        ? e.message
        : `cannot read it: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

/** A frame of the value being read: an object or an array, kept (an entry, the roles) or skipped. */
interface Frame {
  array: boolean;
  keep: boolean;
  value?: Record<string, unknown> | unknown[];
  key?: string;
  /** Where the frame is: 'root', 'log', 'entries', 'entry', 'roles', or '' inside a kept value. */
  role: string;
  /** Inside an entry: the path of keys from it ('response.content'). */
  path: string;
}

/** A string being read: kept in memory up to a bound, a body past it in a file of its own. */
class StringSink {
  private parts: string[] = [];
  private chars = 0;
  private fd: number | undefined;
  private bytes = 0;
  path: string | undefined;
  /** Characters past the bound of a string that is not a body: cut, and the entry left out. */
  overflow = false;
  constructor(
    private readonly body: boolean,
    private readonly fileOf: () => string,
  ) {}
  add(s: string): void {
    if (this.fd !== undefined) return this.write(s);
    if (this.chars + s.length > (this.body ? BODY_IN_MEMORY_CHARS : STRING_MAX_CHARS)) {
      if (!this.body) {
        this.overflow = true;
        return;
      }
      this.path = this.fileOf();
      this.fd = openSync(this.path, 'w');
      const held = this.parts.join('');
      this.parts = [];
      this.write(held);
      return this.write(s);
    }
    this.parts.push(s);
    this.chars += s.length;
  }
  private write(s: string): void {
    const buf = Buffer.from(s, 'utf8');
    writeSync(this.fd!, buf, 0, buf.length, this.bytes);
    this.bytes += buf.length;
  }
  /** The string, or undefined when it went to a file (then `path` names it). */
  end(): string | undefined {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
      return undefined;
    }
    return this.parts.join('');
  }
}

/** A file of base64 text decoded into another file, a block at a time (whitespace in the text ignored). */
function decodeBase64File(from: string, to: string): void {
  const src = openSync(from, 'r');
  const dst = openSync(to, 'w');
  try {
    const block = Buffer.allocUnsafe(4 * 1024 * 1024);
    let carry = '';
    let at = 0;
    let out = 0;
    for (;;) {
      const n = readSync(src, block, 0, block.length, at);
      at += n;
      const text = carry + block.toString('latin1', 0, n).replace(/[^A-Za-z0-9+/=_-]/g, '');
      const whole = n ? text.length - (text.length % 4) : text.length;
      carry = text.slice(whole);
      const bytes = Buffer.from(text.slice(0, whole), 'base64');
      writeSync(dst, bytes, 0, bytes.length, out);
      out += bytes.length;
      if (!n) break;
    }
  } finally {
    closeSync(src);
    closeSync(dst);
  }
}

/**
 * Reads a HAR file an entry at a time, handing each exchange to `onExchange` as it is read. Bodies past the
 * in-memory bound are written to files in `dir` (their bytes, decoded from base64 where the HAR says so).
 */
export function readHarStream(
  file: string,
  dir: string,
  onExchange: (x: RecordedExchange) => void,
  maxBytes = MAX_HAR_BYTES,
): HarStreamResult {
  const opened = openHar(file, maxBytes);
  const { fd } = opened;
  const leftOut: string[] = [];
  let leftOutCount = 0;
  let entries = 0;
  let roles: HarRoles | undefined;
  let sawEntries = false;
  let files = 0;
  const fileOf = (): string => join(dir, `body-${files++}`);
  const stack: Frame[] = [];
  let sink: StringSink | undefined;
  /** The body file of the entry being read, if its text went to one. */
  let bodyFile: string | undefined;
  let overflowed = false;

  const leave = (why: string): void => {
    leftOutCount++;
    if (leftOut.length < 20) leftOut.push(why);
  };
  const top = (): Frame | undefined => stack[stack.length - 1];
  /** Where a value about to start goes: its role, whether it is kept, and its path inside an entry. */
  const placeOf = (): { role: string; keep: boolean; path: string } => {
    const t = top();
    if (!t) return { role: 'root', keep: false, path: '' };
    if (t.keep) return { role: '', keep: true, path: t.role === 'entry' ? (t.key ?? '') : `${t.path}.${t.key ?? ''}` };
    if (t.role === 'root' && t.key === 'log') return { role: 'log', keep: false, path: '' };
    if (t.role === 'log' && t.key === 'entries') return { role: 'entries', keep: false, path: '' };
    if (t.role === 'log' && t.key === '_conformance') return { role: 'roles', keep: true, path: '' };
    if (t.role === 'entries') return { role: 'entry', keep: true, path: '' };
    return { role: 'skip', keep: false, path: '' };
  };
  const put = (v: unknown): void => {
    const t = top();
    if (t?.role === 'entries') leave(`entry ${entries++}: not an HTTP request`);
    if (!t?.keep || !t.value) return;
    if (t.array) (t.value as unknown[]).push(v);
    // defineProperty: a key "__proto__" in the file stays an own key.
    else if (t.key !== undefined)
      Object.defineProperty(t.value, t.key, { value: v, enumerable: true, writable: true, configurable: true });
  };
  const open = (array: boolean): void => {
    const p = placeOf();
    if (p.role === 'entries' && !array) throw new HarError('not a HAR file: no log.entries array');
    if (p.role === 'entries') sawEntries = true;
    const value = p.keep ? (array ? [] : {}) : undefined;
    stack.push({ array, keep: p.keep, role: p.role, path: p.path, ...(value ? { value } : {}) });
  };
  const close = (): void => {
    const f = stack.pop()!;
    if (f.role === 'entry') {
      const i = entries++;
      const file = bodyFile;
      bodyFile = undefined;
      if (overflowed) {
        overflowed = false;
        leave(`entry ${i}: a string longer than ${STRING_MAX_CHARS} characters outside its body`);
        return;
      }
      const e = f.value as HarEntry;
      let decoded = file;
      if (file !== undefined && e.response?.content?.encoding === 'base64') {
        decoded = `${file}.bytes`;
        decodeBase64File(file, decoded);
      }
      const x = exchangeOf(e, i, decoded);
      if (typeof x === 'string') leave(x);
      else onExchange(x);
      return;
    }
    if (f.role === 'roles') {
      const v = f.value as HarRoles;
      if (v && typeof v === 'object' && !Array.isArray(v)) roles = v;
      return;
    }
    if (f.keep) put(f.value);
  };

  const handle = (t: Token): void => {
    switch (t.name) {
      case 'startObject':
        return open(false);
      case 'startArray':
        return open(true);
      case 'endObject':
      case 'endArray':
        return close();
      case 'keyValue':
        top()!.key = t.value;
        return;
      case 'startString': {
        const p = placeOf();
        if (!p.keep) return;
        sink = new StringSink(p.path === 'response.content.text', fileOf);
        return;
      }
      case 'stringChunk':
        sink?.add(t.value);
        return;
      case 'endString': {
        if (!sink) return;
        const s = sink.end();
        if (sink.overflow) overflowed = true;
        if (s === undefined) bodyFile = sink.path;
        // A body in a file is a string in the entry all the same: exchangeOf sees text, and takes the file.
        put(s ?? '');
        sink = undefined;
        return;
      }
      case 'numberValue':
        if (placeOf().keep) put(Number(t.value));
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        if (placeOf().keep) put(t.value);
        return;
      default:
        return;
    }
  };
  // The tokenizer as a function, fed a block of text at a time: a Node stream in object mode cost a microsecond or
  // more per token, a minute for a capture of a million entries.
  // Flushed by giving it stream-chain's `none`, as a chain does at its end (its type names strings only).
  const tokenize = jsonParser({
    packStrings: false,
    streamStrings: true,
    packKeys: true,
    streamKeys: false,
    packNumbers: true,
  });
  const feed = (input: string | typeof none): void => {
    let out;
    try {
      out = (tokenize as (v: string | typeof none) => ReturnType<typeof tokenize>)(input);
    } catch (e) {
      throw new HarError(`not a HAR file: ${(e as Error).message}`);
    }
    if (out !== none) for (const t of out.values) handle(t);
  };
  const decoder = new StringDecoder('utf8');
  const block = Buffer.allocUnsafe(READ_BLOCK);
  try {
    for (let at = 0, first = true; opened.pipe || at < opened.bytes;) {
      let n: number;
      try {
        n = opened.pipe
          ? readPipeBlock(fd, block, at, maxBytes, HAR_CAP_ENV)
          : readSync(fd, block, 0, Math.min(READ_BLOCK, opened.bytes - at), at);
      } catch (e) {
        throw new HarError(e instanceof FileRefused ? e.message : `cannot read it: ${(e as Error).message}`);
      }
      if (n <= 0) break;
      at += n;
      let text = decoder.write(block.subarray(0, n));
      // A byte order mark (Windows tools write one) is no part of the JSON.
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
      feed(text);
    }
    feed(decoder.end());
    feed(none);
  } finally {
    closeSync(fd);
  }
  if (!sawEntries) throw new HarError('not a HAR file: no log.entries array');
  return { ...(roles ? { roles } : {}), leftOut, leftOutCount, entries };
}
