import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Variant } from './server.js';
import { isSuccess } from './kit.js';

/**
 * Hostile variants of the reference server: servers that hang, dribble, flood, lie about lengths, reset
 * connections, redirect elsewhere, echo secrets or push back. They are not mutants (no check is "meant" to catch
 * them): test/hostile.test.ts, test/secrets.test.ts and test/load.test.ts assert that the suite survives them.
 * Each works at the socket level through the `raw` hook (or wraps the answer through `handle`).
 */

/** The API path of a raw request: the URL path after the base path, e.g. /dishes/101 (base paths vary). */
function apiPath(req: IncomingMessage): string {
  const path = (req.url ?? '/').split('?')[0]!;
  const m = /\/(auth|merchant|dishes|seats|orders)(\/[^/]*)?$/.exec(path);
  return m ? m[0] : path;
}

/** Matches an API path against a pattern like /dishes/:id (any one segment). */
export function rawPathIs(req: IncomingMessage, pattern: string): boolean {
  const path = apiPath(req);
  if (!pattern.endsWith('/:id')) return path === pattern;
  const prefix = pattern.slice(0, -3);
  return path.startsWith(prefix) && path.length > prefix.length && !path.slice(prefix.length).includes('/');
}

/** A variant that takes over the raw exchange of requests to the given API paths. */
function rawOn(
  name: string,
  description: string,
  patterns: string[],
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Variant {
  return {
    name,
    description,
    raw(req, res) {
      if (!patterns.some((p) => rawPathIs(req, p))) return false;
      answer(req, res);
      return true;
    },
  };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A detail endpoint that accepts the request and never answers (the socket stays open until the client gives up). */
export const hangDetail = rawOn('hang-detail', 'GET /dishes/:id never answers', ['/dishes/:id'], () => undefined);

/**
 * GET /seats sends a small, valid body one byte per second: every byte arrives well within any idle timeout,
 * so only a total per-request deadline ends it.
 */
export const slowBody = rawOn('slow-body', 'GET /seats sends its body one byte per second', ['/seats'], (_req, res) => {
  const body = Buffer.from(JSON.stringify({ status: 'SUCCESS', code: 200, data: [] }));
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': body.length });
  let i = 0;
  const tick = setInterval(() => {
    if (i >= body.length) {
      clearInterval(tick);
      res.end();
      return;
    }
    res.write(body.subarray(i, ++i));
  }, 1000);
  res.on('close', () => clearInterval(tick));
});

/** The body the flooding variants announce or send: past max_body_bytes, so the client must cut it. */
export const HUGE_BODY_BYTES = 600 * 1024 * 1024;

/**
 * GET /orders streams a 600 MB JSON array, chunked (no Content-Length, so only counting bytes can stop it).
 * One 64 KiB chunk is reused and backpressure is honoured, so the server itself never holds the body.
 */
export const hugeBody = rawOn('huge-body', 'GET /orders streams a 600 MB body (chunked)', ['/orders'], (_req, res) => {
  const record = '{"id":1,"order_number":"X","remark":null,"amount":1,"status":1,"dishes":[]},';
  const chunk = Buffer.from(record.repeat(Math.ceil(65536 / record.length)));
  res.writeHead(200, { 'content-type': JSON_TYPE });
  res.write('{"status":"SUCCESS","code":200,"data":[');
  let sent = 0;
  const pump = (): void => {
    while (sent < HUGE_BODY_BYTES && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end('{}]}');
  };
  res.on('close', () => {
    sent = HUGE_BODY_BYTES;
  });
  pump();
});

/** GET /orders declares a 600 MB Content-Length: a client can refuse it before reading a byte. */
export const hugeDeclared = rawOn(
  'huge-declared',
  'GET /orders declares a 600 MB Content-Length',
  ['/orders'],
  (_req, res) => {
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': HUGE_BODY_BYTES });
    res.write('{"status":"SUCCESS","code":200,"data":[');
    // Sends nothing more: a client that waits for the rest would hang until its timeout.
  },
);

/** GET /merchant answers HTTP 200 with JSON cut off mid-record (Content-Length matches what is sent). */
export const truncatedJson = rawOn(
  'truncated-json',
  'GET /merchant answers JSON cut off mid-record',
  ['/merchant'],
  (_req, res) => {
    const body = '{"status":"SUCCESS","code":200,"data":{"id":1,"name":"Golden Dra';
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  },
);

/** GET /seats answers HTTP 200 with a body that is not JSON at all (a proxy's HTML error page). */
export const invalidJson = rawOn(
  'invalid-json',
  'GET /seats answers an HTML page with HTTP 200',
  ['/seats'],
  (_req, res) => {
    const body = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  },
);

/** GET /dishes promises 5000 bytes, sends 40 and closes the connection. */
export const cutBody = rawOn(
  'cut-body',
  'GET /dishes closes the connection before the promised Content-Length',
  ['/dishes'],
  (_req, res) => {
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': 5000 });
    res.write('{"status":"SUCCESS","code":200,"data":[{"');
    setTimeout(() => res.destroy(), 20);
  },
);

/** GET /seats/:id resets the TCP connection (RST) instead of answering. */
export const resetDetail = rawOn('reset-detail', 'GET /seats/:id resets the connection', ['/seats/:id'], (req) => {
  // Under TLS the request's socket wraps the TCP socket; only the TCP one can send an RST.
  const socket = req.socket as Socket & { _parent?: Socket };
  (socket._parent ?? socket).resetAndDestroy();
});

/**
 * Every data endpoint answers 302 to the same path on another origin (another loopback address in the tests).
 * A client that followed it would hand the open-token to a host nobody configured.
 */
export function redirectAway(origin: string): Variant {
  return rawOn(
    'redirect-away',
    `every data endpoint redirects to ${origin}`,
    ['/merchant', '/dishes', '/dishes/:id', '/seats', '/seats/:id', '/orders'],
    (req, res) => {
      res.writeHead(302, { location: `${origin}${req.url ?? '/'}`, 'content-type': JSON_TYPE, 'content-length': 2 });
      res.end('{}');
    },
  );
}

/**
 * Echoes what the client sent back at it: the open-token and the raw query string (the key pair of /auth) in a
 * response header, in msg of every envelope, and as a plain-text page on GET /orders. A suite that quotes
 * server messages or headers must still never print them.
 */
/**
 * Hands out fresh tokens beside every authenticated answer: a refreshed token in a header and a session cookie (#28:
 * a token the server gives out anywhere is a secret, not only /auth's app_token). Both are real tokens it accepts.
 */
export const refreshedTokens: Variant = {
  name: 'refreshed-tokens',
  description:
    'every authenticated answer carries x-refreshed-token: <a new token> and set-cookie: session_token=<another>',
  handle(req, next, world) {
    const reply = next();
    if (!req.app) return reply;
    return {
      ...reply,
      headers: {
        ...reply.headers,
        'x-refreshed-token': world.issueToken(req.app),
        'set-cookie': `session_token=${encodeURIComponent(world.issueToken(req.app))}; Path=/; HttpOnly`,
      },
    };
  },
};

/** Echoes the credentials it was sent back in messages, headers and a body: each must be redacted everywhere. */
export const echoSecrets: Variant = {
  name: 'echo-secrets',
  description: 'echoes the open-token and the query string in msg, in headers and in a text body',
  raw(req, res) {
    if (!rawPathIs(req, '/orders')) return false;
    const token = tokenOfRequest(req.headers) ?? '';
    // Worded so a message quoting the first 60 characters of the body cuts the token in the middle.
    const body = `Unexpected upstream failure while handling token ${token} with query ${(req.url ?? '').split('?')[1] ?? ''}; please retry later`;
    res.writeHead(500, {
      'content-type': 'text/plain; charset=utf-8',
      'x-echo-token': token,
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
    return true;
  },
  handle(req, next) {
    const reply = next();
    const token = tokenOfRequest(req.headers) ?? '';
    const query = req.query.toString();
    const msg = `request with token "${token}" and query "${query}"`;
    const body = structuredClone(reply.body) as Record<string, unknown>;
    // Errors quote it in msg; successes get it in a msg the spec says is absent on success.
    body.msg = isSuccess(reply) ? `ok ${msg}` : `${String(body.msg ?? 'error')}: ${msg}`;
    return {
      ...reply,
      body,
      headers: {
        ...reply.headers,
        'x-echo-token': token,
        'x-echo-query': query,
        [`x-echo-${token.replace(/[^A-Za-z0-9_-]/g, '') || 'none'}`]: '1',
      },
    };
  },
};

/** GET /seats answers 429 with Retry-After to its first `times` requests, then normally. */
export function rateLimited(times = 1, retryAfter = '1'): Variant & { hits: () => number } {
  let hits = 0;
  return {
    name: 'rate-limited',
    description: `GET /seats answers 429 Retry-After: ${retryAfter} to its first ${times} request(s)`,
    hits: () => hits,
    raw(req, res) {
      if (!rawPathIs(req, '/seats')) return false;
      if (hits++ >= times) return false;
      const body = JSON.stringify({ status: 'ERROR', code: 429, msg: 'Too Many Requests' });
      res.writeHead(429, {
        'content-type': JSON_TYPE,
        'retry-after': retryAfter,
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return true;
    },
  };
}

/** GET /seats is unavailable: 503 every time (with Retry-After, which invites no blind retry). */
export function unavailable(): Variant & { hits: () => number } {
  let hits = 0;
  return {
    name: 'unavailable',
    description: 'GET /seats answers 503 Service Unavailable',
    hits: () => hits,
    raw(req, res) {
      if (!rawPathIs(req, '/seats')) return false;
      hits++;
      const body = JSON.stringify({ status: 'ERROR', code: 500, msg: 'Service Unavailable' });
      res.writeHead(503, { 'content-type': JSON_TYPE, 'retry-after': '1', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return true;
    },
  };
}

/** What the load meter saw: most requests in flight at once, and every arrival time (ms, monotonic). */
export interface LoadStats {
  maxInFlight: number;
  arrivals: number[];
}

/**
 * Counts requests in flight (from arrival until the answer is handed to the socket) and records arrival times.
 * That interval lies inside the client's own (it sent before arrival, and has the answer only after the hand-over),
 * so the count never exceeds what the client had in flight.
 * Each answer is held back by `delayMs` so concurrent requests overlap at the server and a concurrency limit is
 * actually exercised. It answers normally otherwise (raw returns false after wrapping res.end).
 */
export function loadMeter(delayMs = 15): Variant & { stats: LoadStats } {
  const stats: LoadStats = { maxInFlight: 0, arrivals: [] };
  let inFlight = 0;
  return {
    name: 'load-meter',
    description: `counts requests in flight and their rate; answers ${delayMs} ms late`,
    stats,
    raw(_req, res) {
      stats.arrivals.push(performance.now());
      stats.maxInFlight = Math.max(stats.maxInFlight, ++inFlight);
      let done = false;
      const finish = (): void => {
        if (!done) {
          done = true;
          inFlight--;
        }
      };
      // Done the moment the answer is handed over (not at 'finish', which can come after the client already has the
      // whole answer and has sent its next request on the same connection); 'close' covers abandoned requests.
      res.on('close', finish);
      const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      res.end = ((...args: unknown[]) => {
        setTimeout(() => {
          finish();
          end(...args);
        }, delayMs);
        return res;
      }) as ServerResponse['end'];
      return false;
    },
  };
}

/** The most arrivals in any window of `windowMs` (a sliding window over sorted arrival times). */
export function peakRate(arrivals: number[], windowMs = 1000): number {
  const t = [...arrivals].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j]! - t[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}
