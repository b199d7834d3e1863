import { grouped } from '../base/counted.js';
import { randomBytes } from 'node:crypto';

/**
 * The one escaping of text that may hold server bytes, for every line the tool prints to a terminal or a CI log
 * (stdout and stderr alike) and for every CI annotation and job-summary line. A hostile server must not be able to:
 * - move the cursor, recolour or clear the screen, set the window title (C0/C1 controls, ESC and 8-bit CSI, NUL);
 * - start a line of its own (CR, LF, NEL, U+2028/U+2029), and so a workflow command at a line start;
 * - issue a GitHub Actions command: `::cmd::` at the start of a (trimmed) line, or the older `##[cmd]` anywhere
 *   (and Azure Pipelines' `##vso[…]`, TeamCity's `##teamcity[…]`);
 * - open or close a GitLab collapsible section (`section_start:` / `section_end:`);
 * - reorder or hide what a reader sees (bidi overrides and isolates, zero-width characters);
 * - flood a log with one multi-megabyte line.
 * Everything it neutralises stays visible as an escape (`\u001b`, `#\u0023[`), so a reader sees what came.
 */

/** Longest line of server-derived text the tool prints; the rest is counted, not shown (report.json has it all). */
export const LINE_MAX = 4000;

/**
 * C0 and C1 controls (C1 includes the 8-bit CSI U+009B and NEL U+0085), bidi marks, embeddings, overrides and
 * isolates (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) and zero-width or invisible characters
 * (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E, U+00AD).
 */
const INVISIBLE =
  /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
const LINE_BREAK = /\r\n|\r|\n|\u0085|\u2028|\u2029/g;

const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Untrusted text as one inert line: line breaks shown as ⏎, invisible and control characters as \uXXXX, CI command
 * syntax broken up, and cut at `max` characters (saying how many more there were).
 */
export function untrustedLine(s: string, max = LINE_MAX): string {
  const cut = s.length > max ? `${s.slice(0, max)}… (${grouped(s.length - max)} more characters)` : s;
  return (
    cut
      .replace(LINE_BREAK, ' ⏎ ')
      .replace(INVISIBLE, escapeChar)
      // GitHub's older syntax (`##[`) is honoured anywhere in a line, as are Azure's `##vso[` and TeamCity's
      // `##teamcity[`; GitHub's current one (`::cmd::`) at the start of a trimmed line.
      .replace(/##([a-z]*)\[/gi, '#\\u0023$1[')
      .replace(/^(\s*):/, '$1\\u003a')
      // GitLab section markers (section_start:<time>:<name>).
      .replace(/section_(start|end):/gi, 'section_$1\\u003a')
  );
}

/** Several lines of output (the tool's own layout), each line made inert as untrustedLine does. */
export function untrustedLines(text: string, max = LINE_MAX): string {
  const trailing = text.endsWith('\n');
  const lines = (trailing ? text.slice(0, -1) : text).split('\n').map((l) => untrustedLine(l, max));
  return `${lines.join('\n')}${trailing ? '\n' : ''}`;
}

/**
 * Text that quotes the server, printed so that the GitHub Actions runner processes no workflow command in it:
 * between `::stop-commands::<random>` and `::<random>::`, GitHub's documented way to echo untrusted text. The token
 * is random per block, so the server cannot end the block early. Outside GitHub Actions the text is returned as is.
 * The tool's own commands (annotations) are printed after the block ends.
 */
export function inertBlock(text: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.GITHUB_ACTIONS !== 'true' || !text) return text;
  const token = randomBytes(16).toString('hex');
  return `::stop-commands::${token}\n${text}${text.endsWith('\n') ? '' : '\n'}::${token}::\n`;
}

/**
 * A server-chosen string (an id, a key, a header value, a URL) bounded for display: cut at `max` characters,
 * saying how many more there were. Cut only text already redacted: the cut may fall inside a secret.
 */
export function capText(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (${grouped(s.length - max)} more characters)` : s;
}

/** Redacted with this much text past the cut, so a secret across the cut is replaced whole before cutting. */
const CAP_MARGIN = 16_384;

/**
 * A server-chosen string redacted (by `redact`, one of the redactor's ways) and bounded as capText bounds it. Only
 * the first `max` characters and a margin are redacted: a 5 MB id in a URL was scanned whole, in every decoding, for
 * each request that failed with it (seconds a run, and hundreds of MB). The count of characters left out is of the
 * whole text.
 */
export function capRedacted(s: string, max: number, redact: (text: string) => string): string {
  if (s.length <= max + CAP_MARGIN) return capText(redact(s), max);
  const head = redact(s.slice(0, max + CAP_MARGIN));
  const more = head.length - max + (s.length - (max + CAP_MARGIN));
  return `${head.slice(0, max)}… (${grouped(more)} more characters)`;
}
