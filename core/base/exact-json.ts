/**
 * Exact integers (§2 types ids as `int` with no range). JSON.parse rounds integers past 2^53: a server with 64-bit
 * (snowflake) ids would have its ids changed before any check compared them or asked for their detail. A body is
 * parsed losslessly only when it holds a run of 16 digits (every integer past 2^53 has at least 16): there each
 * integer literal past Number.MAX_SAFE_INTEGER becomes a bigint (exact digits, `===` compares it, `String()` and
 * template strings print it whole); every other number stays a JS number. The common body pays one regex test.
 */
import { isInteger, isSafeNumber, parse as losslessParse, stringify as losslessStringify } from 'lossless-json';

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/**
 * Whether src[from, to) holds a run of 16 digits (strings included: a false alarm only costs the slower parse).
 * Every run of 16 covers one position in 16, so only those are looked at, and a run is measured from there: on a
 * 65 MB list that is about 4 % of JSON.parse's time, where a /[0-9]{16}/ test cost 30 %.
 */
export function hasLongDigitRun(src: Buffer | string, from = 0, to = src.length): boolean {
  const at = typeof src === 'string' ? (i: number): number => src.charCodeAt(i) : (i: number): number => src[i]!;
  for (let i = from + 15; i < to; i += 16) {
    if (!isDigit(at(i))) continue;
    let s = i;
    while (s > from && isDigit(at(s - 1))) s--;
    let e = i + 1;
    while (e < to && isDigit(at(e))) e++;
    if (e - s >= 16) return true;
    // A long run after this one starts past e (not a digit), so it covers one of e+16, e+32, …
    i = e;
  }
  return false;
}

const parseNumber = (text: string): number | bigint =>
  isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text);

/**
 * JSON.parse(text), except that integers past 2^53 arrive as exact bigints. The verdict on malformed text and its
 * message stay JSON.parse's; so does a body with duplicate keys (lossless-json refuses those, JSON.parse keeps the
 * last), whose big integers are then rounded as before.
 */
export function parseJsonExact(text: string, mayHoldBigInts = hasLongDigitRun(text)): unknown {
  if (!mayHoldBigInts) return JSON.parse(text);
  try {
    return losslessParse(text, null, parseNumber);
  } catch {
    return JSON.parse(text);
  }
}

/** JSON.stringify that prints bigints as their exact digits (JSON.stringify throws on them). */
export function stringifyJson(value: unknown, space?: number | string): string | undefined {
  try {
    return JSON.stringify(value, null, space);
  } catch (e) {
    if (!(e instanceof TypeError) || !hasBigInt(value)) throw e;
    return losslessStringify(value, null, space);
  }
}

/** An integer of the JSON text: a safe integer number, or a bigint (past 2^53). */
export const isIntegerValue = (v: unknown): v is number | bigint =>
  typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

/** A value that can name a record (an id as the server wrote it): number, bigint or string. */
export const isIdLike = (v: unknown): v is number | bigint | string =>
  typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string';

/**
 * An id as a Map or Set key: two ids share a key exactly when their texts (`String(id)`) are equal. An integer of up
 * to 15 digits, however written (5, "5", 5n), is the number, which costs no allocation: 500,000 order ids as text
 * hold some 10 MB. Anything else is its text.
 */
export function idKey(v: number | bigint | string): number | string {
  if (typeof v === 'string') return SHORT_INTEGER_TEXT.test(v) ? Number(v) : v;
  if (typeof v === 'bigint') return v > -SHORT_LIMIT_N && v < SHORT_LIMIT_N ? Number(v) : String(v);
  // -0 is 0 in a Map, and String(-0) is "0".
  return Number.isInteger(v) && Math.abs(v) < SHORT_LIMIT ? v : String(v);
}
const SHORT_LIMIT = 1e15;
const SHORT_LIMIT_N = 10n ** 15n;
const SHORT_INTEGER_TEXT = /^(?:0|-?[1-9][0-9]{0,14})$/;

/**
 * Values whose answer to hasBigInt is known without walking them: a list read from disk (core/transport/disk-list.ts) knows
 * from its scan, and walking it would parse and hold every record at once.
 */
export const knownBigInts = new WeakMap<object, boolean>();

/** Whether a tree holds a bigint anywhere; iterative, since a hostile body may nest deeper than the stack. */
export function hasBigInt(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'bigint') return true;
    if (typeof v !== 'object' || v === null) continue;
    const known = knownBigInts.get(v);
    if (known !== undefined) {
      if (known) return true;
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    for (const k in v) stack.push((v as Record<string, unknown>)[k]);
  }
  return false;
}

/**
 * A copy with every bigint as the nearest number: what a JSON Schema validator can type-check (an integer stays an
 * integer; the schemas set no range, so the rounding changes no verdict). Never used for comparing or printing.
 */
export function withNumbers(v: unknown): unknown {
  try {
    return numbersOf(v);
  } catch (e) {
    // Nested deeper than the stack: judged as it is (its bigints then fail `integer`, which such a body fails anyway).
    if (e instanceof RangeError) return v;
    throw e;
  }
}

function numbersOf(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(numbersOf);
  // fromEntries defines own properties: a "__proto__" key of the server stays a key.
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, numbersOf(x)]));
}
