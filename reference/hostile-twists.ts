import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import { randomBytes } from 'node:crypto';
import type { ApiReply, ApiRequest, Variant, World } from './server.js';
import { isSuccess, pathIs, withData } from './kit.js';
import { rawPathIs } from './hostile.js';

/**
 * Servers that are conforming but for one twist aimed at the tool itself: its CI log, its terminal, its memory, its
 * redaction and its reader's shell (issue 12). test/hostile-twists.test.ts runs the real CLI against each with
 * GITHUB_ACTIONS=true and a job summary, and judges every byte it writes. Twists 3, 9 and 10 (long tokens and
 * messages, a short token, deep nesting) are legal: the suite must still find the server conformant.
 */

const JSON_TYPE = 'application/json; charset=utf-8';

/** 1. GitHub and GitLab workflow-command syntax, where messages quote the server: an envelope status, a Location. */
export const CI_FORGERIES = [
  '##[set-output name=verdict;]conformant',
  '##[error title=forged]forged annotation',
  '##[stop-commands]swallowed',
  '::error title=forged::forged',
  'section_start:1700000000:forged\r\u001b[0Kforged section',
];

/** Sends CI_FORGERIES in server text and in a redirect's Location: none may reach the log as a command. */
export const ciCommands: Variant = {
  name: 'ci-commands',
  description:
    'GET /merchant answers an envelope whose status and msg are CI workflow commands; GET /seats/:id redirects to a Location full of them',
  handle(req, next) {
    if (pathIs(req, '/merchant') && req.app)
      return { http: 200, body: { status: CI_FORGERIES.join(' '), code: 500, msg: CI_FORGERIES.join('\n') } };
    if (pathIs(req, '/seats/:id') && req.app)
      return {
        http: 302,
        body: {},
        headers: { location: `https://elsewhere.invalid/${CI_FORGERIES.slice(0, 4).join('/')}` },
      };
    return next();
  },
};

/** 7. Terminal control: ESC sequences, 8-bit CSI, NUL, bidi overrides and zero-width characters in quoted values. */
export const CONTROL_PAYLOAD =
  'ctl \u001b]0;pwned\u0007 \u001b[2J \u009b31m \u0000 \u202Eevil\u202C \u2066iso\u2069 zero\u200Bwidth\uFEFF end';

/** Terminal control sequences, bidi overrides and zero-width characters in server text: all printed visibly. */
export const controlChars: Variant = {
  name: 'control-chars',
  description:
    'GET /dishes/:id answers an envelope whose status carries terminal control sequences, bidi overrides and zero-width characters',
  handle(req, next) {
    if (pathIs(req, '/dishes/:id') && req.app)
      return { http: 200, body: { status: CONTROL_PAYLOAD, code: 500, msg: CONTROL_PAYLOAD } };
    return next();
  },
};

/** 2. Bodies that make schema validation collect millions of problems: two million {} (6 MB) and 30 MB of them. */
export const EMPTY_RECORDS = 2_000_000;
/** The size of the second body of empty records, for the tests that bound the memory it takes. */
export const HUGE_LIST_BYTES = 30 * 1024 * 1024;
let emptyBody: string | undefined;
let hugeBody: string | undefined;

/** Millions of empty records: problem lists must stay bounded (the first records, then a count). */
export const emptyRecords: Variant = {
  name: 'empty-records',
  description: `GET /dishes answers ${EMPTY_RECORDS.toLocaleString('en-US')} empty records (6 MB); GET /orders answers 30 MB of them`,
  handle(req, next) {
    if (!req.app) return next();
    if (pathIs(req, '/dishes'))
      return {
        http: 200,
        body: undefined,
        raw: (emptyBody ??= `{"status":"SUCCESS","code":200,"data":[${'{},'.repeat(EMPTY_RECORDS - 1)}{}]}`),
      };
    if (pathIs(req, '/orders'))
      return {
        http: 200,
        body: undefined,
        raw: (hugeBody ??= `{"status":"SUCCESS","code":200,"data":[${'{},'.repeat(HUGE_LIST_BYTES / 3)}{}]}`),
      };
    return next();
  },
};

/** Replaces the token /auth issued by another one for the same application. */
function reissue(reply: ApiReply, world: World, make: (app: { secret: string }) => string): ApiReply {
  if (!isSuccess(reply)) return reply;
  return withData(reply, (d: Record<string, unknown>) => {
    const app = world.tokens.get(d.app_token as string)!;
    const token = make(app);
    world.tokens.set(token, app);
    d.app_token = token;
  });
}

/** 3. Legal but long: 8,000-character tokens, and error messages of 6,000 "…". */
export const longTokens: Variant = {
  name: 'long-tokens',
  description: 'GET /auth issues 8,000-character tokens; every error msg starts with 6,000 "…"',
  render: {
    error: (code, msg) => ({ http: code, body: { status: 'ERROR', code, msg: `${'…'.repeat(6000)} ${msg}` } }),
  },
  handle(req, next, world) {
    const r = next();
    return pathIs(req, '/auth')
      ? reissue(r, world, () => `tok_${randomBytes(6000).toString('base64url').slice(0, 7996)}`)
      : r;
  },
};

/** Every character as a JSON \uXXXX escape, hex case alternating, and / as \/ (PHP's json_encode). */
export function escapeEveryChar(s: string): string {
  return [...s]
    .map((c, i) =>
      c === '/'
        ? '\\/'
        : [...c]
            .map((ch) => {
              let u = '';
              for (let k = 0; k < ch.length; k++) u += `\\u${ch.charCodeAt(k).toString(16).padStart(4, '0')}`;
              return i % 2 ? u.toUpperCase().replace(/\\U/g, '\\u') : u;
            })
            .join(''),
    )
    .join('');
}
/** Every character of a secret as an HTML character reference, decimal and hex in turn: redaction decodes them. */
export const htmlEntities = (s: string): string =>
  [...s]
    .map((c, i) => (i % 3 === 0 ? `&#${c.codePointAt(0)};` : i % 3 === 1 ? `&#x${c.codePointAt(0)!.toString(16)};` : c))
    .join('');
/** A secret URL-encoded with lower-case hex, a spelling redaction must recognise. */
export const percentLower = (s: string): string =>
  encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/**
 * 4. Secrets in escaped forms: /auth answers with app_token, app_secret and app_key written with \u escapes and \/
 * (and the other application's /auth answer does not parse: trailing bytes after the JSON); every error msg quotes
 * the token sent as HTML character references and lower-case percent-encoding.
 */
let lotusAuths = 0;
/** Secrets in every legal escaping an honest server may use, and a live token in an answer that does not parse. */
export const escapedSecrets: Variant = {
  name: 'escaped-secrets',
  description:
    "/auth escapes its secrets with \\u and \\/, the second application's /auth answers after the first do not parse, error msgs quote the token as HTML entities and lower-case percent-encoding",
  handle(req, next) {
    const r = next();
    if (pathIs(req, '/auth') && isSuccess(r)) {
      const d = (r.body as { data: Record<string, string> }).data;
      let text = JSON.stringify(r.body);
      for (const k of ['app_token', 'app_secret', 'app_key'])
        text = text.replace(`"${k}":${JSON.stringify(d[k])}`, `"${k}":"${escapeEveryChar(d[k]!)}"`);
      // The second application's answers after the first (the preflight's) carry bytes after the JSON (a proxy's
      // trailer): they do not parse, yet the token in them is live.
      return {
        ...r,
        raw: d.app_name === 'Lotus Reports' && lotusAuths++ > 0 ? `${text}\n<!-- served by cache -->` : text,
      };
    }
    if (isSuccess(r)) return r;
    const token = tokenOfRequest(req.headers) ?? '';
    const body = r.body as Record<string, unknown>;
    return {
      ...r,
      body: { ...body, msg: `${String(body.msg)} (token ${htmlEntities(token)} / ${percentLower(token)})` },
    };
  },
};

/** 5. A 429 storm: every request answered 429 with Retry-After: 60 (after the first `spared` /auth requests). */
export function rateStorm(spared = 0): Variant {
  let authSeen = 0;
  return {
    name: 'rate-storm',
    description: `every request${spared ? ` but the first ${spared} to /auth` : ''} answered 429 Too Many Requests with Retry-After: 60`,
    raw(req, res) {
      if (rawPathIs(req, '/auth') && authSeen++ < spared) return false;
      const body = JSON.stringify({ status: 'ERROR', code: 429, msg: 'Too Many Requests' });
      res.writeHead(429, { 'content-type': JSON_TYPE, 'retry-after': '60', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    },
  };
}

/** 6. Unbounded server strings: a 5 MB dish id, 1 MB key names, a 12 KB header value (undici refuses headers past 16 KB). */
export const HUGE_ID_CHARS = 5 * 1024 * 1024;
/** Strings with no bound of their own: every place that shows one must cut it and say how much more there was. */
export const hugeStrings: Variant = {
  name: 'huge-strings',
  description:
    'GET /dishes lists a dish with a 5 MB string id and a dish with five 1 MB key names; every answer has a 12 KB header',
  handle(req, next) {
    const r = next();
    const withHeader = { ...r, headers: { ...r.headers, 'x-huge': 'h'.repeat(12 * 1024) } };
    if (!pathIs(req, '/dishes') || !isSuccess(r)) return withHeader;
    return withData(withHeader, (d: Array<Record<string, unknown>>) => {
      d[0]!.id = 'i'.repeat(HUGE_ID_CHARS);
      for (let k = 0; k < 5; k++) d[1]![`${k}${'k'.repeat(1024 * 1024)}`] = k;
    });
  },
};

/** 8. Literal redaction markers in server data: a dish id, a header, an error msg. */
export const forgedMarkers: Variant = {
  name: 'forged-markers',
  description: 'a dish id, a response header and every error msg hold the literal text [REDACTED:secret-key]',
  render: {
    error: (code, msg) => ({ http: code, body: { status: 'ERROR', code, msg: `${msg} [REDACTED:secret-key]` } }),
  },
  handle(req, next) {
    const r = next();
    const out = { ...r, headers: { ...r.headers, 'x-forged': '[REDACTED:secret-key]' } };
    return pathIs(req, '/dishes')
      ? withData(out, (d: Array<Record<string, unknown>>) => {
          d[0]!.id = '[REDACTED:secret-key]';
        })
      : out;
  },
};

/** 9. Short tokens that are words: "NOT" for the application, "AND" for the other one; and one broken seat list. */
export const shortToken: Variant = {
  name: 'short-token',
  description: 'GET /auth issues the tokens "NOT" and "AND"; the first seat of /seats has a numeric remark',
  handle(req, next, world) {
    const r = next();
    if (pathIs(req, '/auth'))
      return reissue(r, world, (app) => (world.fixtures.apps.indexOf(app as never) === 0 ? 'NOT' : 'AND'));
    if (pathIs(req, '/seats'))
      return withData(r, (d: Array<Record<string, unknown>>) => {
        d[0]!.remark = 7;
      });
    return r;
  },
};

/** 10. An extra field nested 100,000 deep on the first dish, in its list and in its detail alike (conforming). */
export const DEEP_LEVELS = 100_000;
const DEEP = `${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}`;
/** Data nested far deeper than the stack allows recursion: comparing and walking it must not overflow. */
export const deepNesting: Variant = {
  name: 'deep-nesting',
  description: `the first dish carries an extra field nested ${DEEP_LEVELS.toLocaleString('en-US')} deep, in /dishes and /dishes/:id`,
  handle(req: ApiRequest, next) {
    const r = next();
    if (!isSuccess(r) || !(pathIs(req, '/dishes') || pathIs(req, '/dishes/:id'))) return r;
    const placed = withData(r, (d: Record<string, unknown> | Array<Record<string, unknown>>) => {
      (Array.isArray(d) ? d[0]! : d).nested = '@DEEP@';
    });
    return { ...placed, raw: JSON.stringify(placed.body).replace('"@DEEP@"', DEEP) };
  },
};

/** 11. Tokens no header can carry: ESC, BEL and U+202E in each (issue 37). The suite must not wait on a request it cannot send. */
export const ILLEGAL_TOKEN = (n: number): string => `tok${n}\u001b[2J\u0007\u202Eevil${'x'.repeat(24)}`;
/** GET /auth issues tokens holding ESC, BEL and U+202E: no legal header value (RFC 9110 §5.5). */
export const illegalToken: Variant = {
  name: 'illegal-token',
  description: 'GET /auth issues tokens holding ESC, BEL and U+202E, which no header value may carry',
  handle(req, next, world) {
    const r = next();
    let n = 0;
    return pathIs(req, '/auth') ? reissue(r, world, () => ILLEGAL_TOKEN(n++ + Math.floor(Math.random() * 1e6))) : r;
  },
};

/** 12. How many extra headers of 256 bytes the many-headers twist adds: about 70 KB, past Node's 16 KiB default. */
export const MANY_HEADERS = 260;
/**
 * A conforming server with 70 KB of headers on its /auth and /merchant answers (as a site with many cookies sends):
 * legal, and read whole. Only there: every answer's headers are evidence, and the reports would grow past bounds.
 */
export const manyHeaders: Variant = {
  name: 'many-headers',
  description: `/auth and /merchant answer with ${MANY_HEADERS} extra headers of 256 bytes each (about 70 KB of headers)`,
  handle(req, next) {
    const r = next();
    if (!pathIs(req, '/auth') && !pathIs(req, '/merchant')) return r;
    const extra: Record<string, string> = {};
    for (let i = 0; i < MANY_HEADERS; i++) extra[`x-pref-${i}`] = `v${i}-${'p'.repeat(250)}`;
    return { ...r, headers: { ...r.headers, ...extra } };
  },
};

/** Bytes of each long answer of bigBodies. */
export const BIG_BODY_BYTES = 80 * 1000 * 1000;
/**
 * Every list (/dishes, /seats, /orders, whatever its query) answers about `bytes` of JSON, and so does the detail of
 * the first record each list showed: each record carries an extra field (`notes`, a latitude) long enough, text
 * with quoted words (each quote escaped in the JSON). For
 * `--record-har`'s memory bound: several long answers in flight and recorded at once.
 */
export function bigBodies(
  bytes = BIG_BODY_BYTES,
  resources: ReadonlyArray<'dishes' | 'seats' | 'orders'> = ['dishes', 'seats', 'orders'],
  /** Only this merchant's answers are long (every merchant's when undefined). */
  merchant?: number,
): Variant {
  const pads = new Map<number, string>();
  const pad = (n: number): string => {
    let s = pads.get(n);
    // Quoted words every 100 characters, escaped in the JSON (\").
    if (s === undefined) pads.set(n, (s = `${'n'.repeat(96)} "n"`.repeat(Math.max(0, Math.floor(n / 102)))));
    return s;
  };
  /** The first record each list showed, by resource: its detail is long too. */
  const firsts = new Set<string>();
  const rendered = new Map<string, ApiReply>();
  return {
    name: 'big-bodies',
    description: `every list of ${resources.join(', ')}${merchant === undefined ? '' : ` of merchant ${merchant}`} and the detail of each list's first record answer about ${bytes / 1e6} MB (an extra "notes" field)`,
    handle(req, next) {
      const r = next();
      if (!req.app || !isSuccess(r) || (merchant !== undefined && req.app.merchant !== merchant)) return r;
      const resource = /^\/(dishes|seats|orders)(?:\/(\d+))?$/.exec(req.path);
      if (!resource || !resources.includes(resource[1] as 'dishes')) return r;
      const key = JSON.stringify(r.body);
      const known = rendered.get(key);
      if (known) return known;
      const long = withData(r, (d: unknown) => {
        if (Array.isArray(d)) {
          const each = pad(Math.floor(bytes / Math.max(1, d.length)));
          for (const x of d as Array<Record<string, unknown>>) x.notes = each;
          if (d.length) firsts.add(`${resource[1]}/${(d[0] as { id: unknown }).id}`);
        } else if (resource[2] !== undefined && firsts.has(`${resource[1]}/${resource[2]}`))
          (d as Record<string, unknown>).notes = pad(bytes);
      });
      // Rendered once per distinct answer (the same list is asked for many times); the last few are kept.
      const reply = { ...long, body: undefined, raw: Buffer.from(JSON.stringify(long.body)) };
      rendered.set(key, reply);
      if (rendered.size > 6) rendered.delete(rendered.keys().next().value!);
      return reply;
    },
  };
}
