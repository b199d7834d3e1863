/**
 * A list envelope read as its bytes come, in blocks cut anywhere: UTF-8 checked on whole characters, the top-level
 * `data` array located, each element parsed once as soon as its last byte is in. It serves two readers:
 * core/transport/disk-list.ts scans a spilled file block by block (keeping where each element is), and core/transport/body-sink.ts scans a
 * body of declared length chunk by chunk while it arrives (keeping the parsed elements), so a 65 MB list is parsed
 * while the server is still sending it instead of in one pass after its last byte.
 *
 * The verdict is JSON.parse's, element by element as core/transport/json-buffer.ts does: the envelope (with `data` as []) and
 * every element are each valid JSON. Anything the scan is not certain of (no object, `data` not an array, a second
 * `data` key, an escaped envelope key, a piece that does not parse, bytes that are not UTF-8, too many elements, too
 * much envelope outside `data`) ends it with no result, and the caller parses the body another way.
 */
import { isUtf8 } from 'node:buffer';
import { hasBigInt, hasLongDigitRun, parseJsonExact } from '../base/exact-json.js';
import { Ranges } from '../base/ranges.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  DATA_KEY as DATA,
  isSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from '../base/json-bytes.js';

/** What a finished scan found. */
export interface ScannedList {
  /** The envelope parsed with `data` as []. */
  envelope: Record<string, unknown>;
  /** Where each element of `data` is in the body, [start, end) in bytes (not kept with the values). */
  ranges: Ranges;
  /** Which elements are JSON objects, when not all are (not kept with the values). */
  objects: Uint8Array | undefined;
  /** Whether any element holds an integer past 2^53 (a bigint). */
  bigInts: boolean;
  /** The parsed elements, in order (only when the scan was asked to keep them). */
  values: unknown[] | undefined;
}

/** How a scan reads: what it keeps, and the bounds past which a body is not read as a list. */
export interface ListScanOptions {
  /** Keep each parsed element (a body held in memory) or only where it is (a list read again from its file). */
  keep: boolean;
  /** Most elements: past it the scan ends with no result. */
  maxElements?: number;
  /**
   * With `keep`: most elements kept. Past it the scan drops what it kept and only counts (and parses, to know each
   * parses) the rest, so a list that proves too long (maxElements) never held more than this many parsed elements;
   * value() is then undefined and the caller reads the body again if it is to be parsed (see `dropped`).
   */
  keepUpTo?: number;
  /** Most bytes of the envelope outside `data` (a hostile server could send gigabytes of other members). */
  maxEnvelopeRest: number;
}

const NO_BYTES = Buffer.alloc(0);

/** Whether buf[from, to) is all JSON white space. */
function allSpace(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(buf[i])) return false;
  return true;
}

/** How many bytes a UTF-8 character has, from its first byte; 0 for a byte no character starts with. */
function charBytes(b: number): number {
  return b < 0x80 ? 1 : (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 0;
}

/** Where `byte` next occurs in buf from `from` on, or `end` when it does not. */
function indexOrEnd(buf: Buffer, byte: number, from: number, end: number): number {
  const k = buf.indexOf(byte, from);
  return k < 0 ? end : k;
}

/** A scan in progress: feed() each block in order, then finish(). */
export class ListScan {
  /** False once the body is known not to be a list this scan reads. */
  ok = true;
  /** Set when the scan ended at more than maxElements elements (the caller refuses the body rather than parse it). */
  tooMany = false;
  /** Set when the scan had more than keepUpTo elements and dropped those it kept: value() is undefined. */
  dropped = false;
  private pos = 0;
  private readonly prefix: Buffer[] = [];
  private readonly suffix: Buffer[] = [];
  private restBytes = 0;
  private readonly ranges: Ranges;
  private readonly isObject: number[] = [];
  private anyNotObject = false;
  private bigInts = false;
  /** Elements read so far. */
  private count = 0;
  private values: unknown[] | undefined;
  // The parser's state, carried across blocks.
  private started = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  // A string at depth 1 (a key of the envelope, or a value): whether it is "data" so far, and whether it has escapes.
  private keyLength = 0;
  private keyMatch = false;
  private keyEscaped = false;
  private afterString: { isData: boolean; escaped: boolean } | undefined;
  private awaitingArray = false;
  private seenData = false;
  private inData = false;
  private open = -1;
  private close = -1;
  private elementStart = 0;
  private element: Buffer[] = [];
  private utf8Carry = NO_BYTES;

  constructor(private readonly opts: ListScanOptions) {
    this.ranges = new Ranges();
    this.values = opts.keep ? [] : undefined;
  }

  /** Reads the next block of the body (its bytes may be reused by the caller afterwards); false once it failed. */
  feed(buf: Buffer): boolean {
    if (this.ok && !this.scanBlock(buf)) this.ok = false;
    this.pos += buf.length;
    return this.ok;
  }

  /** The result once every byte was fed, or undefined when the body is not a list this scan reads. */
  finish(): ScannedList | undefined {
    if (!this.ok || !this.seenData || this.close < 0) return undefined;
    // A character still waiting for its last bytes: the body ends inside it.
    if (this.utf8Carry.length) return undefined;
    let envelope: unknown;
    try {
      envelope = parseJsonExact(
        `${Buffer.concat(this.prefix).toString('utf8')}[]${Buffer.concat(this.suffix).toString('utf8')}`,
      );
    } catch {
      return undefined;
    }
    if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return undefined;
    return {
      envelope: envelope as Record<string, unknown>,
      ranges: this.ranges,
      objects: this.anyNotObject ? Uint8Array.from(this.isObject) : undefined,
      bigInts: this.bigInts,
      values: this.values,
    };
  }

  /**
   * JSON.parse's value of the whole body, for a scan that kept its elements, once every byte was fed: the envelope
   * with `data` its elements; undefined when the body is not a list this scan reads.
   */
  value(): unknown {
    if (this.dropped) return undefined;
    const scanned = this.finish();
    if (!scanned?.values) return undefined;
    scanned.envelope.data = scanned.values;
    return scanned.envelope;
  }

  private endElement(endAbs: number, buf: Buffer, last: boolean): boolean {
    // Read in place when the element is all in this block: no Buffer object per element (two million of them for a
    // hostile list of empty records).
    let src = buf;
    let from = Math.max(0, this.elementStart - this.pos);
    let to = endAbs - this.pos;
    if (this.element.length) {
      src = Buffer.concat([...this.element, buf.subarray(from, to)]);
      [from, to] = [0, src.length];
      this.element = [];
    }
    if (last && this.count === 0 && allSpace(src, from, to)) return true; // "[ ]": no element
    if (this.count >= (this.opts.maxElements ?? Infinity)) {
      this.tooMany = true;
      return false;
    }
    let value: unknown;
    const mayHoldBigInts = hasLongDigitRun(src, from, to);
    try {
      value = parseJsonExact(src.toString('utf8', from, to), mayHoldBigInts);
    } catch {
      return false;
    }
    this.count++;
    if (mayHoldBigInts && !this.bigInts) this.bigInts = hasBigInt(value);
    if (this.values) {
      if (this.values.length < (this.opts.keepUpTo ?? Infinity)) {
        this.values.push(value);
        return true;
      }
      this.values = undefined;
      this.dropped = true;
    }
    if (this.dropped) return true;
    // Only a list read again from its file needs to know where each element is, and which are objects.
    const obj = typeof value === 'object' && value !== null && !Array.isArray(value);
    this.isObject.push(obj ? 1 : 0);
    if (!obj) this.anyNotObject = true;
    this.ranges.push(this.elementStart, endAbs);
    return true;
  }

  /**
   * Checks a block as UTF-8 on whole characters: one cut at the block's end is finished with the next block's first
   * bytes (never by copying a whole block: a list arrives in chunks of 64 KB, many cut inside a character).
   */
  private utf8(buf: Buffer): boolean {
    let from = 0;
    if (this.utf8Carry.length) {
      // At least 1: a character is carried only while some of its bytes are still to come.
      const need = charBytes(this.utf8Carry[0]!) - this.utf8Carry.length;
      if (buf.length < need) {
        this.utf8Carry = Buffer.concat([this.utf8Carry, buf]);
        return true;
      }
      if (!isUtf8(Buffer.concat([this.utf8Carry, buf.subarray(0, need)]))) return false;
      this.utf8Carry = NO_BYTES;
      from = need;
    }
    const n = buf.length;
    // The start of the block's last character: it is kept for the next block when its bytes are not all here.
    let k = n - 1;
    while (k > from && k > n - 4 && (buf[k]! & 0xc0) === 0x80) k--;
    if (k < from || n - k >= charBytes(buf[k]!)) return isUtf8(buf.subarray(from));
    if (!isUtf8(buf.subarray(from, k))) return false;
    this.utf8Carry = Buffer.from(buf.subarray(k));
    return true;
  }

  private scanBlock(buf: Buffer): boolean {
    const n = buf.length;
    const pos = this.pos;
    if (!this.utf8(buf)) return false;
    const openBefore = this.open;
    const closeBefore = this.close;

    // Where the next backslash of this block is (n: none), found once for all the strings before it.
    let nextBackslash = -1;
    for (let i = 0; i < n; i++) {
      // Inside an element's string only its end matters: the bytes up to the closing quote are skipped by indexOf
      // (most of a list's bytes), unless a backslash comes first.
      if (this.inString && !this.escaped && this.depth !== 1) {
        if (nextBackslash < i) nextBackslash = indexOrEnd(buf, BACKSLASH, i, n);
        const quote = indexOrEnd(buf, QUOTE, i, n);
        if (quote < nextBackslash) {
          this.inString = false;
          i = quote;
          continue;
        }
        // Neither: the string goes on in the next block.
        if (nextBackslash === n) break;
        i = nextBackslash;
      }
      const b = buf[i]!;
      const at = pos + i;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) {
          this.escaped = true;
          this.keyEscaped = true;
        } else if (b === QUOTE) {
          this.inString = false;
          if (this.depth === 1)
            this.afterString = {
              isData: this.keyMatch && this.keyLength === DATA.length - 1,
              escaped: this.keyEscaped,
            };
          continue;
        }
        if (this.depth === 1) {
          this.keyMatch = this.keyMatch && this.keyLength < DATA.length - 1 && b === DATA[this.keyLength];
          this.keyLength++;
        }
        continue;
      }
      if (isSpace(b)) continue;
      if (!this.started) {
        if (b !== OPEN_BRACE) return false;
        this.started = true;
        this.depth = 1;
        continue;
      }
      if (this.afterString) {
        const s = this.afterString;
        this.afterString = undefined;
        if (b === COLON) {
          if (s.escaped) return false;
          if (s.isData) {
            if (this.seenData) return false;
            this.seenData = true;
            this.awaitingArray = true;
          }
          continue;
        }
      }
      if (this.awaitingArray) {
        this.awaitingArray = false;
        if (b !== OPEN_BRACKET) return false;
        this.open = at;
        this.inData = true;
        this.depth = 2;
        this.elementStart = at + 1;
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
        this.keyLength = 1;
        this.keyMatch = true;
        this.keyEscaped = false;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (this.inData && this.depth === 2) {
          if (b !== CLOSE_BRACKET) return false;
          if (!this.endElement(at, buf, true)) return false;
          this.close = at;
          this.inData = false;
        }
        // What follows the envelope goes to the envelope's parse: trailing bytes fail it, as they fail JSON.parse.
        this.depth--;
      } else if (b === COMMA && this.inData && this.depth === 2) {
        if (!this.endElement(at, buf, false)) return false;
        this.elementStart = at + 1;
      }
    }
    // Keep what this block holds of the element in progress, of the envelope before `data` and after it.
    if (this.inData && this.elementStart < pos + n)
      this.element.push(Buffer.from(buf.subarray(Math.max(0, this.elementStart - pos))));
    if (openBefore < 0) {
      const to = this.open < 0 ? n : this.open - pos;
      this.prefix.push(Buffer.from(buf.subarray(0, to)));
      this.restBytes += to;
    }
    if (this.close >= 0) {
      const from = closeBefore >= 0 ? 0 : this.close + 1 - pos;
      this.suffix.push(Buffer.from(buf.subarray(from)));
      this.restBytes += n - from;
    }
    return this.restBytes <= this.opts.maxEnvelopeRest;
  }
}
