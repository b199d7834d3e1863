/**
 * A list body too big to hold, read record by record from its spilled file. Ten times a large merchant lists
 * 500,000 orders in 716 MB: as one string that is past V8's longest (about 512 MiB), and as one parsed tree it takes
 * gigabytes. Past DISK_LIST_BYTES a spilled body whose envelope holds a `data` array is scanned once as it is read
 * (UTF-8 checked, every element located, parsed once to know it parses; its content was hashed as it arrived, see
 * BodySink.contentKey); then `data` is an array
 * whose elements are parsed from the file when read (exact integers kept, core/base/exact-json.ts) and forgotten after.
 * The verdict is JSON.parse's, element by element as core/transport/json-buffer.ts does for big bodies in memory: the envelope
 * (with `data` as []) and every element are each valid JSON; anything this scan is not certain of (no object, `data`
 * not an array, a second `data` key, an escaped envelope key, a piece that does not parse, bytes that are not UTF-8)
 * is not a list read this way, and the caller parses the body whole where a string can hold it.
 */
import { closeSync, openSync, read, readSync, unlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { readFile, rm } from 'node:fs/promises';
import { hasLongDigitRun, knownBigInts, parseJsonExact } from '../base/exact-json.js';
import { tooLarge } from './network-errors.js';
import { ListScan, type ScannedList } from './list-scan.js';
import { EXCERPT_HEAD_BYTES } from './exchange.js';

/**
 * Spilled bodies from this size on are read as disk lists. Far above a large merchant's 65 MB /orders, so runs at
 * that size parse as they always have; CONFORMANCE_DISK_LIST_BYTES lowers it (the tests read small lists this way).
 */
export const DISK_LIST_BYTES = Number(process.env.CONFORMANCE_DISK_LIST_BYTES) || 256 * 1024 * 1024;

/** Bytes read from the file at a time, by the scan and by the reads of elements in order. */
const BLOCK = 4 * 1024 * 1024;
/** Most bytes of the envelope outside `data` (a hostile server could send gigabytes of other members). */
const MAX_ENVELOPE_REST = 1024 * 1024;

/** The records of a disk list: the file (already unlinked: it lives while its descriptor is open), and where each is. */
class DiskRecords {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  constructor(
    private readonly fd: number,
    private readonly ranges: Float64Array,
    readonly length: number,
    /** Which elements are JSON objects (the records api.list reads), when not all are. */
    readonly objects: Uint8Array | undefined,
    private readonly blockBytes: number,
  ) {}

  /** Element i, parsed afresh from the file (reads in order go through one window of BLOCK bytes). */
  at(i: number): unknown {
    const start = this.ranges[i * 2]!;
    const end = this.ranges[i * 2 + 1]!;
    if (start < this.windowStart || end > this.windowStart + this.window.length) {
      const size = Math.max(this.blockBytes, end - start);
      if (this.window.length < size) this.window = Buffer.allocUnsafe(size);
      const n = readSync(this.fd, this.window, 0, size, start);
      this.window = this.window.subarray(0, n);
      this.windowStart = start;
    }
    const from = start - this.windowStart;
    const to = end - this.windowStart;
    return parseJsonExact(this.window.toString('utf8', from, to), hasLongDigitRun(this.window, from, to));
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

/** A disk list's array as its readers see it: the records behind it, how many it shows, and its i-th element. */
interface DiskView {
  records: DiskRecords;
  length: number;
  read(i: number): unknown;
}
const lists = new WeakMap<object, DiskView>();
const closer = new FinalizationRegistry<DiskRecords>((r) => r.close());

const indexOf = (key: string | symbol, length: number): number => {
  if (typeof key !== 'string' || key === '' || key.length > 16) return -1;
  const n = Number(key);
  return Number.isInteger(n) && n >= 0 && n < length && String(n) === key ? n : -1;
};

/**
 * An array (Array.isArray is true, length, indexing, iteration and every Array method work) whose i-th element is
 * parsed from the file when read: a new object at each read, so a check that keeps what it reads holds only that.
 * Read-only, as every reply is to checks. `only`: the indices it shows (the records of a list of mixed elements).
 */
function diskArray(records: DiskRecords, only?: Uint32Array, owner?: unknown[]): unknown[] {
  const length = only ? only.length : records.length;
  // A view keeps the list it shows alive: the file closes when that list is collected.
  const keep = { owner };
  const read = (i: number): unknown => records.at(only ? only[i]! : i);
  const target: unknown[] = [];
  target.length = length;
  const proxy = new Proxy(target, {
    get(t, key, receiver) {
      const i = indexOf(key, length);
      return i >= 0 ? read(i) : Reflect.get(t, key, receiver);
    },
    has(t, key) {
      return indexOf(key, length) >= 0 || Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      const i = indexOf(key, length);
      return i >= 0
        ? { value: read(i), writable: false, enumerable: true, configurable: true }
        : Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys(t) {
      return [...Array.from({ length }, (_, i) => String(i)), ...Reflect.ownKeys(t)];
    },
    set() {
      void keep; // held by the handler, so by the view
      return false;
    },
    defineProperty() {
      return false;
    },
    deleteProperty() {
      return false;
    },
  });
  lists.set(proxy, { records, length, read });
  return proxy;
}

/** Whether a value is a disk list's data array (read record by record from a file). */
export const isDiskList = (v: unknown): v is unknown[] => typeof v === 'object' && v !== null && lists.has(v);

/** The views diskRecords made, one per list: a pass over a view is shared by every check that asks (eachElement). */
const recordViews = new WeakMap<object, unknown[]>();

/** The JSON objects of a disk list, as a disk list (itself when every element is one). */
export function diskRecords(list: unknown[]): unknown[] {
  const r = lists.get(list)!.records;
  if (!r.objects) return list;
  const made = recordViews.get(list);
  if (made) return made;
  const idx: number[] = [];
  for (let i = 0; i < r.length; i++) if (r.objects[i]) idx.push(i);
  const view = diskArray(r, Uint32Array.from(idx), list);
  const known = knownBigInts.get(list);
  if (known !== undefined) knownBigInts.set(view, known);
  recordViews.set(list, view);
  return view;
}

/** Elements read in order by a shared pass: a disk list's view, or an array in memory. */
interface Elements {
  length: number;
  read(i: number): unknown;
}

/**
 * Lists in memory this long are walked in a shared pass too: a large merchant's 50,000 orders are gone over by a
 * dozen checks, seconds of work that would otherwise hold the event loop, and the detail requests with it.
 */
const PASS_ELEMENTS = 2_000;

/** Whether eachElement walks the list in a shared pass that lets the event loop run (a disk list, a long array). */
export const isLongList = (v: unknown): v is unknown[] =>
  isDiskList(v) || (Array.isArray(v) && v.length >= PASS_ELEMENTS);

/** One caller of a shared pass: what it does with each element, and how it learns the pass is over. */
interface Visitor {
  visit(v: unknown, i: number): void;
  resolve(): void;
  reject(e: unknown): void;
}

/** Passes not started yet, per disk list: callers that ask before one starts share it. */
const waiting = new Map<object, Visitor[]>();
/**
 * How long a pass reads before it lets the event loop run (replies in flight, timers): short, so the requests in
 * flight are answered and the next ones sent while the pass goes on, and the server is not left waiting on us.
 */
const PASS_SLICE_MS = 4;

/**
 * Calls `visit` with each element of a list, in order, and resolves when it has seen them all (rejects with what
 * `visit` threw, which ends its part). A disk list is read from its file once for every caller that asks in the same
 * turn of the event loop: the checks woken by its arrival share one pass, where each parsed ten times a large
 * merchant's 500,000 orders on its own (a dozen passes of 3 s). So each caller gets the same parsed element, which it
 * must not change (replies are read-only to checks). A list in memory of PASS_ELEMENTS or more is walked in a shared
 * pass too. The pass lets the event loop run every PASS_SLICE_MS. A shorter list is walked at once.
 */
export function eachElement<T>(list: readonly T[], visit: (v: T, i: number) => void): Promise<void> {
  const view: Elements | undefined =
    lists.get(list) ?? (list.length >= PASS_ELEMENTS ? { length: list.length, read: (i) => list[i] } : undefined);
  if (!view) {
    try {
      for (let i = 0; i < list.length; i++) visit(list[i]!, i);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return new Promise<void>((resolve, reject) => {
    let callers = waiting.get(list);
    if (!callers) {
      waiting.set(list, (callers = []));
      setImmediate(() => {
        waiting.delete(list);
        void sharedPass(view, callers!);
      });
    }
    callers.push({ visit: visit as Visitor['visit'], resolve, reject });
  });
}

async function sharedPass(view: Elements, callers: Visitor[]): Promise<void> {
  let live = callers;
  let yieldAt = performance.now() + PASS_SLICE_MS;
  try {
    for (let i = 0; i < view.length && live.length; i++) {
      const v = view.read(i);
      let thrown: Set<Visitor> | undefined;
      for (const c of live) {
        try {
          c.visit(v, i);
        } catch (e) {
          c.reject(e);
          (thrown ??= new Set()).add(c);
        }
      }
      if (thrown) live = live.filter((c) => !thrown.has(c));
      if ((i & 255) === 255 && performance.now() >= yieldAt) {
        await new Promise<void>((r) => setImmediate(r));
        yieldAt = performance.now() + PASS_SLICE_MS;
      }
    }
  } catch (e) {
    // The file itself failed us (it was read whole once already): every caller still in the pass learns it.
    for (const c of live) c.reject(e);
    return;
  }
  for (const c of live) c.resolve();
}

/** A spilled list read as a disk list: its envelope (`data` the disk list), its content key, its first bytes. */
export interface DiskListBody {
  json: Record<string, unknown>;
  /** The first bytes of the body (the evidence's excerpt). */
  head: Buffer;
}

const readAt = promisify(read);

/**
 * Reads the spilled body at `path` (`bytes` long) as a disk list, or undefined when it is not one this reads with
 * certainty (see the module's comment; the file is then left to the caller). A disk list's file is unlinked at once:
 * its descriptor keeps it readable until the list is collected, and nothing is left behind if the run is killed.
 */
export async function readDiskList(
  path: string,
  bytes: number,
  headBytes: number,
  /** Bytes read at a time (the tests cut small bodies into many blocks). */
  blockBytes = BLOCK,
): Promise<DiskListBody | undefined> {
  const fd = openSync(path, 'r');
  let kept = false;
  try {
    const scanned = await scan(fd, bytes, headBytes, blockBytes);
    if (!scanned) return undefined;
    unlinkSync(path);
    const records = new DiskRecords(fd, scanned.ranges.a, scanned.ranges.length, scanned.objects, blockBytes);
    const data = diskArray(records);
    closer.register(data, records);
    knownBigInts.set(data, scanned.bigInts);
    kept = true;
    scanned.envelope.data = data;
    return { json: scanned.envelope, head: scanned.head };
  } finally {
    if (!kept) closeSync(fd);
  }
}

type Scanned = ScannedList & { head: Buffer };

/**
 * One pass over the file (core/transport/list-scan.ts: UTF-8, the envelope's layout, each element parsed once). A block at a
 * time, awaiting each read, so the run's other requests go on meanwhile (a 716 MB list takes seconds).
 */
async function scan(fd: number, bytes: number, headBytes: number, blockBytes: number): Promise<Scanned | undefined> {
  const block = Buffer.allocUnsafe(blockBytes);
  const head: Buffer[] = [];
  let headLength = 0;
  const list = new ListScan({ keep: false, maxEnvelopeRest: MAX_ENVELOPE_REST });
  for (let pos = 0; pos < bytes;) {
    const { bytesRead: n } = await readAt(fd, block, 0, Math.min(blockBytes, bytes - pos), pos);
    if (n <= 0) return undefined;
    const buf = block.subarray(0, n);
    if (headLength < headBytes) {
      const h = Buffer.from(buf.subarray(0, headBytes - headLength));
      head.push(h);
      headLength += h.length;
    }
    if (!list.feed(buf)) return undefined;
    pos += n;
  }
  const scanned = list.finish();
  return scanned && { ...scanned, head: Buffer.concat(head) };
}

/**
 * A body whose content is that of a disk list already read (a query the server ignores answers the same 716 MB list
 * again): the same list, its file not scanned twice. Only its first bytes are read, for the evidence's excerpt.
 */
function sameDiskList(known: unknown, path: string, headBytes: number): DiskListBody | undefined {
  if (typeof known !== 'object' || known === null || !isDiskList((known as { data?: unknown }).data)) return undefined;
  const head = Buffer.allocUnsafe(headBytes);
  const fd = openSync(path, 'r');
  try {
    const n = readSync(fd, head, 0, headBytes, 0);
    return { json: known as Record<string, unknown>, head: head.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}

/** Bodies longer than this cannot be read as one string (V8's longest string: 2^29 - 24 UTF-16 code units). */
const MAX_WHOLE_BYTES = 2 ** 29 - 24;

/**
 * A spilled body past DISK_LIST_BYTES: a disk list (body: its first bytes, for the excerpt), or else the whole body
 * as before when one string can hold it; a longer body that is no list envelope is not parsed (BODY_TOO_LARGE).
 */
export async function readSpilledList(
  path: string,
  bytes: number,
  /** What an earlier body of the same content was read as: a disk list's envelope is that list again, unread. */
  known?: unknown,
): Promise<{ body: Buffer; list?: DiskListBody }> {
  const headBytes = EXCERPT_HEAD_BYTES;
  try {
    const same = sameDiskList(known, path, headBytes);
    if (same) return { body: same.head, list: same };
    const list = await readDiskList(path, bytes, headBytes);
    if (list) return { body: list.head, list };
    if (bytes > MAX_WHOLE_BYTES)
      throw tooLarge(
        `response body of ${bytes} bytes is longer than one string can hold and is no list envelope to read record by record; not parsed`,
      );
    return { body: await readFile(path) };
  } finally {
    await rm(path, { force: true });
  }
}
