import { mkdtempSync, rmSync } from 'node:fs';
import { readCappedText } from '../base/regular-file.js';
import { tmpdir } from 'node:os';
import { isUtf8 } from 'node:buffer';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { Agent } from './undici-agent.js';
import type { Redactor } from '../redact/redact.js';
import { parseJsonBuffer, TooManyElements } from './json-buffer.js';
import { capText } from '../redact/untrusted-text.js';
import { parseJsonExact } from '../base/exact-json.js';
import { textOnDemand } from './rendered-text.js';
import { EXCERPT_CHARS, EXCERPT_HEAD_BYTES, NetworkError, requestLine, SPEC_CONTENT_TYPE } from './exchange.js';
import type { Exchange, Reply, RequestSpec, RetryRecord } from './exchange.js';
import { describeError, MAX_HEADER_BYTES, STALE_CONNECTION } from './network-errors.js';
import {
  BREAKER_TIMEOUTS,
  Breaker,
  chainAnswered,
  type RequestChain,
  endpointOf,
  Gate,
  RETRY_BUDGET_TIMEOUTS,
  RETRY_DEFAULTS,
  retryAfterMs,
  sleep,
} from './pacing.js';
import { BACKSTOP_TIMEOUTS, Timeouts, type Flight } from './timeouts.js';
import { BigBodies, BIG_BODY_BYTES, Lane } from './body-sink.js';
import { transfer } from './transfer.js';
import { ACCEPT_ENCODING } from './content-coding.js';
import { learnTokens, unsendable } from './issued-tokens.js';
import { carryToken } from '../spec/auth-scheme.js';

/** The client's settings, from the run's configuration (core/engine/run.ts clientFor). */
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
  /** A recording (--record-har) takes each body's bytes as they came (Reply.wire). */
  keepBodies?: boolean;
}

/** URLs from this long on are held once per run (HttpClient.url): far past any path of the spec's ids. */
const LONG_URL_CHARS = 16 * 1024;
/** At most this many distinct long URLs are held; past it the set starts again. */
const LONG_URLS_KEPT = 64;

/**
 * The one HTTP client of a run (undici): the concurrency cap, pacing, time limits, body cap, content codings, 429
 * retries and GETs sent again after a connection closed under them.
 */
export class HttpClient {
  private readonly agent: Agent;
  private readonly gate: Gate;
  private readonly deadline: AbortSignal;
  private readonly timeouts: Timeouts;
  private readonly breaker = new Breaker();
  private readonly bigBodies = new BigBodies();
  /** Long URLs already built, each held once (see url). */
  private readonly longUrls = new Map<string, string>();
  /** Bytes of bodies held in memory by requests in flight, and the lazily made directory bodies spill into. */
  private readonly bodies = {
    held: 0,
    declared: 0,
    lane: new Lane(),
    bigBodies: this.bigBodies,
    dir: undefined as string | undefined,
    spillDir: (): string => (this.bodies.dir ??= mkdtempSync(join(tmpdir(), 'conformance-bodies-'))),
  };
  private readonly retry: { max: number; capMs: number };
  /** performance.now() at which the run deadline passes: no 429 wait may reach past it. */
  private readonly deadlineAt: number;
  private readonly retryBudgetMs: number;
  private retryBudgetLeft: number;
  /** The dispatcher of requests sent again on a fresh connection (made on the first; see send). */
  private freshAgent: Agent | undefined;
  private readonly agentOptions: ConstructorParameters<typeof Agent>[0];
  /** GETs sent again on a fresh connection after theirs closed before any answer (see send). */
  resentCount = 0;
  readonly base: URL;

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.agentOptions = {
      connections: opts.concurrency,
      connect: {
        timeout: opts.timeoutMs,
        rejectUnauthorized: !opts.tls.insecure,
        // One TLS context for every connection: given `ca`, each connection would parse it into a context of its own.
        ...(opts.tls.ca_file
          ? { secureContext: createSecureContext({ ca: readCappedText(opts.tls.ca_file, 'pem') }) }
          : {}),
      },
      // A conforming server may send many cookies: undici's default (Node's, 16 KiB) failed one with 250 of them.
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: opts.timeoutMs * BACKSTOP_TIMEOUTS,
      bodyTimeout: opts.timeoutMs * BACKSTOP_TIMEOUTS,
    };
    this.agent = new Agent(this.agentOptions);
    this.gate = new Gate(opts.concurrency, opts.rateLimit);
    this.timeouts = new Timeouts(opts.timeoutMs);
    this.deadline = AbortSignal.timeout(opts.deadlineMs);
    this.deadline.addEventListener('abort', () => this.timeouts.abortAll(this.deadline.reason as Error), {
      once: true,
    });
    this.retry = opts.retry ?? RETRY_DEFAULTS;
    this.retryBudgetMs = opts.retryBudgetMs ?? RETRY_BUDGET_TIMEOUTS * opts.timeoutMs;
    this.retryBudgetLeft = this.retryBudgetMs;
    this.deadlineAt = performance.now() + opts.deadlineMs;
  }

  get redactor(): Redactor {
    return this.opts.redactor;
  }

  url(spec: Pick<RequestSpec, 'path' | 'query' | 'baseUrl'>): string {
    const base = (spec.baseUrl ?? this.opts.baseUrl).replace(/\/+$/, '');
    const q = spec.query ? new URLSearchParams(spec.query).toString() : '';
    const url = `${base}${spec.path}${q ? `?${q}` : ''}`;
    if (url.length < LONG_URL_CHARS) return url;
    // A long URL (a path with an id the server chose) is held once: each exchange keeps its URL until the run's
    // evidence is chosen, and every probe of a 5 MB id's path held a copy of its own (400 MB in one check).
    const known = this.longUrls.get(url);
    if (known !== undefined) return known;
    if (this.longUrls.size >= LONG_URLS_KEPT) this.longUrls.clear();
    this.longUrls.set(url, url);
    return url;
  }

  /**
   * Sends one request and reads its whole answer. Redirects are never followed (undici's request() does not, and
   * no redirect interceptor is installed): a 3xx is evidence, and the token must not reach another origin.
   * A 429 is retried after its Retry-After (at most retry.max times, each wait capped at retry.capMs), and the
   * retries are recorded on the exchange; every other status, 503 included, is answered as it came.
   */
  async send(spec: RequestSpec, chain?: RequestChain): Promise<Reply> {
    const method = spec.method ?? 'GET';
    const url = this.url(spec);
    // What the client decodes: a server that codes a body anyway is decoded all the same (core/transport/content-coding.ts).
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': ACCEPT_ENCODING };
    if (spec.contentType !== false) headers['content-type'] = SPEC_CONTENT_TYPE;
    carryToken(headers, spec.token);
    if (spec.headers) for (const [k, v] of Object.entries(spec.headers)) headers[k.toLowerCase()] = v;
    const recordRequest: Exchange['request'] = {
      method,
      url,
      headers,
      ...(spec.body !== undefined ? { body: spec.body } : {}),
    };
    const endpoint = (): string => endpointOf(method, spec);

    const retries: RetryRecord[] = [];
    let resent: string | undefined;
    for (;;) {
      let reply: Reply;
      try {
        reply = await this.attempt(method, url, headers, recordRequest, endpoint, retries, resent, chain, spec.body);
      } catch (e) {
        // A server closes idle keep-alive connections (Node's default: after 5 s; proxies differ), and a request sent
        // on a connection it is closing fails before any byte of an answer. A GET that failed so is sent once more
        // on a fresh connection (RFC 9112 §9.3.1, as browsers and undici's retry handler do) and the exchange says
        // so; a second failure stands, and nothing is sent again once an answer began or for any other method.
        if (
          resent !== undefined ||
          method !== 'GET' ||
          !(e instanceof NetworkError) ||
          !e.beforeResponse ||
          !STALE_CONNECTION.has(e.code)
        )
          throw e;
        resent = e.exchange.error ?? e.code;
        this.resentCount++;
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
        throw new NetworkError(
          `${requestLine(method, url, this.opts.redactor)}: HTTP 429 Too Many Requests${asked !== undefined ? ` (Retry-After: ${capText(asked, 100)})` : ''}, not waited for: the run's budget for rate-limit waits (${budget}, ${RETRY_BUDGET_TIMEOUTS} × timeout_ms) is ${this.retryBudgetLeft <= 0 ? 'spent' : 'too small for it'}`,
          reply.exchange,
          'RETRY_BUDGET',
        );
      }
      this.retryBudgetLeft -= cost;
      retries.push({ status: 429, ...(asked !== undefined ? { retry_after: asked } : {}), waited_ms: wait });
      this.gate.pause(Date.now() + wait);
      await sleep(wait);
    }
  }

  private async attempt(
    method: string,
    url: string,
    headers: Record<string, string>,
    recordRequest: Exchange['request'],
    endpoint: () => string,
    retries: RetryRecord[],
    /** Why the request is sent again on a fresh connection (its first connection closed before any answer). */
    resent?: string,
    chain?: RequestChain,
    /** The request body (RequestSpec.body), if any. */
    body?: string,
  ): Promise<Reply> {
    const withRetries = (e: Exchange): Exchange => {
      const x = retries.length ? { ...e, retries: [...retries] } : e;
      return resent !== undefined ? { ...x, resent } : x;
    };
    await this.gate.enter(chain);
    const started = performance.now();
    let flight: Flight | undefined;
    let responded = false;
    try {
      // Checked after the gate too: requests queued behind a wave of timeouts must not become the next wave.
      if (this.breaker.isOpen(endpoint)) {
        throw Object.assign(
          new Error(
            `not sent: the last ${BREAKER_TIMEOUTS} requests to ${endpoint()} got no complete response within ${this.opts.timeoutMs} ms (timeout_ms)`,
          ),
          { code: 'ENDPOINT_TIMED_OUT' },
        );
      }
      if (this.deadline.aborted) throw this.deadline.reason;
      // Refused here, at once, rather than by undici: see unsendable.
      const why = unsendable(method, url, headers);
      if (why !== undefined) throw Object.assign(new Error(`not sent: ${why}`), { code: 'NOT_SENT' });
      flight = this.timeouts.start();
      // A GET sent again, and any other method (never sent twice: see send), goes on a connection of its own, closed
      // after it: a kept-alive one of the pool may be closing under it.
      const fresh = resent !== undefined || method !== 'GET';
      const res = await transfer(
        fresh ? (this.freshAgent ??= new Agent(this.agentOptions)) : this.agent,
        this.bodies,
        this.opts.maxBodyBytes,
        // A body (rare: a probe of §4's "no body") goes with the dispatch; undici sends it on a GET as on any method.
        { method, url, headers, ...(fresh ? { reset: true } : {}), ...(body !== undefined ? { body } : {}) },
        flight,
        () => {
          responded = true;
        },
        this.opts.keepBodies,
      );
      // Taken apart at once: a closure that kept `res` would keep the whole body's bytes for as long as the reply.
      const { bytes, body: buf, list, key: arrivedKey, parsed, tooMany } = res;
      // isUtf8 (simdutf) then one decode: a fatal TextDecoder costs several times more on a 65 MB list.
      // A disk list (core/transport/disk-list.ts), or a body parsed as it arrived, was checked, hashed and parsed on its way;
      // buf is then its head.
      const utf8 = list !== undefined || parsed !== undefined || isUtf8(buf);
      const big = utf8 && bytes >= BIG_BODY_BYTES;
      const key = big ? (arrivedKey ?? BigBodies.key(buf)) : '';
      // Too long a list, seen on its way or in the same content before: refused without parsing it (again). A 30 MB
      // list of {} asked ten times held 2.5 million parsed records twice each time.
      if (big && (tooMany || this.bigBodies.isRefused(key))) {
        this.bigBodies.refuse(key);
        throw new TooManyElements();
      }
      // Parsed on its way (a disk list, or a list read as it arrived), unless the same content was parsed before.
      const arrived = list?.json ?? parsed;
      let json: unknown = big ? (this.bigBodies.get(key) ?? arrived) : undefined;
      if (arrived !== undefined && json === arrived) this.bigBodies.set(key, json);
      let jsonError: string | undefined;
      let text: string | undefined;
      if (json === undefined) {
        if (!big) text = buf.toString('utf8');
        try {
          json = text !== undefined ? parseJsonExact(text) : parseJsonBuffer(buf);
        } catch (e) {
          if (e instanceof TooManyElements) {
            if (big) this.bigBodies.refuse(key);
            throw e;
          }
          jsonError = (e as Error).message;
        }
        if (big && jsonError === undefined) this.bigBodies.set(key, json);
        // A big body that is not JSON is kept as text: the checks quote it.
        if (big && jsonError !== undefined) text = buf.toString('utf8');
      }
      learnTokens(this.opts.redactor, json, text, url, res.headers);
      this.breaker.answered(endpoint);
      const durationMs = performance.now() - started;
      const resHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
      // The excerpt of a long body comes from a prefix of its bytes, never from a slice of its text: V8 slices keep
      // their parent string alive, and the evidence would hold a 65 MB list's whole text (135 MB as UTF-16).
      const head =
        text !== undefined && bytes <= EXCERPT_HEAD_BYTES ? text : buf.subarray(0, EXCERPT_HEAD_BYTES).toString('utf8');
      const truncated = text === undefined ? true : text.length > EXCERPT_CHARS;
      const exchange = withRetries({
        request: recordRequest,
        response: { status: res.status, headers: resHeaders, body_excerpt: head, body_bytes: bytes, truncated },
        duration_ms: Math.round(durationMs),
      });
      const reply: Reply = {
        status: res.status,
        headers: resHeaders,
        text: text ?? '',
        bytes,
        utf8,
        json,
        ...(jsonError ? { jsonError } : {}),
        ...(utf8 ? {} : { raw: buf }),
        ...(res.bom ? { bom: true as const } : {}),
        ...(res.wire ? { wire: res.wire } : {}),
        durationMs,
        exchange,
      };
      if (big && jsonError === undefined) {
        // A big JSON body is kept parsed only: its text (UTF-16, up to twice its bytes) is rendered again on demand
        // (same content, not byte for byte). Checks read .text of small bodies (refusals, non-JSON answers).
        textOnDemand(reply, json, list !== undefined);
      }
      return reply;
    } catch (e) {
      const own = (e as { code?: string }).code;
      const d =
        own === 'BODY_TOO_LARGE' || own === 'ENDPOINT_TIMED_OUT' || own === 'BAD_CODING' || own === 'NOT_SENT'
          ? { code: own, message: (e as Error).message }
          : describeError(e, this.opts.timeoutMs, this.deadline.aborted);
      if (d.code === 'TIMEOUT') this.breaker.timedOut(endpoint());
      const exchange = withRetries({
        request: recordRequest,
        error: d.message,
        duration_ms: Math.round(performance.now() - started),
      });
      throw new NetworkError(
        `${requestLine(method, url, this.opts.redactor)}: ${d.message}`,
        exchange,
        d.code,
        !responded,
      );
    } finally {
      if (flight) this.timeouts.end(flight);
      this.gate.leave();
      chainAnswered(chain);
    }
  }

  async close(): Promise<void> {
    // close() waits for the requests still in flight (a check that stopped early leaves some): their time limit
    // must go on running until they end.
    await Promise.all([this.agent.close(), this.freshAgent?.close()]);
    this.timeouts.stop();
    if (this.bodies.dir) rmSync(this.bodies.dir, { recursive: true, force: true });
  }
}
