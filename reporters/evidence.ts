import { grouped } from '../core/base/counted.js';
import type { Exchange } from '../core/transport/exchange.js';
import { inferredShows, type Evidence, type Shows } from '../core/model/findings.js';
import { parseJsonExact } from '../core/base/exact-json.js';
import type { Report } from '../core/model/report.js';
import { AUTH_PATH, authQueryText, CREDENTIALS, TOKEN_JQ, TOKEN_SHELL_VARS } from '../core/spec/auth-scheme.js';

/**
 * Evidence as people read it, shared by the HTML and JUnit reports: a copy-pasteable curl command, a pretty body,
 * a plain-text rendering of an exchange. Everything here is already redacted (core/engine/run-check.ts redacts the
 * evidence a check keeps).
 */

/** Redaction markers (`[REDACTED:token]`, `[REDACTED:public-key]`, …) become these shell variables in curl lines. */
const SHELL_VARS: Record<string, string> = {
  ...TOKEN_SHELL_VARS,
  'issued-token': 'ISSUED_TOKEN',
  // A configured credential: the variable that configures it.
  'public-key': CREDENTIALS.app.secret.env,
  'secret-key': CREDENTIALS.app.key.env,
  'other-public-key': CREDENTIALS.other_app.secret.env,
  'other-secret-key': CREDENTIALS.other_app.key.env,
  'disabled-public-key': CREDENTIALS.disabled_app.secret.env,
  'disabled-secret-key': CREDENTIALS.disabled_app.key.env,
  'disabled-token': CREDENTIALS.disabled_app.token.env,
};

const MARKER = /\[REDACTED(?::([A-Za-z0-9_-]+))?\]/g;

/** The shell variable a redaction marker stands for; an unknown kind still maps to a predictable name. */
export function shellVarFor(kind: string | undefined): string {
  if (!kind) return 'CONFORMANCE_REDACTED';
  return SHELL_VARS[kind] ?? `CONFORMANCE_${kind.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

/** POSIX single quoting: nothing inside is special; a ' is closed, escaped and reopened. */
export function singleQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * One shell word for a redacted value: literal parts single-quoted, each secret as "$VAR" (double quotes so the
 * value is not split or globbed), glued together without spaces. `a[REDACTED:token]b` → `'a'"$OPEN_TOKEN"'b'`.
 * `json`: the value is JSON text whose secrets sit inside strings; each is escaped there as JSON escapes it.
 */
export function shellWord(value: string, json = false): string {
  let out = '';
  let last = 0;
  for (const m of value.matchAll(MARKER)) {
    if (m.index > last) out += singleQuote(value.slice(last, m.index));
    // The altered token (UNAUTH-* checks) is rebuilt from the real one: all but its last character, then '~'.
    if (m[1] === 'altered-token') out += `"\${${shellVarFor('token')}%?}~"`;
    // Inside a JSON string (a JSON body): the secret's " and \ escaped, as JSON.stringify wrote them for the run.
    else if (json) out += `"$(printf '%s' "$${shellVarFor(m[1])}" | sed 's/[\\\\"]/\\\\&/g')"`;
    else out += `"$${shellVarFor(m[1])}"`;
    last = m.index + m[0].length;
  }
  if (last < value.length) out += singleQuote(value.slice(last));
  return out || `''`;
}

/** The run's TLS settings, so a curl line reproduces with the same CA or `--insecure`. */
export interface CurlOptions {
  caFile?: string;
  insecure?: boolean;
}

/** TLS options of the run (report.config.tls), so the curl line trusts the same CA the run did. */
export function curlOptionsOf(report: Pick<Report, 'config'>): CurlOptions {
  const tls = (report.config?.tls ?? {}) as { ca_file?: unknown; insecure?: unknown };
  return {
    ...(typeof tls.ca_file === 'string' ? { caFile: tls.ca_file } : {}),
    ...(tls.insecure === true ? { insecure: true } : {}),
  };
}

/**
 * A curl command that sends the recorded request again. -g: no URL globbing ([ and { are literal);
 * --path-as-is: fuzzed paths (../, %2e) go out as recorded; -i: show the status line and headers; --compressed for
 * the Accept-Encoding the client sent. A request body goes as bodyArgs says, with -X naming the method, since curl
 * would POST it otherwise; its Content-Type is among the recorded headers.
 */
export function curlCommand(e: Exchange, opts: CurlOptions = {}): string {
  const parts = ['curl', '-sS', '-i', '-g', '--path-as-is'];
  const method = e.request.method.toUpperCase();
  const body = e.request.body;
  if (method === 'HEAD' && body === undefined) parts.push('-I');
  else if (method !== 'GET' || body !== undefined) parts.push('-X', shellWord(method));
  if (opts.insecure) parts.push('-k');
  else if (opts.caFile) parts.push('--cacert', singleQuote(opts.caFile));
  for (const [k, v] of Object.entries(e.request.headers)) {
    // --compressed asks for what curl decodes and decodes it: with the header alone, curl prints the coded bytes.
    if (k.toLowerCase() === 'accept-encoding') parts.push('--compressed');
    else parts.push('-H', shellWord(`${k}: ${v}`));
  }
  if (body !== undefined) parts.push(...bodyArgs(body, e.request.headers['content-type']), shellWord(e.request.url));
  else parts.push(...urlArgs(e.request.url));
  return parts.join(' ');
}

/** A name of a query pair or form field curl takes as it is (`name@file` would be a file; the name is not encoded). */
const PLAIN_NAME = /^[A-Za-z0-9._~-]+$/;
/** A value that is one redaction marker and nothing else. */
const WHOLE_MARKER = new RegExp(`^${MARKER.source}$`);
const ANY_MARKER = new RegExp(MARKER.source);

/**
 * A URL as curl arguments. A query with a secret as the whole value of a pair goes with -G, a pair at a time: that
 * pair as --data-urlencode (the variable encoded by curl, so a key with `+`, `&`, `%`, `#` or a space is sent as the
 * run encoded it; pasted raw into the URL, a base64 key's `+` reads as a space), every other pair as --data-raw,
 * byte for byte. Any other URL is one word.
 */
function urlArgs(url: string): string[] {
  const q = url.indexOf('?');
  if (q < 0 || url.includes('#', q)) return [shellWord(url)];
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => ({
      pair,
      name: pair.slice(0, Math.max(0, pair.indexOf('='))),
      value: pair.slice(pair.indexOf('=') + 1),
    }));
  const secretValue = (p: (typeof pairs)[number]): boolean => PLAIN_NAME.test(p.name) && WHOLE_MARKER.test(p.value);
  if (!pairs.some(secretValue) || pairs.some((p) => p.pair === '')) return [shellWord(url)];
  const args = ['-G'];
  for (const p of pairs) {
    if (secretValue(p)) args.push('--data-urlencode', shellWord(p.pair));
    else if (ANY_MARKER.test(p.pair)) return [shellWord(url)];
    else args.push('--data-raw', shellWord(p.pair));
  }
  return [...args, shellWord(url.slice(0, q))];
}

/**
 * A request body as curl arguments. A form body goes a pair at a time (--data-urlencode name=value, its value decoded
 * here and encoded again by curl), so a secret's variable is URL-encoded as the run encoded the secret: a key with
 * `+`, `&` or `%` is sent as it was. Any other body, or a form that is no plain list of pairs, goes as --data-raw (no
 * @file, no stripped newlines).
 */
function bodyArgs(body: string, contentType: string | undefined): string[] {
  if (body && /^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')) {
    const args: string[] = [];
    for (const pair of body.split('&')) {
      const at = pair.indexOf('=');
      let value: string;
      try {
        value = decodeURIComponent(pair.slice(at + 1).replace(/\+/g, ' '));
      } catch {
        return ['--data-raw', shellWord(body)];
      }
      // A name must be plain: curl reads `name@file` as a file, and takes the name as already encoded.
      if (at <= 0 || !PLAIN_NAME.test(pair.slice(0, at))) return ['--data-raw', shellWord(body)];
      args.push('--data-urlencode', shellWord(`${pair.slice(0, at)}=${value}`));
    }
    return args;
  }
  return ['--data-raw', shellWord(body, /^application\/json\b/i.test(contentType ?? ''))];
}

/** A token for $OPEN_TOKEN, fetched the way the suite does (§5.2): needs CONFORMANCE_SECRET and CONFORMANCE_KEY. */
/** The tokens a reproduction can fetch itself (§5.2), each from its application's key pair. */
const TOKEN_SOURCES = {
  token: { publicKey: 'public-key', secretKey: 'secret-key' },
  'other-token': { publicKey: 'other-public-key', secretKey: 'other-secret-key' },
} as const;

/** A token for $OPEN_TOKEN (or $OTHER_OPEN_TOKEN), fetched the way the suite does (§5.2) from the key pair's variables. */
export function tokenCommand(
  baseUrl: string,
  opts: CurlOptions = {},
  kind: keyof typeof TOKEN_SOURCES = 'token',
): string {
  const tls = opts.insecure ? ' -k' : opts.caFile ? ` --cacert ${singleQuote(opts.caFile)}` : '';
  const src = TOKEN_SOURCES[kind];
  return (
    `export ${shellVarFor(kind)}="$(curl -sS -g${tls} -H 'content-type: application/json; charset=utf-8' ` +
    `${urlArgs(`${baseUrl}${AUTH_PATH}?${authQueryText(`[REDACTED:${src.publicKey}]`, `[REDACTED:${src.secretKey}]`)}`).join(' ')} | jq -r ${TOKEN_JQ})"`
  );
}

/**
 * How to get every credential some curl lines use, in the order to run them: the key pairs' variables to export,
 * then the token commands. Only what the lines need: a report of app-only findings asks for no other_app key.
 */
export function credentialSteps(lines: string[], baseUrl: string, opts: CurlOptions = {}): string[] {
  const used = new Set(lines.flatMap((l) => [...l.matchAll(/\$\{?([A-Z_]+)/g)].map((m) => m[1]!)));
  const steps: string[] = [];
  const vars = (kinds: string[]): string[] => kinds.map(shellVarFor);
  if (used.has(TOKEN_SHELL_VARS.token))
    steps.push(
      `# ${vars(['public-key', 'secret-key'])
        .map((v) => `$${v}`)
        .join(' and ')}: the application's key pair (app)`,
      tokenCommand(baseUrl, opts, 'token'),
    );
  if (used.has(TOKEN_SHELL_VARS['other-token']))
    steps.push(
      `# ${vars(['other-public-key', 'other-secret-key'])
        .map((v) => `$${v}`)
        .join(' and ')}: the key pair of the second merchant's application (other_app)`,
      tokenCommand(baseUrl, opts, 'other-token'),
    );
  const disabled = CREDENTIALS.disabled_app.token;
  if (used.has(disabled.env))
    steps.push(
      `# $${disabled.env}: the token issued to the disabled application before it was disabled (${disabled.key})`,
    );
  if (used.has('ISSUED_TOKEN'))
    steps.push(
      '# $ISSUED_TOKEN: a token the server issued to a key pair that is neither app nor other_app (shown redacted in the evidence)',
    );
  return steps;
}

/**
 * A body excerpt pretty-printed when it is complete JSON, else as it came. Pretty-printing only adds and moves
 * whitespace between tokens: every string, number and literal is shown as its bytes came (`38.0` stays `38.0`,
 * `"\u00e9"` stays escaped), so the evidence is what the wire said.
 */
export function prettyBody(excerpt: string, truncated: boolean): { text: string; json: boolean } {
  if (!truncated) {
    const t = excerpt.trim();
    if (t.startsWith('{') || t.startsWith('[')) {
      try {
        parseJsonExact(t);
        return { text: reindentJson(t), json: true };
      } catch {
        /* not JSON: shown raw */
      }
    }
  }
  return { text: excerpt, json: false };
}

/** Valid JSON text laid out two spaces an indent, its tokens copied as they are. */
function reindentJson(text: string, indent = '  '): string {
  let out = '';
  let depth = 0;
  const newline = (): string => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      // A string token, escapes and all, as it came.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      let j = i + 1;
      while (j < text.length && ' \t\n\r'.includes(text[j]!)) j++;
      if (text[j] === close) {
        out += ch + close;
        i = j;
      } else {
        depth++;
        out += ch + newline();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else if (!' \t\n\r'.includes(ch)) out += ch;
  }
  return out;
}

/** A byte count as the reports write it: "1 byte", "1,234 bytes". */
export const bytes = (n: number): string => `${grouped(n)} byte${n === 1 ? '' : 's'}`;

/** "123 bytes" or "1,234,567 bytes (first 4,096 characters shown)". */
export function sizeNote(r: NonNullable<Exchange['response']>): string {
  return r.truncated
    ? `${bytes(r.body_bytes)} (first ${grouped(r.body_excerpt.length)} characters shown)`
    : bytes(r.body_bytes);
}

/** How every report labels an exchange of a failed check by what it shows. */
export const SHOWS_LABEL: Record<Shows, string> = {
  finding: 'shows the finding',
  correct: 'a correct answer',
};

/**
 * The evidence of a check with what each exchange shows: the marks of its record, or for a failed record without
 * any (a report written before they existed) those its message implies. Order: the exchanges that show the finding
 * first, then the correct answers beside them, then the rest as they came.
 */
export function markedEvidence(c: {
  evidence: Evidence[];
  message: string;
  status: string;
  base_url?: string;
}): Evidence[] {
  let marked = c.evidence;
  if (c.status === 'failed' && !marked.some((e) => e.shows)) {
    let base = '';
    try {
      base = new URL(c.base_url ?? '').pathname.replace(/\/+$/, '');
    } catch {
      /* relative to nothing */
    }
    const shows = inferredShows(marked, c.message, base);
    marked = marked.map((e, i) => (shows[i] ? { ...e, shows: shows[i] } : e));
  }
  return byShows(marked);
}

/** The exchanges that show the finding first, then the correct answers judged beside them, then the rest as they came. */
const byShows = (evidence: Evidence[]): Evidence[] => [
  ...evidence.filter((e) => e.shows === 'finding'),
  ...evidence.filter((e) => e.shows === 'correct'),
  ...evidence.filter((e) => e.shows !== 'finding' && e.shows !== 'correct'),
];

/** Plain-text evidence of one exchange (JUnit, terminals): what it shows, request, response or error, the curl line. */
export function exchangeText(e: Evidence, opts: CurlOptions = {}): string {
  const out = [...(e.shows ? [`[${SHOWS_LABEL[e.shows]}]`] : []), `> ${e.request.method} ${e.request.url}`];
  for (const [k, v] of Object.entries(e.request.headers)) out.push(`> ${k}: ${v}`);
  if (e.request.body !== undefined) out.push('>', ...e.request.body.split('\n').map((l) => `> ${l}`));
  if (e.response) {
    out.push(`< HTTP ${e.response.status} (${e.duration_ms} ms, body ${sizeNote(e.response)})`);
    for (const [k, v] of Object.entries(e.response.headers)) out.push(`< ${k}: ${v}`);
    const body = prettyBody(e.response.body_excerpt, e.response.truncated).text;
    if (body) out.push('', body);
  } else {
    out.push(`! no response: ${e.error ?? 'unknown error'} (${e.duration_ms} ms)`);
  }
  out.push('', `reproduce: ${curlCommand(e, opts)}`);
  return out.join('\n');
}

/** One line for an exchange judged beside a finding (--verbose): what it shows, the request and the answer's status. */
export function exchangeLine(e: Evidence): string {
  const answer = e.response
    ? `HTTP ${e.response.status} (${e.duration_ms} ms, body ${sizeNote(e.response)})`
    : `no response: ${e.error ?? 'unknown error'} (${e.duration_ms} ms)`;
  return `${e.shows ? `[${SHOWS_LABEL[e.shows]}] ` : ''}${e.request.method} ${e.request.url} → ${answer}`;
}

/**
 * Which exchanges of a check a report shows: all up to `max`, else the first few and the last ones; those that show
 * the finding first (markedEvidence's order), so a cut leaves them out last.
 */
export function shownExchanges(evidence: Evidence[], max = 30): { shown: Evidence[]; omitted: number; at: number } {
  const ordered = byShows(evidence);
  if (ordered.length <= max) return { shown: ordered, omitted: 0, at: ordered.length };
  const head = Math.max(Math.floor(max / 3), evidence.length - ordered.filter((e) => e.shows !== 'finding').length);
  const first = Math.min(head, max);
  const tail = max - first;
  return {
    shown: [...ordered.slice(0, first), ...(tail ? ordered.slice(-tail) : [])],
    omitted: ordered.length - max,
    at: first,
  };
}
