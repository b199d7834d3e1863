import type { Dispatcher } from 'undici';

/** One request in flight, as the sweeper of Timeouts sees it: when its time is up, and how to stop it. */
export class Flight {
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
export class Timeouts {
  private readonly flights = new Set<Flight>();
  private timer: NodeJS.Timeout | undefined;
  private readonly every: number;
  private lastSweep = 0;
  constructor(private readonly timeoutMs: number) {
    this.every = Math.min(250, Math.max(10, timeoutMs / 10));
  }

  start(): Flight {
    const f = new Flight(performance.now() + this.timeoutMs);
    this.flights.add(f);
    if (!this.timer) {
      this.lastSweep = performance.now();
      this.timer = setInterval(() => this.sweep(), this.every);
      this.timer.unref();
    }
    return f;
  }

  end(f: Flight): void {
    this.flights.delete(f);
  }

  abortAll(reason: Error): void {
    for (const f of this.flights) f.abort(reason);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * A sweep that comes late measures how long our own event loop did not run: that time is given back to every
   * request in flight, since a response that arrived meanwhile sat unread, and a stall of the client is no slowness
   * of the server. The cause does not matter: our own work (parsing, validating a huge body), GC, or other processes
   * holding the machine's cores all keep us from reading. It counts from a quarter of timeout_ms (forgiving every
   * small delay would stretch every timeout); undici's backstop (BACKSTOP_TIMEOUTS) still bounds a request on a
   * machine so loaded that every sweep comes late.
   */
  private sweep(): void {
    const now = performance.now();
    const stall = now - this.lastSweep - this.every;
    this.lastSweep = now;
    if (stall >= Math.max(100, this.timeoutMs / 4)) for (const f of this.flights) f.endsAt += stall;
    for (const f of this.flights)
      if (f.endsAt <= now) f.abort(new DOMException(`no response within ${this.timeoutMs} ms`, 'TimeoutError'));
  }
}

/** undici's own timeouts, in timeouts: they cannot tell a stall of our event loop from a slow server. */
export const BACKSTOP_TIMEOUTS = 4;
