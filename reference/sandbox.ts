import { tokenOfRequest } from '../core/spec/auth-scheme.js';
import type { ApiReply, ApiRequest, Variant, World } from './server.js';

/**
 * Faults of the sandbox (`conformance serve`): what a client of the API should survive, injected into the reference
 * server's conforming answers. Chosen for the whole run (each with a rate) or per request by the x-sandbox-fault
 * header, and seeded: the n-th request to a given method and path gets the same faults in every run with the same
 * seed, whatever other requests run beside it, so an application's test that met a fault meets it again.
 */

/** The request header that picks the faults of one request (it replaces the run's faults for that request). */
export const FAULT_HEADER = 'x-sandbox-fault';

/** A fault the sandbox can give a client (`--fault`, `x-sandbox-fault`), as the README's table lists them. */
export type Fault =
  | { kind: 'latency'; min: number; max: number }
  | { kind: '500' }
  | { kind: '429'; retryAfter: number }
  | { kind: 'truncate' }
  | { kind: 'expired-token' }
  | { kind: 'disabled' };

/** A fault of the run, applied to a share of the requests. */
export interface RunFault {
  fault: Fault;
  rate: number;
}

/** The sandbox's behaviour: its faults, the seed that draws them, and token lifetimes. */
export interface SandboxOptions {
  faults: RunFault[];
  seed: number;
  /** Tokens issued by /auth stop working this many seconds after issue (§5.6 leaves the validity period open). */
  tokenTtlSeconds?: number;
  /** Told of every answer the sandbox changed, with what it did (e.g. "500, latency 120 ms"), for the server's log. */
  onFault?(req: ApiRequest, what: string): void;
  now?(): number;
}

/** A `--fault` or `x-sandbox-fault` value that names no fault: a usage error, or HTTP 400 for a header. */
export class FaultSyntaxError extends Error {}

const FAULT_HELP = 'latency=MS, latency=MIN-MAX, 500, 429, 429=SECONDS, truncate, expired-token, disabled (or none)';

/** One fault as written in a flag or the header: latency=200, latency=50-300, 500, 429=2, truncate, expired-token, disabled. */
export function parseFault(text: string): Fault {
  const t = text.trim().toLowerCase();
  let m: RegExpExecArray | null;
  if ((m = /^latency=(\d{1,6})(?:-(\d{1,6}))?$/.exec(t))) {
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : Number(m[2]);
    if (max < min) throw new FaultSyntaxError(`latency range ${text} runs backwards`);
    return { kind: 'latency', min, max };
  }
  if (t === '500') return { kind: '500' };
  if ((m = /^429(?:=(\d{1,4}))?$/.exec(t))) return { kind: '429', retryAfter: m[1] === undefined ? 1 : Number(m[1]) };
  if (t === 'truncate' || t === 'expired-token' || t === 'disabled') return { kind: t };
  throw new FaultSyntaxError(`unknown fault ${JSON.stringify(text)} (one of: ${FAULT_HELP})`);
}

/** A run fault as given to --fault: FAULT or FAULT@RATE (a share of requests between 0 and 1, default 1). */
export function parseRunFault(text: string): RunFault {
  const at = text.lastIndexOf('@');
  const rate = at < 0 ? 1 : Number(text.slice(at + 1));
  if (!(rate > 0 && rate <= 1))
    throw new FaultSyntaxError(`rate of ${JSON.stringify(text)} must be a number in (0, 1]`);
  return { fault: parseFault(at < 0 ? text : text.slice(0, at)), rate };
}

/** The header's faults: a comma-separated list, or "none" for a request that must get the conforming answer. */
export function parseFaultHeader(value: string): Fault[] {
  if (value.trim().toLowerCase() === 'none') return [];
  return value
    .split(',')
    .filter((s) => s.trim())
    .map(parseFault);
}

/** A fault as `--fault` spells it, for the sandbox's start-up line and its log. */
export const describeFault = (f: Fault): string =>
  f.kind === 'latency'
    ? `latency=${f.min === f.max ? f.min : `${f.min}-${f.max}`}`
    : f.kind === '429'
      ? `429=${f.retryAfter}`
      : f.kind;

/** FNV-1a of the text, then mulberry32: a small seeded generator per request key. */
function generator(seed: number, key: string): () => number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Decision {
  faults: Fault[];
  latencyMs: number;
  error?: string;
}

/** The order in which an answer-replacing fault wins when several are chosen (latency adds to any of them). */
const PRECEDENCE: Array<Fault['kind']> = ['disabled', 'expired-token', '429', '500', 'truncate'];

/** The sandbox's faults as a Variant of the reference server. */
export function sandboxVariant(opts: SandboxOptions): Variant {
  const now = opts.now ?? Date.now;
  const seen = new Map<string, number>();
  const issuedAt = new Map<string, number>();
  const decisions = new WeakMap<ApiRequest, Decision>();

  const decide = (req: ApiRequest): Decision => {
    let d = decisions.get(req);
    if (d) return d;
    const key = `${req.method} ${req.path}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    const rnd = generator(opts.seed, `${key}#${n}`);
    const header = req.headers[FAULT_HEADER];
    let faults: Fault[];
    if (typeof header === 'string') {
      // A malformed header is the developer's mistake: answered with 400, never silently ignored.
      try {
        faults = parseFaultHeader(header);
      } catch (e) {
        d = { faults: [], latencyMs: 0, error: (e as Error).message };
        decisions.set(req, d);
        return d;
      }
    } else {
      faults = opts.faults.filter((f) => rnd() < f.rate).map((f) => f.fault);
    }
    const latencyMs = faults.reduce(
      (ms, f) => ms + (f.kind === 'latency' ? f.min + Math.floor(rnd() * (f.max - f.min + 1)) : 0),
      0,
    );
    d = { faults, latencyMs };
    decisions.set(req, d);
    return d;
  };

  const tokenOf = (req: ApiRequest): string | undefined => {
    const t = tokenOfRequest(req.headers);
    return typeof t === 'string' && t ? t : undefined;
  };

  const replace = (
    kind: Fault['kind'],
    fault: Fault,
    reply: ApiReply,
    req: ApiRequest,
    world: World,
  ): ApiReply | undefined => {
    const err = (code: number, msg: string, headers?: Record<string, string>): ApiReply => ({
      ...world.render.error(code, msg),
      ...(headers ? { headers } : {}),
    });
    switch (kind) {
      case 'disabled':
        return err(401, 'The merchant has disabled the application (sandbox fault)');
      case 'expired-token':
        return req.path === '/auth'
          ? undefined
          : err(401, 'Application not authenticated: the token has expired (sandbox fault)');
      case '429':
        return err(429, 'Too many requests (sandbox fault)', {
          'retry-after': String((fault as { retryAfter: number }).retryAfter),
        });
      case '500':
        return err(500, 'System exception (sandbox fault)');
      case 'truncate': {
        // The full length is announced, half the bytes are sent, then the connection closes.
        const full = Buffer.from(reply.raw ?? JSON.stringify(reply.body));
        return {
          ...reply,
          raw: full.subarray(0, Math.floor(full.length / 2)),
          headers: { ...reply.headers, 'content-length': String(full.length), connection: 'close' },
        };
      }
      default:
        return undefined;
    }
  };

  return {
    name: 'sandbox-faults',
    description: 'faults a client should survive, by flag (with a rate) or by the x-sandbox-fault header; seeded',
    delayMs: (req) => decide(req).latencyMs,
    handle(req, next, world) {
      const d = decide(req);
      if (d.error) return world.render.error(400, `Bad ${FAULT_HEADER} header: ${d.error}`);
      const token = tokenOf(req);
      const ttl = opts.tokenTtlSeconds;
      if (
        ttl !== undefined &&
        req.path !== '/auth' &&
        token &&
        issuedAt.has(token) &&
        now() - issuedAt.get(token)! >= ttl * 1000
      ) {
        opts.onFault?.(req, 'expired-token (token-ttl)');
        return world.render.error(
          401,
          `Application not authenticated: the token has expired (tokens live ${ttl} s in this sandbox)`,
        );
      }
      const reply = next();
      if (ttl !== undefined && req.path === '/auth') {
        const issued = (reply.body as { data?: { app_token?: unknown } } | undefined)?.data?.app_token;
        if (typeof issued === 'string') issuedAt.set(issued, now());
      }
      let answer = reply;
      // What was done, for the log: the answer-replacing fault that won, and the latency.
      const applied: string[] = [];
      for (const kind of PRECEDENCE) {
        const f = d.faults.find((x) => x.kind === kind);
        const replaced = f && replace(kind, f, reply, req, world);
        if (replaced) {
          answer = replaced;
          applied.push(describeFault(f));
          break;
        }
      }
      if (d.faults.some((f) => f.kind === 'latency')) applied.push(`latency ${d.latencyMs} ms`);
      if (applied.length) opts.onFault?.(req, applied.join(', '));
      return answer;
    },
  };
}
