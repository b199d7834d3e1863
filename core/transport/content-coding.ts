/**
 * Content codings of response bodies (RFC 9110 §8.4, §12.5.3) and the byte order mark of a JSON body (RFC 8259 §8.1).
 *
 * The client names in Accept-Encoding what it decodes; a server may code a body anyway (a request without
 * Accept-Encoding accepts any coding, and one with it may still get one), so a body coded gzip, deflate or br is
 * decoded as it arrives, with Node's streaming zlib decompressors, and everything after (the body cap, the body sink,
 * the list scan, the evidence, the redactor) sees the decoded bytes. undici's own decompress interceptor is not used:
 * it is experimental (it prints a warning on stderr), drops Content-Encoding from the headers the evidence shows, and
 * reads deflate only in the zlib format.
 */
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  type BrotliDecompress,
  type Gunzip,
  type Inflate,
  type InflateRaw,
} from 'node:zlib';

/** The codings the client decodes, as its Accept-Encoding header names them. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

/** A content coding the client decodes. */
export type Coding = 'gzip' | 'deflate' | 'br';

const KNOWN: Record<string, Coding> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };
/** Codings stacked on one body past this are refused (undici's decompress interceptor allows 5). */
const MAX_CODINGS = 5;

/** The Content-Encoding of a response, read: the codings in the order they were applied, or why it cannot be decoded. */
export function codingsOf(header: string | string[] | undefined): { codings: Coding[] } | { unsupported: string } {
  if (header === undefined) return { codings: [] };
  const names = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
  if (names.length > MAX_CODINGS) return { unsupported: `${names.length} codings stacked` };
  const codings: Coding[] = [];
  for (const n of names) {
    const c = KNOWN[n];
    if (!c) return { unsupported: n };
    codings.push(c);
  }
  return { codings };
}

/** The error of a coded body that does not decode (code BAD_CODING). */
export const badCoding = (message: string): Error => Object.assign(new Error(message), { code: 'BAD_CODING' });

type Decompressor = Gunzip | Inflate | InflateRaw | BrotliDecompress;
const DECODED_CHUNK_BYTES = 64 * 1024;

/**
 * A body's coded bytes in, its decoded bytes out, in order and with backpressure both ways: write() tells the sender
 * to pause while the decompressor's input is full, and the decoded side waits for each promise `out` returns (a
 * chunk going to disk) before it hands on the next.
 */
export class BodyDecoder {
  private chain: Decompressor[] | undefined;
  private pending: Promise<void> | undefined;
  private failed = false;
  private readonly done: Promise<void>;
  private settle!: { resolve: () => void; reject: (e: Error) => void };

  constructor(
    private readonly codings: readonly Coding[],
    /** Takes one decoded chunk; a promise when it must be awaited before the next. */
    private readonly out: (chunk: Buffer) => Promise<void> | undefined,
    /** Pause and resume the sender of coded bytes (the socket). */
    private readonly flow: { pause(): void; resume(): void },
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // Nobody may be waiting yet when a chunk fails to decode: the failure is handed over by end().
    this.done.catch(() => undefined);
  }

  /** Made on the first coded byte: a deflate body is the zlib format by RFC 9110, but some servers send it raw. */
  private build(first: Buffer): Decompressor[] {
    // Decoded chunks of 64 KiB, not zlib's 16 KiB: a body held in memory is thousands of them (see BodySink).
    const o = { chunkSize: DECODED_CHUNK_BYTES };
    const chain = [...this.codings].reverse().map((c, i): Decompressor => {
      if (c === 'gzip') return createGunzip(o);
      if (c === 'br') return createBrotliDecompress(o);
      // A zlib stream starts with a header byte whose low nibble is 8 (deflate); anything else is raw deflate.
      return i === 0 && (first[0]! & 0x0f) !== 8 ? createInflateRaw(o) : createInflate(o);
    });
    for (const [i, d] of chain.entries()) {
      d.on('error', (e: Error) => this.fail(e));
      if (i < chain.length - 1) d.pipe(chain[i + 1]!);
    }
    // The coded bytes wait in the socket while the first decompressor's input is full.
    chain[0]!.on('drain', () => this.flow.resume());
    const last = chain[chain.length - 1]!;
    last.on('data', (chunk: Buffer) => this.decoded(last, chunk));
    last.on('end', () => {
      void (this.pending ?? Promise.resolve()).then(() => this.settle.resolve());
    });
    return chain;
  }

  private decoded(last: Decompressor, chunk: Buffer): void {
    if (this.failed) return;
    if (this.pending) {
      // Still waiting on the last chunk's write: this one follows it.
      const after = this.pending.then(() => (this.failed ? undefined : this.out(chunk)));
      this.wait(last, after);
      return;
    }
    const p = this.out(chunk);
    if (p) this.wait(last, p);
  }

  private wait(last: Decompressor, p: Promise<void>): void {
    last.pause();
    const mine: Promise<void> = p.then(
      () => {
        if (this.pending === mine) {
          this.pending = undefined;
          if (!this.failed) last.resume();
        }
      },
      (e: unknown) => this.fail(e as Error, false),
    );
    this.pending = mine;
  }

  /** One chunk of coded bytes, in order. */
  write(chunk: Buffer): void {
    if (this.failed) return;
    this.chain ??= this.build(chunk);
    if (!this.chain[0]!.write(chunk)) this.flow.pause();
  }

  /** Resolves when the last coded byte was decoded and every decoded chunk taken; rejects when the body does not decode. */
  end(): Promise<void> {
    if (!this.chain) this.settle.resolve();
    else if (!this.failed) this.chain[0]!.end();
    return this.done;
  }

  /** Stops decoding (the body was refused or failed): the decompressors are freed. */
  destroy(): void {
    this.failed = true;
    for (const d of this.chain ?? []) d.destroy();
  }

  /** Ends the body with an error: a decompressor's (the coded bytes are broken) or the taker's (`decoding` false). */
  private fail(e: Error, decoding = true): void {
    if (this.failed) return;
    this.destroy();
    const what = this.codings.join(', ');
    this.settle.reject(
      decoding ? badCoding(`the body is coded ${what} (Content-Encoding) and does not decode: ${e.message}`) : e,
    );
  }
}

/** The UTF-8 byte order mark U+FEFF (RFC 8259 §8.1: a JSON sender MUST NOT add one; a reader MAY ignore it). */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NO_BYTES = Buffer.alloc(0);

/** A whole body without its leading byte order mark, and whether it had one (a recorded body: see BomCut). */
export function withoutBom(body: Buffer): { body: Buffer; bom: boolean } {
  const cut = new BomCut();
  const rest = cut.cut(body);
  return { body: rest.length ? rest : cut.flush(), bom: cut.found };
}

/** A body's bytes as they came: the byte order mark a reply was read without (Reply.bom), put back. */
export const withBom = (body: Buffer, bom: boolean | undefined): Buffer => (bom ? Buffer.concat([BOM, body]) : body);

/**
 * Takes a leading byte order mark off a body as its chunks come, cut anywhere: the first bytes are held until three
 * are in (or the body ends). Every later chunk passes untouched.
 */
export class BomCut {
  /** Whether the body started with a byte order mark. */
  found = false;
  private held: Buffer | undefined;
  private decided = false;

  /** The chunk without what belongs to a leading byte order mark (possibly empty: bytes held back). */
  cut(chunk: Buffer): Buffer {
    if (this.decided) return chunk;
    const b = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    if (b.length < BOM.length && BOM.subarray(0, b.length).equals(b)) {
      this.held = Buffer.from(b);
      return NO_BYTES;
    }
    this.held = undefined;
    this.decided = true;
    if (b.length >= BOM.length && b[0] === BOM[0] && b[1] === BOM[1] && b[2] === BOM[2]) {
      this.found = true;
      return b.subarray(BOM.length);
    }
    return b;
  }

  /** The bytes still held at the body's end (a body shorter than a byte order mark that starts like one). */
  flush(): Buffer {
    const rest = this.held ?? NO_BYTES;
    this.held = undefined;
    this.decided = true;
    return rest;
  }
}
