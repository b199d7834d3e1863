/**
 * When a request may start: the concurrency cap and rate pacing (Gate), the breaker for endpoints that stopped
 * answering, and the 429 retry policy (Retry-After, the run's budget for waits).
 */
import type { RequestSpec } from './exchange.js';

/**
 * How far along its work a chain of requests is: the requests already answered to the code that sends (a check: its
 * Api in core/session/api.ts holds one and hands it with each request). The gate serves the furthest-along first: a check that sends one request after another
 * (a fuzz case after the list, a probe after its token) would otherwise queue behind every leaf request of the run
 * at each step, and the run would take its chain × the queue instead of its chain × one round trip.
 */
export interface RequestChain {
  answered: number;
  /** Per priority, how many of the chain's requests wait at it: a chain never overtakes its own older requests. */
  waiting: number[];
}

/**
 * A new chain of requests (see RequestChain); requests sent with none are served first-come. Handed along
 * explicitly, not kept in an AsyncLocalStorage: on Node 20 that puts a hook on every promise of the process, and a
 * large merchant's run makes millions of them.
 */
export function requestChain(): RequestChain {
  return { answered: 0, waiting: new Array<number>(PRIORITIES).fill(0) };
}

/**
 * The priority a request of the current chain waits at: its answers so far, but never above the priority its oldest
 * waiting request holds, so a chain's requests keep their order (a sweep's first detail is not overtaken by its
 * later ones, which would start as the chain's answers come in).
 */
function priorityOf(chain: RequestChain | undefined): number {
  if (!chain) return 0;
  const oldest = chain.waiting.findIndex((n) => n > 0);
  return Math.min(chain.answered, PRIORITIES - 1, oldest === -1 ? Infinity : oldest);
}

/** Counts an answer to the chain that sent the request (the HTTP client calls it as an answer arrives). */
export function chainAnswered(chain: RequestChain | undefined): void {
  if (chain) chain.answered++;
}

/** Priorities the gate tells apart: past this many answers a chain is simply far along (a sweep of 20,000 details). */
const PRIORITIES = 8;

/** 429 handling unless configured: at most 3 retries, each waiting Retry-After capped at 60 s. */
export const RETRY_DEFAULTS = { max: 3, capMs: 60_000 };
/**
 * The run's budget for 429 waits, in timeouts: a server that answers every request 429 Retry-After: 60 would
 * otherwise hold the run for retries × 60 s per request. Once spent, a 429 is no longer waited for: the request
 * ends as a NetworkError (RETRY_BUDGET), which leaves its check incomplete rather than failed.
 */
export const RETRY_BUDGET_TIMEOUTS = 3;
/** Consecutive timeouts on one endpoint after which further requests to it are not sent (see Breaker). */
export const BREAKER_TIMEOUTS = 3;

/**
 * Most requests in flight at once, and a minimum spacing between starts when a rate is set. Waiters are served by
 * their chain's progress (RequestChain: the furthest-along first), first come first served within one priority.
 */
export class Gate {
  private active = 0;
  /** One queue per priority; index = answers so far, capped at PRIORITIES - 1. */
  private readonly queues = Array.from({ length: PRIORITIES }, () => new WaitQueue());
  private waiters = 0;
  private nextStart = 0;
  private pausedUntil = 0;
  constructor(
    private readonly limit: number,
    private readonly rate?: number,
  ) {}

  /** A 429 slows everyone down, not only the request that got it: no request starts before `until`. */
  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
  }

  /** How much wall time pausing until `until` adds to the pause already set (what it costs the retry budget). */
  added(until: number): number {
    return Math.max(0, until - Math.max(Date.now(), this.pausedUntil));
  }

  /** Waits for a slot; `chain` is the sender's (its progress sets the priority), none for a request of no chain. */
  async enter(chain?: RequestChain): Promise<void> {
    if (this.active >= this.limit) {
      const priority = priorityOf(chain);
      this.waiters++;
      if (chain) chain.waiting[priority]!++;
      await new Promise<void>((r) => this.queues[priority]!.push(r));
      if (chain) chain.waiting[priority]!--;
    } else this.active++;
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
    if (!this.waiters) {
      this.active--;
      return;
    }
    this.waiters--;
    for (let p = PRIORITIES - 1; p >= 0; p--) {
      const next = this.queues[p]!.shift();
      if (next) return next();
    }
  }
}

/** A first-in first-out queue of waiters that lets each woken one go (see shift). */
class WaitQueue {
  private readonly waiting: Array<(() => void) | undefined> = [];
  /** Index of the next waiter: Array.shift() is O(n), and a large merchant queues 20,000 detail requests here. */
  private head = 0;

  push(waiter: () => void): void {
    this.waiting.push(waiter);
  }

  shift(): (() => void) | undefined {
    if (this.head >= this.waiting.length) return undefined;
    const next = this.waiting[this.head];
    // Let the woken waiter go: while checks keep the queue from ever emptying, a slot kept for each request of a
    // run held 12 MB at ten times the large merchant.
    this.waiting[this.head++] = undefined;
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return next;
  }
}

/** Woken waiters at the queue's head past which it is compacted (amortized: never more than the waiters left). */
const COMPACT_AFTER = 1024;

/** How much wider than 1/rate the gap between two starts is. */
const PACE_MARGIN = 1.05;

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The endpoint a request belongs to, for the breaker: /dishes/abc?x=1 → GET /dishes/* (paths are below base_url). */
export function endpointOf(method: string, spec: RequestSpec): string {
  const path = spec.path.split('?')[0]!;
  const segs = path.split('/');
  return `${method} ${spec.baseUrl ?? ''}${segs.length > 2 ? `${segs.slice(0, -1).join('/')}/*` : path}`;
}

/**
 * Stops sending to an endpoint that has stopped answering: after BREAKER_TIMEOUTS consecutive timeouts, further
 * requests to the same endpoint fail at once (a hanging detail endpoint would otherwise cost timeout_ms per fuzzed
 * id). Any response from the endpoint closes the breaker again.
 */
export class Breaker {
  private readonly timeouts = new Map<string, number>();
  /** The key is worked out only once some endpoint has timed out: never, on a healthy server. */
  isOpen(key: () => string): boolean {
    return this.timeouts.size > 0 && (this.timeouts.get(key()) ?? 0) >= BREAKER_TIMEOUTS;
  }
  answered(key: () => string): void {
    if (this.timeouts.size) this.timeouts.delete(key());
  }
  timedOut(key: string): void {
    this.timeouts.set(key, (this.timeouts.get(key) ?? 0) + 1);
  }
}

/** Milliseconds a Retry-After value asks for: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined if invalid. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
