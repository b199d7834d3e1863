import { isIP } from 'node:net';

/**
 * The string formats the schemas name: the spec's own, and JSON Schema's "uri" and "date-time" for our own files (Node's
 * URL parser, no library: ajv-formats' table is no public entry point, and its public one loads all of ajv). One table,
 * used both where the validators are compiled (core/spec/schema-compiler.ts) and where precompiled ones run.
 */

/** Arithmetic, not new Date(): it runs for every time field of every record (50,000 orders × 9 at a large merchant). */
function isRealDate(y: number, m: number, d: number, hh: number, mm: number, ss = 0): boolean {
  if (m < 1 || m > 12 || d < 1 || hh > 23 || mm > 59 || ss > 59) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = m === 2 ? (leap ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
  return d <= days;
}

/** §2.2–2.4 "format YYYY-MM-DD HH:MM": exactly that, a real date and time (no seconds: the spec shows none). */
const MINUTE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;
/**
 * §2.4–2.5 "ISO 8601 UTC with fractional seconds": the extended date-time with seconds and a fraction of any length
 * (ISO 8601 allows "," as well as "."), in UTC: "Z", or the zero offset "+00:00" (RFC 3339 §4.3 reads both as UTC).
 * A leap second (:60) is a time ISO 8601 writes.
 */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})[.,]\d+(?:Z|\+00:00)$/;

/**
 * §2.5 "Merchant e-mail" gives no syntax: an address is a non-empty local part, "@", and a domain, in any script
 * (RFC 6531 internationalized addresses included); no white space or control character anywhere. The last "@"
 * splits, so a quoted local part may hold one.
 */
function isEmail(s: string): boolean {
  const at = s.lastIndexOf('@');
  if (at < 1 || at === s.length - 1) return false;
  const domain = s.slice(at + 1);
  // eslint-disable-next-line no-control-regex
  return (
    !/[\s\u0000-\u001f\u007f]/u.test(s) && !domain.startsWith('.') && !domain.endsWith('.') && !domain.includes('..')
  );
}

/**
 * §2.4 "Device IP": the words fix an IP address, and nothing narrower: IPv4 in dotted decimal (RFC 791; each part
 * 0–255, no leading zero, as node:net reads it) or IPv6 in any of RFC 4291 §2.2's text forms. A host name is no IP.
 */
const isIpAddress = (s: string): boolean => isIP(s) !== 0;

/**
 * The shape of each spec time format as a regular expression, for documents read by other tools (the OpenAPI
 * description), which do not know our format names; the calendar check stays ours (timeFormats).
 */
export const FORMAT_PATTERNS: Record<'spec-minute' | 'spec-iso-utc' | 'spec-email' | 'spec-ip', string> = {
  'spec-minute': MINUTE.source,
  'spec-iso-utc': ISO_UTC.source,
  'spec-email': '^[^\\s@][^\\s]*@[^\\s@.][^\\s@]*$',
  // The shape only (dotted digits, or hexadecimal groups with colons); the value ranges are ours (isIpAddress).
  'spec-ip': '^(?:\\d{1,3}(?:\\.\\d{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%[^\\s]+)?)$',
};

/**
 * Time strings repeat across records (a list of 50,000 orders carries 450,000 of them, far fewer distinct): each
 * distinct string is judged once per format. Bounded: a memory is cleared when it grows past 100,000 strings.
 */
const minuteVerdicts = new Map<string, boolean>();
const isoVerdicts = new Map<string, boolean>();
function remembered(memory: Map<string, boolean>, s: string, judge: () => boolean): boolean {
  let v = memory.get(s);
  if (v === undefined) {
    v = judge();
    if (memory.size >= 100_000) memory.clear();
    memory.set(s, v);
  }
  return v;
}

/** The spec's two time formats: §2.2–2.4 "YYYY-MM-DD HH:MM", §2.4–2.5 ISO 8601 UTC with fractional seconds. */
export const timeFormats = {
  'spec-minute': (s: string): boolean =>
    remembered(minuteVerdicts, s, () => {
      const m = MINUTE.exec(s);
      return !!m && isRealDate(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
    }),
  'spec-iso-utc': (s: string): boolean =>
    remembered(isoVerdicts, s, () => {
      const m = ISO_UTC.exec(s);
      return !!m && isRealDate(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, Math.min(+m[6]!, 59));
    }),
  'spec-email': isEmail,
  'spec-ip': isIpAddress,
};

/**
 * "date-time" (RFC 3339 §5.6, as JSON Schema defines the format, read as ajv-formats reads it): a real date and time
 * with seconds, an optional fraction, and "Z" or an offset (its minutes and colon optional); a leap second (:60) only
 * at 23:59 UTC. Only our own files carry one (report.json's time).
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;
function isDateTime(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [hh, mm, ss] = [+m[4]!, +m[5]!, +m[6]!];
  const offset = m[7] ? (m[7] === '-' ? -1 : 1) * (+m[8]! * 60 + +(m[9] ?? 0)) : 0;
  if (+m[8]! > 23 || +(m[9] ?? 0) > 59 || !isRealDate(+m[1]!, +m[2]!, +m[3]!, hh, mm, Math.min(ss, 59))) return false;
  return ss < 60 || (((hh * 60 + mm - offset) % 1440) + 1440) % 1440 === 1439;
}

/**
 * "uri": an absolute URI (RFC 3986: a scheme, then the rest) that the WHATWG URL parser reads, as undici will when it
 * requests it. Only the configuration's base_url has this format, and what undici cannot read is no base URL.
 */
function isUri(s: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(s) && URL.canParse(s);
}

/**
 * Every format the schemas use, as ajv takes it (`addFormat(name, definition)`): the precompiled validators look a
 * format up in this table by name, so it must hold the same definitions the compiler was given.
 */
export const FORMATS: Record<string, { type: 'string'; validate: (s: string) => boolean }> = {
  ...Object.fromEntries(
    Object.entries({ ...timeFormats, uri: isUri, 'date-time': isDateTime }).map(([name, validate]) => [
      name,
      { type: 'string' as const, validate },
    ]),
  ),
};
