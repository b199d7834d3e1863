import fc from 'fast-check';
import type { RecordId } from '../../core/spec/endpoints.js';

/**
 * Generated dish_id / seat_id path segments (issue 3, "Fuzzing with fast-check"). A generated value is the raw
 * segment as it goes on the wire: the HTTP client sends paths as given, so every generated text is
 * percent-encoded here (encodeURIComponent) and the percent-encoded "/" and ".." classes are written raw.
 */

/** What the server sees after decoding the segment once (RFC 3986 percent-decoding). */
export function decodedSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Segments that would ask another endpoint than the detail: "" is the list, and URL parsers (WHATWG, undici)
 * remove "." and ".." dot-segments, also written %2e, before the request leaves. They are never generated.
 */
export function isDetailSegment(raw: string): boolean {
  return raw !== '' && !/^(?:\.|%2e){1,2}$/i.test(raw);
}

/**
 * The id a segment names exactly, or undefined when it names none.
 *
 * Decision: a segment names the id N when, percent-decoded, it is ASCII decimal digits only and its value is N.
 * Leading zeros are accepted ("007" names 7: the same decimal integer, and integer parsers everywhere read it so).
 * Anything else names no id — a sign, whitespace, a decimal point or exponent ("7.0", "7e0"), digits of other
 * scripts ("７"), trailing or leading characters ("7abc", "0x7") — so the only acceptable answer for it is an error
 * 400/404: a server that answers dish 7 for "7abc" parses ids leniently and answers records nobody asked for.
 */
export function namedId(raw: string): bigint | undefined {
  const s = decodedSegment(raw);
  return /^[0-9]+$/.test(s) ? BigInt(s) : undefined;
}

/** The record id is exactly the id the segment names (an id rendered as a digit string counts: its type is SEAT-02's). */
export function isExactlyThatId(raw: string, id: unknown): boolean {
  // n is undefined for a segment that names no id, which no id equals; it comes from ASCII digits, never negative.
  const n = namedId(raw);
  if (typeof id === 'bigint') return id === n;
  if (typeof id === 'number') return Number.isSafeInteger(id) && BigInt(id) === n;
  return typeof id === 'string' && /^[0-9]+$/.test(id) && BigInt(id) === n;
}

// Every text encoded here (ASCII, fixed whitespace and digits, fast-check's `grapheme` and `grapheme-ascii` strings)
// is well-formed UTF-16: encodeURIComponent never throws on it.
const enc = (v: string): string => encodeURIComponent(v);

/** Boundaries where integer parsing goes wrong: int32, uint32, 2^53 (doubles), int64, uint64. */
export const BOUNDS: readonly bigint[] = [
  2n ** 31n - 1n,
  2n ** 31n,
  2n ** 32n,
  2n ** 53n - 1n,
  2n ** 53n,
  2n ** 53n + 1n,
  2n ** 63n - 1n,
  2n ** 63n,
  2n ** 64n,
];

const toBig = (ids: RecordId[]): bigint[] => ids.filter((i) => /^[0-9]+$/.test(String(i))).map((i) => BigInt(i));

/** A real id written in another digit script (fullwidth, Arabic-Indic): looks like the id, is not it. */
const otherDigits = (n: bigint, zero: number): string =>
  [...String(n)].map((c) => String.fromCodePoint(zero + Number(c))).join('');

/** 101 as "1.01e2": the same number in exponent notation. */
const mantissa = (n: bigint): string => {
  const s = String(n);
  return s.length > 1 ? `${s[0]}.${s.slice(1)}e${s.length - 1}` : `${s}e0`;
};

/** Most ids spread into fc.constantFrom: a call's arguments live on the stack, and 200,000 overflow it. */
const MAX_SPREAD_IDS = 65_536;

/** The ids, or an even sample of MAX_SPREAD_IDS of them when more (never at the large merchant's 20,000). */
function spreadable<T>(ids: T[]): T[] {
  if (ids.length <= MAX_SPREAD_IDS) return ids;
  const step = ids.length / MAX_SPREAD_IDS;
  return Array.from({ length: MAX_SPREAD_IDS }, (_, i) => ids[Math.floor(i * step)]!);
}

/**
 * The arbitrary texts of every endpoint's segments. Built once, with this module: building a string arbitrary maps
 * its whole alphabet (11 ms of a fixture run for each fuzzed endpoint).
 */
const GRAPHEMES = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 });
const LONG_ASCII = fc.string({ unit: 'grapheme-ascii', minLength: 100, maxLength: 400 });
const SHORT_ASCII = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 });

/**
 * Segments for one endpoint: mine are the merchant's own ids of that resource, theirs another merchant's
 * (other_app), not also mine. Each class has equal weight so a short run still visits them all.
 */
export function segmentArbitrary(mine: RecordId[], theirs: RecordId[]): fc.Arbitrary<string> {
  const realIds = spreadable(toBig(mine));
  const real = fc.constantFrom(...(realIds.length ? realIds : [1n]));
  const text = (a: fc.Arbitrary<string>): fc.Arbitrary<string> => a.map(enc);
  const classes: Array<fc.Arbitrary<string>> = [
    // the real ids themselves, and ids next to them
    real.map(String),
    fc
      .tuple(
        real,
        fc.integer({ min: -3, max: 3 }).filter((d) => d !== 0),
      )
      .map(([r, d]) => String(r + BigInt(d))),
    // leading zeros (names the id: see namedId), zero
    fc.tuple(real, fc.integer({ min: 1, max: 6 })).map(([r, k]) => `${'0'.repeat(k)}${r}`),
    fc.constantFrom('0', '00', '-0', '%2B0', '000000'),
    // negatives
    fc.oneof(
      real.map((r) => `-${r}`),
      fc.integer({ min: -(2 ** 31), max: -1 }).map(String),
      fc.constantFrom(...BOUNDS).map((b) => `-${b}`),
    ),
    // large integers past 2^31, 2^53, 2^63, and a real id plus a boundary (a parser that wraps answers the real id)
    fc.oneof(
      fc.constantFrom(...BOUNDS).map(String),
      fc.tuple(fc.constantFrom(2n ** 32n, 2n ** 64n), real).map(([b, r]) => String(b + r)),
      fc.bigInt({ min: 2n ** 31n, max: 2n ** 96n }).map(String),
    ),
    // decimals and exponent notation
    text(
      fc.oneof(
        fc.tuple(real, fc.constantFrom('.0', '.5', '.00', '.', '.999')).map(([r, s]) => `${r}${s}`),
        real.map((r) => `0.${r}`),
      ),
    ),
    text(
      fc.oneof(
        real.map(mantissa),
        real.map((r) => `${r}e0`),
        real.map((r) => `${r}E0`),
        fc.constantFrom('1e3', '1E2', '1e308', '1e-1', 'Infinity', 'NaN'),
      ),
    ),
    // whitespace around a real id
    text(
      fc
        .tuple(
          real,
          fc.constantFrom(' ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2003', '\u200b'),
          fc.constantFrom(0, 1, 2),
        )
        .map(([r, w, where]) => (where === 0 ? `${w}${r}` : where === 1 ? `${r}${w}` : `${w}${r}${w}`)),
    ),
    // unicode: the id in other digit scripts, and arbitrary text
    text(
      fc.oneof(
        real.map((r) => otherDigits(r, 0xff10)),
        real.map((r) => otherDigits(r, 0x0660)),
        GRAPHEMES,
      ),
    ),
    // percent-encoded "/" and ".." (raw: these are the bytes on the wire)
    fc.oneof(
      fc.constantFrom(
        '%2F',
        '%2F%2F',
        '..%2F',
        '..%2F..%2Fmerchant',
        '%2e%2e%2fmerchant',
        '%2E%2E%2F%2E%2E%2Forders',
        '..%5C..%5Cmerchant',
        '%2F..',
      ),
      real.map((r) => `${r}%2F..`),
      real.map((r) => `..%2F${r}`),
      real.map((r) => `${r}%2F`),
      real.map((r) => `%2F${r}`),
      real.map((r) => `.%2F${r}`),
    ),
    // very long strings (kept under common request-line limits: the spec sets no size limits, §8)
    fc.oneof(
      fc.integer({ min: 20, max: 1200 }).map((n) => '9'.repeat(n)),
      fc.integer({ min: 20, max: 1200 }).map((n) => 'a'.repeat(n)),
      fc.tuple(fc.integer({ min: 20, max: 600 }), real).map(([n, r]) => `${'0'.repeat(n)}${r}`),
      text(LONG_ASCII),
    ),
    // a real id with something before or after it
    fc.oneof(
      fc
        .tuple(
          real,
          fc.constantFrom('abc', 'a', '%3B', '%00', '-1', '%2C1', '*', '%3F', '%23', 'x', '%0A', '.json', '%20abc'),
        )
        .map(([r, s]) => `${r}${s}`),
      real.map((r) => `0x${r.toString(16)}`),
      real.map((r) => `%2B${r}`),
      real.map((r) => `id${r}`),
    ),
    text(SHORT_ASCII),
  ];
  // the other merchant's ids, as they are and with a leading zero (only when other_app is configured)
  const theirIds = toBig(theirs);
  if (theirIds.length)
    classes.push(fc.constantFrom(...spreadable(theirIds)).chain((t) => fc.constantFrom(String(t), `0${t}`)));
  return fc.oneof(...classes).filter(isDetailSegment);
}
