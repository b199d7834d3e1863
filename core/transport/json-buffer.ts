import { grouped } from '../base/counted.js';
/**
 * JSON.parse for a big UTF-8 body without its whole text: a 65 MB list decodes to a 135 MB UTF-16 string, held
 * next to its bytes and its parsed tree, and that string alone is most of a large run's peak memory.
 *
 * Every answer of §2.1 is an envelope whose `data` holds the records. The bytes are split at the elements of the
 * envelope's top-level `data` array, and each element is decoded and parsed on its own (short strings that die
 * young). Splitting needs only the structural bytes outside strings: in UTF-8 every byte of a multi-byte character
 * is ≥ 0x80, so no byte of one can be taken for a quote, bracket or comma. The result is exactly JSON.parse's:
 * the envelope (with `data` as []) and every element are each parsed by JSON.parse, and when any piece fails, or
 * the layout is not one this reads with certainty (no object, `data` not an array, a second `data` key, an escape
 * in a top-level key), the whole text is parsed the usual way, so a malformed body fails with JSON.parse's message.
 */

import { parseJsonExact } from '../base/exact-json.js';
import { ListScan } from './list-scan.js';

/**
 * Most elements of a `data` array parsed: past this a list is refused whole (a run could not hold it; 30 MB of {}
 * are ten million objects). A large merchant's lists hold tens of thousands.
 */
export const MAX_LIST_ELEMENTS = 2_500_000;

/**
 * Most parsed elements a scan holds before it knows a list is not too long: past it the list is counted first and
 * parsed in a second pass when within MAX_LIST_ELEMENTS. A refused list of {} held 2.5 million parsed records
 * (167 MB) until its last one, a few at once for the requests in flight; a large merchant's lists stay on one pass.
 */
export const KEEP_UP_TO = 250_000;

/** Thrown when `data` holds more than MAX_LIST_ELEMENTS elements: the body is not parsed at all. */
export class TooManyElements extends Error {
  readonly code = 'BODY_TOO_LARGE';
  constructor() {
    super(
      `response body lists more than ${grouped(MAX_LIST_ELEMENTS)} records in data; not parsed (the most a run holds)`,
    );
  }
}

/**
 * JSON.parse(buf.toString('utf8')), the same value or the same error, for a body of valid UTF-8 — with integers past
 * 2^53 exact (parseJsonExact: only the pieces that hold a 16-digit run take the slower lossless parse). The body is
 * read by the list scan a body of declared length gets as it arrives (core/transport/list-scan.ts), in one block.
 */
export function parseJsonBuffer(buf: Buffer): unknown {
  const scan = new ListScan({
    keep: true,
    keepUpTo: KEEP_UP_TO,
    maxElements: MAX_LIST_ELEMENTS,
    maxEnvelopeRest: buf.length,
  });
  scan.feed(buf);
  if (scan.tooMany) throw new TooManyElements();
  let value = scan.value();
  if (scan.dropped) {
    // Long, but within bounds: read again, keeping every element.
    const all = new ListScan({ keep: true, maxElements: MAX_LIST_ELEMENTS, maxEnvelopeRest: buf.length });
    all.feed(buf);
    value = all.value();
  }
  // Not a list read piece by piece: the whole text, for JSON.parse's own verdict and message.
  return value !== undefined ? value : parseJsonExact(buf.toString('utf8'));
}
