/** How a server value is quoted in the suite's messages: exact JSON, filtered for secrets and markers, bounded. */
import { neutralizeMarkers } from './redact.js';
import { stringifyJson } from '../base/exact-json.js';

/**
 * What every quoted server value goes through before it joins a message: by default forged redaction markers are
 * neutralised; a run sets its redactor's redactQuoted (core/engine/run.ts), which also replaces secrets too short to be
 * replaced in the tool's own words (a token "NOT"). Messages are finished by redactMessage (core/engine/run-check.ts).
 */
let quoteFilter: (s: string) => string = neutralizeMarkers;
/** Sets the filter every quoted server value goes through (a run passes its redactor's redactQuoted). */
export function setQuoteFilter(filter: (s: string) => string): void {
  quoteFilter = filter;
}

/** Server text as it may join a message without JSON quoting (a field name): through the same filter as show. */
export const filtered = (s: string): string => quoteFilter(s);

/**
 * JSON text of a value (integers past 2^53 with their exact digits), or a phrase when it cannot be rendered (nested
 * deeper than JSON.stringify's stack).
 */
export function jsonText(v: unknown): string {
  try {
    return stringifyJson(v) ?? String(v);
  } catch {
    return '(a value nested too deeply to show)';
  }
}

/**
 * A short, safe rendering of a server value for messages: JSON, filtered (see setQuoteFilter) before it is cut, so
 * the cut never leaves a readable part of a secret, and at most `max` characters (the server chooses its length).
 */
export function show(v: unknown, max = 120): string {
  if (v === undefined) return 'nothing';
  // Filtered with a margin past the cut, so a secret across it is replaced whole; a huge value is cut first.
  const limit = max + 16_384;
  const text = jsonText(typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v);
  const s = quoteFilter(text.length > limit ? text.slice(0, limit) : text);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
