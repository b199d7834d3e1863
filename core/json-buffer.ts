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

import { hasLongDigitRun, parseJsonExact } from './exact-json.js';
import { Ranges } from './ranges.js';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  DATA_KEY,
  isSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';

/**
 * Index just past the string whose opening quote is at `at`, or -1 if it never closes. A plain loop: most strings
 * of a record are a few bytes long, shorter than the cost of a call to Buffer.indexOf.
 */
function stringEnd(buf: Buffer, at: number): number {
  for (let j = at + 1; j < buf.length; j++) {
    const c = buf[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/**
 * Most elements of a `data` array parsed: past this a list is refused whole (a run could not hold it; 30 MB of {}
 * are ten million objects). A large merchant's lists hold tens of thousands.
 */
export const MAX_LIST_ELEMENTS = 2_500_000;

/** Thrown when `data` holds more than MAX_LIST_ELEMENTS elements: the body is not parsed at all. */
export class TooManyElements extends Error {
  readonly code = 'BODY_TOO_LARGE';
  constructor() {
    super(
      `response body lists more than ${MAX_LIST_ELEMENTS.toLocaleString('en-US')} records in data; not parsed (the most a run holds)`,
    );
  }
}

interface Layout {
  open: number;
  close: number;
  elements: Ranges;
}

/** Where the top-level `data` array is, and where each of its elements starts and ends; undefined if unsure. */
function layout(buf: Buffer): Layout | undefined {
  let i = 0;
  while (isSpace(buf[i])) i++;
  if (buf[i] !== OPEN_BRACE) return undefined;
  let depth = 0;
  let found: Layout | undefined;
  let inData = false;
  let elementStart = 0;
  for (; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === QUOTE) {
      const end = stringEnd(buf, i);
      if (end < 0) return undefined;
      if (depth === 1) {
        let j = end;
        while (isSpace(buf[j])) j++;
        if (buf[j] === COLON) {
          // A key of the envelope: JSON.parse keeps the last of equal keys, escaped spellings included.
          if (buf.subarray(i, end).includes(BACKSLASH)) return undefined;
          if (end - i === DATA_KEY.length && buf.compare(DATA_KEY, 0, DATA_KEY.length, i, end) === 0) {
            if (found) return undefined;
            j++;
            while (isSpace(buf[j])) j++;
            if (buf[j] !== OPEN_BRACKET) return undefined;
            found = { open: j, close: -1, elements: new Ranges(MAX_LIST_ELEMENTS, () => new TooManyElements()) };
            inData = true;
            elementStart = j + 1;
            depth = 2;
            i = j;
            continue;
          }
        }
      }
      i = end - 1;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      if (inData && depth === 2) {
        if (b !== CLOSE_BRACKET) return undefined;
        found!.elements.push(elementStart, i);
        found!.close = i;
        inData = false;
      }
      depth--;
      if (depth === 0) break;
    } else if (b === COMMA && inData && depth === 2) {
      found!.elements.push(elementStart, i);
      elementStart = i + 1;
    }
  }
  if (!found || found.close < 0) return undefined;
  // "[ ]": one stretch of white space is no element.
  if (
    found.elements.length === 1 &&
    buf.subarray(found.elements.start(0), found.elements.end(0)).every((b) => isSpace(b))
  )
    found.elements.clear();
  return found;
}

/**
 * JSON.parse(buf.toString('utf8')), the same value or the same error, for a body of valid UTF-8 — with integers past
 * 2^53 exact (parseJsonExact: only the pieces that hold a 16-digit run take the slower lossless parse).
 */
export function parseJsonBuffer(buf: Buffer): unknown {
  const l = layout(buf);
  if (l) {
    try {
      const envelope = parseJsonExact(`${buf.toString('utf8', 0, l.open)}[]${buf.toString('utf8', l.close + 1)}`) as {
        data: unknown[];
      };
      const data = new Array<unknown>(l.elements.length);
      for (let k = 0; k < l.elements.length; k++) {
        const [from, to] = [l.elements.start(k), l.elements.end(k)];
        data[k] = parseJsonExact(buf.toString('utf8', from, to), hasLongDigitRun(buf, from, to));
      }
      envelope.data = data;
      return envelope;
    } catch {
      // Not valid piece by piece: the whole text, for JSON.parse's own verdict and message.
    }
  }
  return parseJsonExact(buf.toString('utf8'));
}
