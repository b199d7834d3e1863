import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import type { Redactor, SecretKind } from './redact.js';
import { parseJsonBuffer, TooManyElements } from './json-buffer.js';
import { capText } from './untrusted-text.js';
import { parseJsonExact, stringifyJson } from './exact-json.js';

export const SPEC_CONTENT_TYPE = 'application/json; charset=utf-8';
const EXCERPT_CHARS = 4096;
/** Characters recorded past the excerpt, so a secret that straddles the cut is redacted whole before cutting. */
const EXCERPT_MARGIN = 1024;

export interface RequestSpec {
  method?: string;
  /** Path relative to base_url (leading slash), sent as given: fuzzed ids are not re-encoded. */
  path: string;
  query?: Record<string, string>;
  /** Value of the open-token header; undefined sends none. */
  token?: string;
  /** Send the spec's Content-Type header (§4); default true. */
  contentType?: boolean;
  /** Use another origin or base than base_url (transport checks). */
  baseUrl?: string;
  /** Overrides the client's 429 retries for this request: `{ max: 0 }` answers the first 429 as it came (preflight). */
  retry?: { max: number };
}

/**
 * One request/response as recorded: raw, as it went and came, with the body's excerpt not cut yet. Only the few a
 * check keeps as evidence go into a report, through reportable(); redacting all 44,000 of a large run cost more
 * than the checks that read them.
 */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string> };
  response?: { status: number; headers: Record<string, string>; body_excerpt: string; body_bytes: number; truncated: boolean };
  error?: string;
  duration_ms: number;
  /** 429 answers that came before this one and were retried after their Retry-After (§8 leaves limits open). */
  retries?: RetryRecord[];
}

export interface RetryRecord { status: number; retry_after?: string; waited_ms: number }

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  bytes: number;
  utf8: boolean;
  /** Parsed body, or undefined when it is not JSON (see jsonError). */
  json: unknown;
  jsonError?: string;
  durationMs: number;
  exchange: Exchange;
}

/** The request got no usable response (timeout, reset, refused, TLS, too large). */
export class NetworkError extends Error {
  /** beforeResponse: the failure came before any response header (the request may never have reached the server). */
  constructor(message: string, readonly exchange: Exchange, readonly code: string, readonly beforeResponse = false) { super(message); }
}

/** Errors of a kept-alive connection the server closed while it sat idle (see HttpClient.send). */
const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']);

export interface ClientOptions {
  baseUrl: string;
  timeoutMs: number;
  deadlineMs: number;
  concurrency: number;
  rateLimit?: number;
  maxBodyBytes: number;
  tls: { insecure: boolean; ca_file?: string };
  redactor: Redactor;
  /** 429 handling: at most `max` retries, each waiting Retry-After capped at `capMs` (defaults 3 and 60 s). */
  retry?: { max: number; capMs: number };
  /** Wall time the whole run may spend paused for 429s (default RETRY_BUDGET_TIMEOUTS × timeoutMs). */
  retryBudgetMs?: number;
}

export const RETRY_DEFAULTS = { max: 3, capMs: 60_000 };
/**
 * The run's budget for 429 waits, in timeouts: a server that answers every request 429 Retry-After: 60 would
 * otherwise hold the run for retries × 60 s per request. Once spent, a 429 is no longer waited for: the request
 * ends as a NetworkError (RETRY_BUDGET), which leaves its check incomplete rather than failed.
 */
export const RETRY_BUDGET_TIMEOUTS = 3;
/** Consecutive timeouts on one endpoint after which further requests to it are not sent (see Breaker). */
const BREAKER_TIMEOUTS = 3;

/**
 * Bodies held in memory while they arrive, across all requests in flight: past this, a body goes on arriving into a
 * temporary file. Until a body is complete nobody knows whether it stays under max_body_bytes, so without this a
 * few concurrent floods of max_body_bytes each would hold several times the cap in memory.
 */
const MEMORY_BUDGET_BYTES = 8 * 1024 * 1024;
const BODY_ALWAYS_IN_MEMORY = 1024 * 1024;

/**
 * One body past the memory budget arrives at a time; the others wait with their sockets paused (TCP backpressure).
 * Reading a stream costs memory beyond the bytes kept (socket buffers, garbage awaiting collection): floods read in
 * parallel would add that up. Total time is no worse: parallel big downloads share the same bandwidth and CPU.
 */
export class Lane {
  private busy = false;
  private readonly queue: Array<() => void> = [];
  async acquire(): Promise<void> {
    if (!this.busy) { this.busy = true; return; }
    await new Promise<void>((r) => this.queue.push(r));
  }
  release(): void {
    const next = this.queue.shift();
    if (next) next(); else this.busy = false;
  }
}

/** Where response bodies accumulate: in memory while the shared budget allows, then in a temporary file. */
class BodySink {
  private chunks: Buffer[] = [];
  private held = 0;
  private file: FileHandle | undefined;
  private path: string | undefined;
  private laned = false;
  /** Set by discard(): a spill still opening its file must close and remove it (not leave it to the GC). */
  private discarded = false;

  constructor(private readonly pool: { held: number; lane: Lane; spillDir(): string }) {}

  /** Keeps a chunk; returns a promise only when it went to disk (the fast path stays synchronous). */
  add(chunk: Buffer): Promise<void> | undefined {
    // The first MiB of every body is always kept: small answers never queue behind a flood for the lane.
    const fits = this.held + chunk.length <= BODY_ALWAYS_IN_MEMORY || this.pool.held + chunk.length <= MEMORY_BUDGET_BYTES;
    if (!this.path && fits) {
      this.chunks.push(chunk);
      this.held += chunk.length;
      this.pool.held += chunk.length;
      return undefined;
    }
    return this.toDisk(chunk);
  }

  private async toDisk(chunk: Buffer): Promise<void> {
    if (!this.path) {
      await this.pool.lane.acquire();
      this.laned = true;
      this.path = join(this.pool.spillDir(), `body-${process.hrtime.bigint()}-${Math.random().toString(36).slice(2)}`);
      const file = await open(this.path, 'w');
      if (this.discarded) { await file.close(); await rm(this.path, { force: true }); return; }
      this.file = file;
      for (const c of this.chunks) await file.write(c);
      this.release();
    }
    if (this.discarded || !this.file) return;
    await this.file.write(chunk);
  }

  private release(): void {
    this.pool.held -= this.held;
    this.held = 0;
    this.chunks = [];
  }

  /** True once the body went to disk: only then do take() and discard() need awaiting. */
  get onDisk(): boolean { return this.path !== undefined; }

  /** The whole body of a sink that stayed in memory (synchronous: the common, fast path). */
  takeInMemory(total: number): Buffer {
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, total);
    this.release();
    return buf;
  }

  /** The whole body; the sink is empty afterwards. */
  async take(total: number): Promise<Buffer> {
    if (!this.path) return this.takeInMemory(total);
    await this.file!.close();
    this.file = undefined;
    try { return await readFile(this.path); } finally { await this.discard(); }
  }

  /** Forgets the body (a failure on the way); returns a promise only when there is a file to remove. */
  discard(): Promise<void> | undefined {
    this.discarded = true;
    if (!this.path && !this.laned) { this.release(); return undefined; }
    return this.discardFile();
  }

  private async discardFile(): Promise<void> {
    this.release();
    if (this.file) await this.file.close().catch(() => undefined);
    this.file = undefined;
    if (this.path) await rm(this.path, { force: true });
    this.path = undefined;
    if (this.laned) { this.laned = false; this.pool.lane.release(); }
  }
}

/** Bodies from this size on are parsed once per distinct content and not kept as text (see BigBodies, send). */
const BIG_BODY_BYTES = 1024 * 1024;

/**
 * Parsed big bodies by content hash. The same 65 MB list fetched again (the read-only probes' GETs before and after,
 * a list with ignored query parameters) is parsed once and its tree shared: replies are read-only to checks (the
 * shared memoized requests already hand one reply to many checks). Held weakly: a tree nobody keeps is collected.
 */
class BigBodies {
  private readonly seen = new Map<string, WeakRef<object>>();
  static key(buf: Buffer): string { return `${buf.length}:${createHash('sha256').update(buf).digest('base64')}`; }
  get(key: string): unknown { return this.seen.get(key)?.deref(); }
  set(key: string, json: unknown): void { if (typeof json === 'object' && json !== null) this.seen.set(key, new WeakRef(json)); }
}

/** Most requests in flight at once, and a minimum spacing between starts when a rate is set. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** Index of the next waiter: Array.shift() is O(n), and a large merchant queues 20,000 detail requests here. */
  private head = 0;
  private nextStart = 0;
  private pausedUntil = 0;
  constructor(private readonly limit: number, private readonly rate?: number) {}

  /** A 429 slows everyone down, not only the request that got it: no request starts before `until`. */
  pause(until: number): void { this.pausedUntil = Math.max(this.pausedUntil, until); }

  /** How much wall time pausing until `until` adds to the pause already set (what it costs the retry budget). */
  added(until: number): number { return Math.max(0, until - Math.max(Date.now(), this.pausedUntil)); }

  async enter(): Promise<void> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    if (this.pausedUntil > Date.now()) {
      // Re-check after waking: another 429 may have pushed the pause further while this request slept.
      while (this.pausedUntil > Date.now()) await sleep(this.pausedUntil - Date.now());
    }
    if (this.rate) {
      const now = Date.now();
      const at = Math.max(now, this.nextStart);
      // Paced 5% under the cap: a request's way to the server (a new connection, a busy host) can delay one start
      // and not the next, and the server, not our clock, is who counts "requests in a second".
      this.nextStart = at + (1000 * PACE_MARGIN) / this.rate;
      if (at > now) await sleep(at - now);
    }
  }

  leave(): void {
    const next = this.head < this.waiting.length ? this.waiting[this.head++] : undefined;
    if (this.head === this.waiting.length) { this.waiting.length = 0; this.head = 0; }
    if (next) next(); else this.active--;
  }
}

/** How much wider than 1/rate the gap between two starts is. */
const PACE_MARGIN = 1.05;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const TLS_FIX = 'give the CA that signed it with tls.ca_file / --ca-file, or accept any certificate with tls.insecure / --insecure (testing only)';
const KNOWN_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name does not resolve',
  EAI_AGAIN: 'host name does not resolve (temporary DNS failure)',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'the server closed the connection',
  UND_ERR_SOCKET: 'the server closed the connection before the response was complete',
  UND_ERR_CLOSED: 'the server closed the connection before the response was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the server closed the connection before the body reached its Content-Length',
  UND_ERR_CONNECT_TIMEOUT: 'no connection could be established in time',
  DEPTH_ZERO_SELF_SIGNED_CERT: `the server certificate is self-signed and not trusted: ${TLS_FIX}`,
  SELF_SIGNED_CERT_IN_CHAIN: `the server certificate chain ends in a CA that is not trusted: ${TLS_FIX}`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: `the server certificate is not trusted: ${TLS_FIX}`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: `the server certificate is signed by a CA that is not trusted: ${TLS_FIX}`,
  UNABLE_TO_GET_ISSUER_CERT: `the server certificate is signed by a CA that is not trusted: ${TLS_FIX}`,
  CERT_UNTRUSTED: `the server certificate is not trusted: ${TLS_FIX}`,
  CERT_HAS_EXPIRED: 'the server certificate has expired (tls.insecure / --insecure accepts it, for testing only)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not name this host (tls.insecure / --insecure accepts it, for testing only)',
  EPROTO: 'TLS handshake failed (is the server speaking HTTPS?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the server speaking HTTPS?)',
  UND_ERR_INFO: 'the server sent an invalid HTTP response',
  HPE_INVALID_CONSTANT: 'the server sent an invalid HTTP response',
  UND_ERR_INVALID_ARG: 'the request could not be sent (invalid header or URL)',
};

/** A one-line, stack-free account of why a request got no usable response. */
function describeError(e: unknown, timeoutMs: number, deadlinePassed: boolean): { code: string; message: string } {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (deadlinePassed) return { code: 'DEADLINE', message: 'the deadline of the whole run (deadline_ms) passed before the response completed' };
  const code = err.cause?.code ?? err.code ?? err.name ?? 'ERROR';
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { code: 'TIMEOUT', message: `no complete response within ${timeoutMs} ms (timeout_ms)` };
  }
  if (err.name === 'AbortError') return { code: 'ABORTED', message: 'the request was aborted' };
  const known = KNOWN_ERRORS[code];
  if (known) return { code, message: known };
  const text = (err.cause?.message || err.message || String(e)).split('\n')[0]!;
  if (/CERT|SSL|TLS/.test(code)) return { code, message: `TLS error ${code} (${text}): ${TLS_FIX}` };
  return { code, message: text };
}

/** One request in flight, as the sweeper of Timeouts sees it: when its time is up, and how to stop it. */
class Flight {
  reason: Error | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  constructor(public endsAt: number) {}
  started(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.reason !== undefined) controller.abort(this.reason);
  }
  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/**
 * The per-request time limit (timeout_ms, the whole exchange: a body that drips one byte a second is cut too) for
 * every request in flight, swept by one interval: an AbortSignal and a timer per request cost more CPU than the
 * request itself over a large merchant's 44,000. A request ends at most one sweep (timeout_ms / 10, within
 * 10–250 ms) after its limit (plus any time our own event loop was blocked); undici's headersTimeout and
 * bodyTimeout stay set as a backstop, loose enough (BACKSTOP_TIMEOUTS) not to undo that allowance.
 */
class Timeouts {
  private readonly flights = new Set<Flight>();
  private timer: NodeJS.Timeout | undefined;
  private readonly every: number;
  private lastSweep = 0;
  private lastCpu = process.cpuUsage();
  constructor(private readonly timeoutMs: number) { this.every = Math.min(250, Math.max(10, timeoutMs / 10)); }

  start(): Flight {
    const f = new Flight(performance.now() + this.timeoutMs);
    this.flights.add(f);
    if (!this.timer) {
      this.lastSweep = performance.now();
      this.lastCpu = process.cpuUsage();
      this.timer = setInterval(() => this.sweep(), this.every);
      this.timer.unref();
    }
    return f;
  }

  end(f: Flight): void { this.flights.delete(f); }

  abortAll(reason: Error): void { for (const f of this.flights) f.abort(reason); }

  stop(): void { if (this.timer) clearInterval(this.timer); this.timer = undefined; }

  /**
   * A sweep that comes late measures how long our own event loop was blocked (parsing, validating a huge body):
   * that time is given back to every request in flight, since a stall of the client is no slowness of the server.
   * It counts from a quarter of timeout_ms (forgiving every small delay would stretch every timeout), and only when
   * this process was busy for a good part of it (a quarter: on a loaded machine a busy loop gets a share of a core):
   * timers also come late when other processes hold the machine, and then nothing of ours kept a response waiting.
   */
  private sweep(): void {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    this.lastCpu = process.cpuUsage();
    const stall = now - this.lastSweep - this.every;
    this.lastSweep = now;
    if (stall >= Math.max(100, this.timeoutMs / 4) && (cpu.user + cpu.system) / 1000 >= stall / 4) for (const f of this.flights) f.endsAt += stall;
    for (const f of this.flights) if (f.endsAt <= now) f.abort(new DOMException(`no response within ${this.timeoutMs} ms`, 'TimeoutError'));
  }
}

/** undici's own timeouts, in timeouts: they cannot tell a stall of our event loop from a slow server. */
const BACKSTOP_TIMEOUTS = 4;

const tooLarge = (message: string): Error => Object.assign(new Error(message), { code: 'BODY_TOO_LARGE' });

/** The endpoint a request belongs to, for the breaker: /dishes/abc?x=1 → GET /dishes/* (paths are below base_url). */
function endpointOf(method: string, spec: RequestSpec): string {
  const path = spec.path.split('?')[0]!;
  const segs = path.split('/');
  return `${method} ${spec.baseUrl ?? ''}${segs.length > 2 ? `${segs.slice(0, -1).join('/')}/*` : path}`;
}

/**
 * Stops sending to an endpoint that has stopped answering: after BREAKER_TIMEOUTS consecutive timeouts, further
 * requests to the same endpoint fail at once (a hanging detail endpoint would otherwise cost timeout_ms per fuzzed
 * id). Any response from the endpoint closes the breaker again.
 */
class Breaker {
  private readonly timeouts = new Map<string, number>();
  /** The key is worked out only once some endpoint has timed out: never, on a healthy server. */
  isOpen(key: () => string): boolean { return this.timeouts.size > 0 && (this.timeouts.get(key()) ?? 0) >= BREAKER_TIMEOUTS; }
  answered(key: () => string): void { if (this.timeouts.size) this.timeouts.delete(key()); }
  timedOut(key: string): void { this.timeouts.set(key, (this.timeouts.get(key) ?? 0) + 1); }
}

/** Milliseconds a Retry-After value asks for: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined if invalid. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * An exchange as a report may show it: every secret redacted (tokens learnt after it was recorded too), then the
 * body cut to its excerpt; redacting before cutting leaves no readable prefix of a secret at the cut.
 */
export function reportable(e: Exchange, r: Redactor): Exchange {
  // Everything in an exchange came from or was built from server data (a request path holds an id the server
  // chose): forged redaction markers are neutralised, every secret replaced, every string bounded.
  const show = (s: string, max: number): string => capText(r.redactServerText(s.length > max + CAP_MARGIN ? s.slice(0, max + CAP_MARGIN) : s), max);
  const headers = (h: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    const entries = Object.entries(h);
    // defineProperty: a header named __proto__ stays an own key.
    for (const [k, v] of entries.slice(0, MAX_HEADERS_SHOWN)) Object.defineProperty(out, show(k, HEADER_NAME_CHARS), { value: show(v, HEADER_VALUE_CHARS), enumerable: true, writable: true, configurable: true });
    if (entries.length > MAX_HEADERS_SHOWN) out['…'] = `${entries.length - MAX_HEADERS_SHOWN} more headers not shown`;
    return out;
  };
  const x: Exchange = {
    request: { method: show(e.request.method, 64), url: show(e.request.url, URL_CHARS), headers: headers(e.request.headers) },
    duration_ms: e.duration_ms,
  };
  if (e.response) {
    const excerpt = r.redactServerText(e.response.body_excerpt);
    x.response = { status: e.response.status, headers: headers(e.response.headers), body_excerpt: excerpt.length > EXCERPT_CHARS ? excerpt.slice(0, EXCERPT_CHARS) : excerpt, body_bytes: e.response.body_bytes, truncated: e.response.truncated };
  }
  if (e.error !== undefined) x.error = show(e.error, URL_CHARS + 500);
  if (e.retries) x.retries = e.retries.map((t) => ({ ...t, ...(t.retry_after !== undefined ? { retry_after: show(t.retry_after, 100) } : {}) }));
  return x;
}

/** Bounds of server-chosen strings in evidence: a 5 MB id in a path or a header must not become 5 MB per report. */
const URL_CHARS = 2000;
const HEADER_NAME_CHARS = 200;
const HEADER_VALUE_CHARS = 2000;
const MAX_HEADERS_SHOWN = 200;
/** Redacted with this much text past the cut, so a secret across the cut is replaced whole before cutting. */
const CAP_MARGIN = 16_384;

export class HttpClient {
  private readonly agent: Agent;
  private readonly gate: Gate;
  private readonly deadline: AbortSignal;
  private readonly timeouts: Timeouts;
  private readonly breaker = new Breaker();
  private readonly bigBodies = new BigBodies();
  /** Bytes of bodies held in memory by requests in flight, and the lazily made directory bodies spill into. */
  private readonly bodies = { held: 0, lane: new Lane(), dir: undefined as string | undefined, spillDir: (): string => (this.bodies.dir ??= mkdtempSync(join(tmpdir(), 'conformance-bodies-'))) };
  private readonly retry: { max: number; capMs: number };
  /** performance.now() at which the run deadline passes: no 429 wait may reach past it. */
  private readonly deadlineAt: number;
  private readonly retryBudgetMs: number;
  private retryBudgetLeft: number;
  readonly base: URL;

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.agent = new Agent({
      connections: opts.concurrency,
      connect: {
        timeout: opts.timeoutMs,
        rejectUnauthorized: !opts.tls.insecure,
        ...(opts.tls.ca_file ? { ca: readFileSync(opts.tls.ca_file) } : {}),
      },
      headersTimeout: opts.timeoutMs * BACKSTOP_TIMEOUTS,
      bodyTimeout: opts.timeoutMs * BACKSTOP_TIMEOUTS,
    });
    this.gate = new Gate(opts.concurrency, opts.rateLimit);
    this.timeouts = new Timeouts(opts.timeoutMs);
    this.deadline = AbortSignal.timeout(opts.deadlineMs);
    this.deadline.addEventListener('abort', () => this.timeouts.abortAll(this.deadline.reason as Error), { once: true });
    this.retry = opts.retry ?? RETRY_DEFAULTS;
    this.retryBudgetMs = opts.retryBudgetMs ?? RETRY_BUDGET_TIMEOUTS * opts.timeoutMs;
    this.retryBudgetLeft = this.retryBudgetMs;
    this.deadlineAt = performance.now() + opts.deadlineMs;
  }

  get redactor(): Redactor { return this.opts.redactor; }

  url(spec: Pick<RequestSpec, 'path' | 'query' | 'baseUrl'>): string {
    const base = (spec.baseUrl ?? this.opts.baseUrl).replace(/\/+$/, '');
    const q = spec.query ? new URLSearchParams(spec.query).toString() : '';
    return `${base}${spec.path}${q ? `?${q}` : ''}`;
  }

  /**
   * Sends one request and reads its whole answer. Redirects are never followed (undici's request() does not, and
   * no redirect interceptor is installed): a 3xx is evidence, and the token must not reach another origin.
   * A 429 is retried after its Retry-After (at most retry.max times, each wait capped at retry.capMs), and the
   * retries are recorded on the exchange; every other status, 503 included, is answered as it came.
   */
  async send(spec: RequestSpec): Promise<Reply> {
    const method = spec.method ?? 'GET';
    const url = this.url(spec);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.contentType !== false) headers['content-type'] = SPEC_CONTENT_TYPE;
    if (spec.token !== undefined) headers['open-token'] = spec.token;
    const recordRequest = { method, url, headers };
    const endpoint = (): string => endpointOf(method, spec);

    const retries: RetryRecord[] = [];
    let staleRetried = false;
    for (;;) {
      let reply: Reply;
      try {
        reply = await this.attempt(method, url, headers, recordRequest, endpoint, retries);
      } catch (e) {
        // A server closes idle keep-alive connections (Node's default: after 5 s); when our event loop was busy
        // (parsing a 65 MB list), undici may reuse one just as it closes. A GET or HEAD that failed so, before any
        // response, is sent once more on a fresh connection (RFC 9112 §9.3.1); a second failure stands.
        const idempotent = method === 'GET' || method === 'HEAD';
        if (staleRetried || !idempotent || !(e instanceof NetworkError) || !e.beforeResponse || !STALE_CONNECTION.has(e.code)) throw e;
        staleRetried = true;
        continue;
      }
      if (reply.status !== 429 || retries.length >= (spec.retry?.max ?? this.retry.max)) return reply;
      const asked = reply.headers['retry-after'];
      // Without a usable Retry-After, back off 1 s, 2 s, 4 s.
      const wait = Math.min(retryAfterMs(asked) ?? 1000 * 2 ** retries.length, this.retry.capMs);
      if (this.deadline.aborted || performance.now() + wait > this.deadlineAt) return reply;
      const cost = this.gate.added(Date.now() + wait);
      if (cost > this.retryBudgetLeft) {
        const budget = `${(this.retryBudgetMs / 1000).toFixed(1)} s`;
        throw new NetworkError(`${method} ${capText(url, URL_CHARS)}: HTTP 429 Too Many Requests${asked !== undefined ? ` (Retry-After: ${capText(asked, 100)})` : ''}, not waited for: the run's budget for rate-limit waits (${budget}, ${RETRY_BUDGET_TIMEOUTS} × timeout_ms) is ${this.retryBudgetLeft <= 0 ? 'spent' : 'too small for it'}`, reply.exchange, 'RETRY_BUDGET');
      }
      this.retryBudgetLeft -= cost;
      retries.push({ status: 429, ...(asked !== undefined ? { retry_after: asked } : {}), waited_ms: wait });
      this.gate.pause(Date.now() + wait);
      await sleep(wait);
    }
  }

  private async attempt(method: string, url: string, headers: Record<string, string>, recordRequest: Exchange['request'], endpoint: () => string, retries: RetryRecord[]): Promise<Reply> {
    const withRetries = (e: Exchange): Exchange => (retries.length ? { ...e, retries: [...retries] } : e);
    await this.gate.enter();
    const started = performance.now();
    let flight: Flight | undefined;
    let responded = false;
    try {
      // Checked after the gate too: requests queued behind a wave of timeouts must not become the next wave.
      if (this.breaker.isOpen(endpoint)) {
        throw Object.assign(new Error(`not sent: the last ${BREAKER_TIMEOUTS} requests to ${endpoint()} got no complete response within ${this.opts.timeoutMs} ms (timeout_ms)`), { code: 'ENDPOINT_TIMED_OUT' });
      }
      if (this.deadline.aborted) throw this.deadline.reason;
      flight = this.timeouts.start();
      const res = await this.transfer(method, url, headers, flight, () => { responded = true; });
      const { bytes, body: buf } = res;
      // isUtf8 (simdutf) then one decode: a fatal TextDecoder costs several times more on a 65 MB list.
      const utf8 = isUtf8(buf);
      const big = utf8 && bytes >= BIG_BODY_BYTES;
      const key = big ? BigBodies.key(buf) : '';
      let json: unknown = big ? this.bigBodies.get(key) : undefined;
      let jsonError: string | undefined;
      let text: string | undefined;
      if (json === undefined) {
        if (!big) text = buf.toString('utf8');
        try { json = text !== undefined ? parseJsonExact(text) : parseJsonBuffer(buf); } catch (e) {
          if (e instanceof TooManyElements) throw e;
          jsonError = (e as Error).message;
        }
        if (big && jsonError === undefined) this.bigBodies.set(key, json);
        // A big body that is not JSON is kept as text: the checks quote it.
        if (big && jsonError !== undefined) text = buf.toString('utf8');
      }
      this.learnTokens(json, text, url);
      this.breaker.answered(endpoint);
      const durationMs = performance.now() - started;
      const resHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
      // The excerpt of a long body comes from a prefix of its bytes, never from a slice of its text: V8 slices keep
      // their parent string alive, and the evidence would hold a 65 MB list's whole text (135 MB as UTF-16).
      const prefixBytes = (EXCERPT_CHARS + EXCERPT_MARGIN) * 4;
      const head = text !== undefined && bytes <= prefixBytes ? text : buf.subarray(0, prefixBytes).toString('utf8');
      const truncated = text === undefined ? true : text.length > EXCERPT_CHARS;
      const exchange = withRetries({
        request: recordRequest,
        response: { status: res.status, headers: resHeaders, body_excerpt: head, body_bytes: bytes, truncated },
        duration_ms: Math.round(durationMs),
      });
      const reply: Reply = { status: res.status, headers: resHeaders, text: text ?? '', bytes, utf8, json, ...(jsonError ? { jsonError } : {}), durationMs, exchange };
      if (big && jsonError === undefined) {
        // A big JSON body is kept parsed only: its text (UTF-16, up to twice its bytes) is rendered again on demand
        // (same content, not byte for byte). Checks read .text of small bodies (refusals, non-JSON answers).
        Object.defineProperty(reply, 'text', {
          // Nested deeper than JSON.stringify's stack (the parse is iterative, the rendering not): said, not thrown.
          get: () => { try { return stringifyJson(json) ?? ''; } catch { return '(a body nested too deeply to render again)'; } },
          enumerable: true, configurable: true,
        });
      }
      return reply;
    } catch (e) {
      const own = (e as { code?: string }).code;
      const d = own === 'BODY_TOO_LARGE' || own === 'ENDPOINT_TIMED_OUT'
        ? { code: own, message: (e as Error).message }
        : describeError(e, this.opts.timeoutMs, this.deadline.aborted);
      if (d.code === 'TIMEOUT') this.breaker.timedOut(endpoint());
      const exchange = withRetries({ request: recordRequest, error: d.message, duration_ms: Math.round(performance.now() - started) });
      throw new NetworkError(`${method} ${capText(url, URL_CHARS)}: ${d.message}`, exchange, d.code, !responded);
    } finally {
      if (flight) this.timeouts.end(flight);
      this.gate.leave();
    }
  }

  /**
   * Sends one request and collects its whole body into a BodySink, through undici's dispatcher API: no stream, no
   * async iterator and no AbortSignal per request (what request() adds costs as much CPU as the exchange itself).
   * The body cap is enforced as bytes arrive; a body spilling to disk pauses the socket until written.
   */
  private transfer(method: string, url: string, headers: Record<string, string>, flight: Flight, onResponse: () => void): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; bytes: number }> {
    const u = new URL(url);
    const max = this.opts.maxBodyBytes;
    const sink = new BodySink(this.bodies);
    return new Promise((resolve, reject) => {
      let status = 0;
      let resHeaders: Record<string, string | string[] | undefined> = {};
      let bytes = 0;
      let writing: Promise<void> | undefined;
      let settled = false;
      const fail = (e: unknown): void => {
        if (settled) return;
        settled = true;
        const removing = sink.discard();
        if (removing) void removing.then(() => reject(e), () => reject(e)); else reject(e);
      };
      const finish = (): void => {
        if (settled) return;
        if (!sink.onDisk) { settled = true; resolve({ status, headers: resHeaders, body: sink.takeInMemory(bytes), bytes }); return; }
        sink.take(bytes).then((body) => { settled = true; resolve({ status, headers: resHeaders, body, bytes }); }, fail);
      };
      this.agent.dispatch({ origin: u.origin, path: u.pathname + u.search, method, headers }, {
        onRequestStart: (controller) => flight.started(controller),
        onResponseStart: (controller, statusCode, h) => {
          onResponse();
          status = statusCode;
          resHeaders = h;
          // Refused before reading a byte: the Content-Length alone says it is over the cap.
          const declared = Number(h['content-length']);
          if (declared > max) controller.abort(tooLarge(`response body of ${declared} bytes (Content-Length) exceeds the ${max}-byte cap (max_body_bytes); not read`));
        },
        onResponseData: (controller, chunk) => {
          // undici hands an empty chunk on resuming a paused body: pausing for it again would never end.
          if (!chunk.length) return;
          bytes += chunk.length;
          if (bytes > max) { controller.abort(tooLarge(`response body exceeds the ${max}-byte cap (max_body_bytes); aborted after ${bytes} bytes`)); return; }
          const spilled = sink.add(chunk);
          if (spilled) {
            controller.pause();
            writing = spilled.then(() => controller.resume(), (e: unknown) => controller.abort(e as Error));
          }
        },
        onResponseEnd: () => { if (writing) void writing.then(finish); else finish(); },
        onResponseError: (_controller, e) => fail(e),
      });
    });
  }

  /**
   * Every token a server issues becomes a secret the moment it is on the wire (§2.6 app_token): from the parsed
   * body, and from the text of a body that does not parse (cut short, trailing bytes, not quite JSON), where any
   * "app_token": "…" is taken, decoded when it is a complete JSON string, as it stands (to the cut) otherwise.
   */
  private learnTokens(json: unknown, text: string | undefined, url: string): void {
    const token = (json as { data?: { app_token?: unknown } } | undefined)?.data?.app_token;
    if (typeof token !== 'string' && (text === undefined || !text.includes('app_token'))) return;
    const kind = this.tokenKind(url);
    if (typeof token === 'string') this.opts.redactor.add(token, kind);
    if (json !== undefined || text === undefined || !text.includes('app_token')) return;
    for (const m of text.slice(0, 1 << 20).matchAll(/["']?app_token["']?\s*[:=]\s*["']?((?:[^"'\\\s,}&]|\\.)+)/g)) {
      const raw = m[1]!;
      let decoded = raw;
      try { decoded = JSON.parse(`"${raw}"`) as string; } catch { /* not a JSON string: taken as it stands */ }
      this.opts.redactor.add(raw, kind);
      this.opts.redactor.add(decoded, kind);
    }
  }

  /**
   * Whose token an answer carries, by the public key its request sent (the /auth query's secret): app's, other_app's,
   * or some other key pair's (a refused one, the disabled application's).
   */
  private tokenKind(url: string): SecretKind {
    let secret: string | null = null;
    try { secret = new URL(url).searchParams.get('secret'); } catch { /* no query: not /auth */ }
    const of = secret === null ? undefined : this.opts.redactor.kindOf(secret);
    return of === 'other-public-key' ? 'other-token' : of === 'public-key' || secret === null ? 'token' : 'issued-token';
  }

  async close(): Promise<void> {
    // close() waits for the requests still in flight (a check that stopped early leaves some): their time limit
    // must go on running until they end.
    await this.agent.close();
    this.timeouts.stop();
    if (this.bodies.dir) rmSync(this.bodies.dir, { recursive: true, force: true });
  }
}
