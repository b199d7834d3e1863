/**
 * Where response bodies go while they arrive (memory while a shared budget allows, then a temporary file), and the
 * parsed big bodies shared between identical answers.
 */
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { createHash, type Hash } from 'node:crypto';
import { join } from 'node:path';
import { ListScan } from './list-scan.js';
import { KEEP_UP_TO, MAX_LIST_ELEMENTS } from './json-buffer.js';

/**
 * Bodies held in memory while they arrive, across all requests in flight: past this, a body goes on arriving into a
 * temporary file. Until a body is complete nobody knows whether it stays under max_body_bytes, so without this a
 * few concurrent floods of max_body_bytes each would hold several times the cap in memory.
 */
const MEMORY_BUDGET_BYTES = 8 * 1024 * 1024;
const BODY_ALWAYS_IN_MEMORY = 1024 * 1024;

/**
 * Bodies that declared their length (Content-Length) and are taken straight into one buffer of that length, across
 * all requests in flight: a 65 MB list then costs no write to a temporary file and no read back (about 0.5 s of a
 * large merchant's run). Past it a body spills as any other. The same buffer would be allocated when a spilled body
 * is read back, so the budget only bounds how many such bodies are held while they arrive: one list at a time.
 */
const DECLARED_BUDGET_BYTES = 80 * 1024 * 1024;

/**
 * One spilled body is read back into memory (and parsed) at a time; the others wait on disk. Bodies go on arriving
 * into their files meanwhile: a socket paused for long would be closed under it by a server whose keep-alive timeout
 * passes while the rest of the body waits in the socket (a 716 MB list ahead in the queue took minutes, and undici
 * then fails the paused response with "other side closed").
 */
export class Lane {
  private busy = false;
  private readonly queue: Array<() => void> = [];
  async acquire(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return;
    }
    await new Promise<void>((r) => this.queue.push(r));
  }
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }
}

/** What all requests' sinks share: bytes held in memory, the lane for bodies past the budget, the spill folder. */
export interface BodyPool {
  held: number;
  /** Big bodies already parsed, by content: a spilled body found there is not read again. */
  bigBodies: BigBodies;
  /** Bytes of the buffers allocated for bodies of declared length (DECLARED_BUDGET_BYTES). */
  declared: number;
  lane: Lane;
  spillDir(): string;
}

/** Where response bodies accumulate: in memory while the shared budget allows, then in a temporary file. */
export class BodySink {
  private chunks: Buffer[] = [];
  private held = 0;
  /**
   * The buffer of a body of declared length (expect()), filled up to `filled`. Its chunks are copied in, not kept:
   * undici hands each 16 KB chunk in a buffer of its own, and thousands of them held for a second left the memory
   * allocator 40 MB larger at a large merchant's peak.
   */
  private whole: Buffer | undefined;
  private filled = 0;
  private file: FileHandle | undefined;
  private path: string | undefined;
  private laned = false;
  /** Set by discard(): a spill still opening its file must close and remove it (not leave it to the GC). */
  private discarded = false;
  /** The content hash of a body that goes to disk, as its bytes arrive (contentKey). */
  private hash: Hash | undefined;
  private digest: string | undefined;
  /** A body of declared length read as a list while it arrives (parsedList), until it proves not to be one. */
  private list: ListScan | undefined;
  /** The list read on its way had more elements than a run parses (tooMany). */
  private tooManyElements = false;
  /**
   * A decoded body (expectDecoded): bytes of it held in memory under the declared budget, while it stays there;
   * undefined for any other body.
   */
  private decoded: number | undefined;
  /** Whether a decoded body's chunks still go in memory under the declared budget (expectDecoded). */
  private decodedInMemory = false;
  /** Whether a decoded body held in memory is read as a list as it arrives (not when the same was read before). */
  private scanDecoded = true;

  constructor(private readonly pool: BodyPool) {}

  /**
   * Told the length a body declares (Content-Length), before its first byte: a body past what is always kept in
   * memory, under the disk-list size, gets one buffer of that length while the declared budget allows.
   */
  expect(length: number, diskListBytes: number): void {
    if (!(length > BODY_ALWAYS_IN_MEMORY && length < diskListBytes)) return;
    if (this.pool.declared + length > DECLARED_BUDGET_BYTES) return;
    this.whole = Buffer.allocUnsafe(length);
    this.pool.declared += length;
    // Hashed and parsed as it arrives, while the server is still sending: a 65 MB list took a second of parsing
    // after its last byte, with every other request of the run held up behind it. A body as long as one parsed
    // before is only hashed: it is most likely the same answer again (a query the server ignores), parsed once.
    this.hash = createHash('sha256');
    if (!this.pool.bigBodies.sawLength(length))
      this.list = new ListScan({
        keep: true,
        keepUpTo: KEEP_UP_TO,
        maxElements: MAX_LIST_ELEMENTS,
        maxEnvelopeRest: length,
      });
  }

  /**
   * Told a body arrives content-coded and is handed over decoded: its length is not known until its end. Its chunks
   * are held in memory within the declared budget, as a body of declared length is, and one past what is always kept
   * in memory is hashed and read as a list while it arrives (a 65 MB list coded gzip is parsed on its way, as when it
   * comes uncoded). Past the budget it goes on as any other body, to disk, and is no longer read as a list on its way.
   */
  expectDecoded(codedLength?: number): void {
    this.decoded = 0;
    this.decodedInMemory = true;
    // As long on the wire as a coded body parsed before (a declared length): most likely the same answer again.
    this.scanDecoded = !(codedLength && this.pool.bigBodies.sawCodedLength(codedLength));
  }

  /** Keeps a chunk of a decoded body in memory under the declared budget; false once it must go on as any other. */
  private addDecoded(chunk: Buffer): boolean {
    if (this.path || this.pool.declared + chunk.length > DECLARED_BUDGET_BYTES) {
      // From here on it is any other body: hashed again from its chunks if it spills (add), not read as a list.
      this.decodedInMemory = false;
      this.list = undefined;
      this.hash = undefined;
      return false;
    }
    this.chunks.push(chunk);
    this.decoded! += chunk.length;
    this.pool.declared += chunk.length;
    if (this.hash) {
      this.hash.update(chunk);
      this.feedList(chunk);
    } else if (this.decoded! > BODY_ALWAYS_IN_MEMORY) {
      // Long enough to be a big body (BIG_BODY_BYTES): hashed and scanned from its first byte on.
      this.hash = createHash('sha256');
      if (this.scanDecoded)
        this.list = new ListScan({
          keep: true,
          keepUpTo: KEEP_UP_TO,
          maxElements: MAX_LIST_ELEMENTS,
          maxEnvelopeRest: DECLARED_BUDGET_BYTES,
        });
      for (const c of this.chunks) {
        this.hash.update(c);
        this.feedList(c);
      }
    }
    return true;
  }

  /** Keeps a chunk; returns a promise only when it went to disk (the fast path stays synchronous). */
  add(chunk: Buffer): Promise<void> | undefined {
    if (this.decodedInMemory && this.addDecoded(chunk)) return undefined;
    if (this.whole) {
      if (this.filled + chunk.length <= this.whole.length) {
        chunk.copy(this.whole, this.filled);
        this.filled += chunk.length;
        this.hash!.update(chunk);
        this.feedList(chunk);
        return undefined;
      }
      // More than it declared (undici refuses that too): what came so far goes on as ordinary chunks.
      this.unexpect();
    }
    // The first MiB of every body is always kept: small answers never wait behind a flood for the lane.
    const fits =
      this.held + chunk.length <= BODY_ALWAYS_IN_MEMORY || this.pool.held + chunk.length <= MEMORY_BUDGET_BYTES;
    if (!this.path && fits) {
      this.chunks.push(chunk);
      this.held += chunk.length;
      this.pool.held += chunk.length;
      return undefined;
    }
    // Hashed here, in the order the chunks came: the writes to the file are awaited one after another.
    if (!this.hash) {
      this.hash = createHash('sha256');
      for (const c of this.chunks) this.hash.update(c);
    }
    this.hash.update(chunk);
    return this.toDisk(chunk);
  }

  private async toDisk(chunk: Buffer): Promise<void> {
    if (!this.path) {
      const path = join(this.pool.spillDir(), `body-${process.hrtime.bigint()}-${Math.random().toString(36).slice(2)}`);
      this.path = path;
      const file = await open(path, 'w');
      if (this.discarded) {
        await file.close();
        await rm(path, { force: true });
        return;
      }
      this.file = file;
      for (const c of this.chunks) await file.write(c);
      this.release();
    }
    if (this.discarded || !this.file) return;
    await this.file.write(chunk);
  }

  /** Gives the declared buffer up: its bytes so far become the first chunk (not counted in `held`: already here). */
  private unexpect(): void {
    const whole = this.whole!;
    this.pool.declared -= whole.length;
    this.chunks = this.filled ? [whole.subarray(0, this.filled)] : [];
    this.whole = undefined;
    this.filled = 0;
    this.list = undefined;
    // Hashed again from the chunks if it spills (add): a body that stays in memory this way is hashed by its reader.
    this.hash = undefined;
  }

  private release(): void {
    this.pool.held -= this.held;
    this.held = 0;
    if (this.decoded) this.pool.declared -= this.decoded;
    this.decoded = undefined;
    this.decodedInMemory = false;
    this.chunks = [];
    if (this.whole) {
      this.pool.declared -= this.whole.length;
      this.whole = undefined;
      this.filled = 0;
    }
  }

  /** True once the body went to disk: only then do take() and discard() need awaiting. */
  get onDisk(): boolean {
    return this.path !== undefined;
  }

  /** The whole body of a sink that stayed in memory (synchronous: the common, fast path). */
  takeInMemory(total: number): Buffer {
    const buf = this.whole
      ? this.whole.subarray(0, this.filled)
      : this.chunks.length === 1
        ? this.chunks[0]!
        : Buffer.concat(this.chunks, total);
    this.release();
    return buf;
  }

  /** A copy of the first bytes of a body that stayed in memory (its excerpt), when nothing else of it is needed. */
  takeHead(bytes: number): Buffer {
    let body = this.whole?.subarray(0, this.filled);
    if (!body) {
      // Only the chunks the head is in: a decoded body is held in thousands of them.
      let n = 0;
      const first: Buffer[] = [];
      for (const c of this.chunks) {
        if (n >= bytes) break;
        first.push(c);
        n += c.length;
      }
      body = Buffer.concat(first);
    }
    const head = Buffer.from(body.subarray(0, bytes));
    this.release();
    return head;
  }

  /** The whole body; the sink is empty afterwards. */
  async take(total: number): Promise<Buffer> {
    if (!this.path) return this.takeInMemory(total);
    await this.file!.close();
    this.file = undefined;
    await this.pool.lane.acquire();
    this.laned = true;
    try {
      return await readFile(this.path);
    } finally {
      await this.discard();
    }
  }

  /** The file of a body that went to disk, handed over whole: the caller reads it and removes it. */
  async takeFile(): Promise<string> {
    await this.file!.close();
    this.file = undefined;
    const path = this.path!;
    this.path = undefined;
    await this.discard();
    return path;
  }

  /**
   * The key of a body that went to disk or into the buffer of its declared length, once all `total` bytes are in
   * (BigBodies.key of the same bytes, hashed as they arrived: a big body is not read again to be hashed); undefined
   * for any other body.
   */
  contentKey(total: number): string | undefined {
    if (!this.hash) return undefined;
    this.digest ??= this.hash.digest('base64');
    return `${total}:${this.digest}`;
  }

  /** Reads a chunk as part of the list on its way; a body that proves no list this reads is no longer read as one. */
  private feedList(chunk: Buffer): void {
    if (!this.list || this.list.feed(chunk)) return;
    if (this.list.tooMany) this.tooManyElements = true;
    this.list = undefined;
  }

  /**
   * Whether the body, read as a list on its way, holds more elements than a run parses (MAX_LIST_ELEMENTS): it is
   * refused as it is, not parsed a second time to learn the same.
   */
  tooMany(): boolean {
    return this.tooManyElements;
  }

  /**
   * JSON.parse's value of a body of declared length that was read as a list while it arrived (core/transport/list-scan.ts),
   * once every byte is in; undefined when it was not read so (then the caller parses the body).
   */
  parsedList(): unknown {
    const value = this.list?.value();
    this.list = undefined;
    return value;
  }

  /** Forgets the body (a failure on the way); returns a promise only when there is a file to remove. */
  discard(): Promise<void> | undefined {
    this.discarded = true;
    if (!this.path && !this.laned) {
      this.release();
      return undefined;
    }
    return this.discardFile();
  }

  private async discardFile(): Promise<void> {
    this.release();
    if (this.file) await this.file.close().catch(() => undefined);
    this.file = undefined;
    if (this.path) await rm(this.path, { force: true });
    this.path = undefined;
    if (this.laned) {
      this.laned = false;
      this.pool.lane.release();
    }
  }
}

/** Bodies from this size on are parsed once per distinct content and not kept as text (see BigBodies, send). */
export const BIG_BODY_BYTES = 1024 * 1024;

/**
 * Parsed big bodies by content hash. The same 65 MB list fetched again (the read-only probes' GETs before and after,
 * a list with ignored query parameters) is parsed once and its tree shared: replies are read-only to checks (the
 * shared memoized requests already hand one reply to many checks). Held weakly: a tree nobody keeps is collected.
 */
export class BigBodies {
  private readonly seen = new Map<string, WeakRef<object>>();
  private readonly lengths = new Set<number>();
  static key(buf: Buffer): string {
    return `${buf.length}:${createHash('sha256').update(buf).digest('base64')}`;
  }
  get(key: string): unknown {
    return this.seen.get(key)?.deref();
  }
  set(key: string, json: unknown): void {
    if (typeof json !== 'object' || json === null) return;
    this.seen.set(key, new WeakRef(json));
    this.lengths.add(Number(key.slice(0, key.indexOf(':'))));
  }
  private readonly refused = new Set<string>();
  /** Notes content refused for listing more elements than a run parses (json-buffer.ts TooManyElements). */
  refuse(key: string): void {
    this.refused.add(key);
    this.lengths.add(Number(key.slice(0, key.indexOf(':'))));
  }
  /** Whether this content was refused before (the same answer again is refused unparsed). */
  isRefused(key: string): boolean {
    return this.refused.has(key);
  }
  /** Whether a body of this many bytes was parsed (or refused) before. */
  sawLength(bytes: number): boolean {
    return this.lengths.has(bytes);
  }
  private readonly codedLengths = new Set<number>();
  /** Notes that a big body this long on the wire (content-coded) was decoded and parsed. */
  sawCoded(codedLength: number): void {
    this.codedLengths.add(codedLength);
  }
  /** Whether a big coded body this long on the wire was decoded and parsed before. */
  sawCodedLength(codedLength: number): boolean {
    return this.codedLengths.has(codedLength);
  }
}
