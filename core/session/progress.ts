/**
 * What a run has sent so far and what it still plans to send, as the engine tells the CLI through EngineOptions.onProgress (which draws the
 * progress line: rate, estimate of the time left).
 */
export interface RequestProgress {
  /** Requests sent (a retry of a 429 counts once: it is the same exchange). */
  sent: number;
  /** Requests that have come back or failed. */
  settled: number;
  /**
   * Requests planned: those sent, plus the detail requests still to send of the details the checks read (their
   * Check.reads), plus the requests of their own checks have said they will send (api.ask). Known once the list of
   * every detail read is in (until then undefined); it can still grow by the few requests of checks that decide as
   * they go.
   */
  planned?: number;
}

/**
 * What a request was planned as: the first request for a detail of a sweep, one of the requests a check planned of
 * its own (promise), or neither (a list, a request no check announced).
 */
export type PlannedAs = 'detail' | 'planned' | 'unplanned';

/**
 * Counts the run's requests and plans those to come: one per detail the checks declare they read (Check.reads; how
 * many is known once its list is in), and those of their own the checks ask for (api.ask). One per run, in the engine.
 */
export class RequestTally {
  private sent = 0;
  private settled = 0;
  private detailsSent = 0;
  /** Requests checks said they would send of their own (promise), less the requests of their own sent since. */
  private promised = 0;
  private readonly sweepSizes = new Map<string, number>();

  /** reads: the details some check of the run declares it reads (Check.reads; their sizes come with planSweep). */
  constructor(private readonly reads: ReadonlySet<string>) {}

  /** A request goes out, as it was planned (see PlannedAs). */
  track<T>(reply: Promise<T>, kind: PlannedAs): Promise<T> {
    this.sent++;
    if (kind === 'detail') this.detailsSent++;
    else if (kind === 'planned' && this.promised > 0) this.promised--;
    const settle = (): void => {
      this.settled++;
    };
    reply.then(settle, settle);
    return reply;
  }

  /** The number of details a sweep reads (all the ids of its list, or the max_details sample), once known. */
  planSweep(sweep: string, details: number): void {
    if (this.reads.has(sweep) && !this.sweepSizes.has(sweep)) this.sweepSizes.set(sweep, details);
  }

  /**
   * A check is about to send this many requests of its own (api.ask: e.g. the other merchant's ids asked for with
   * my token): planned now, so the estimate of the time left counts them before they go out.
   */
  promise(requests: number): void {
    this.promised += requests;
  }

  /** Requests a check planned and did not send, now that it ended (it found what it looked for, or stopped). */
  withdraw(requests: number): void {
    this.promised = Math.max(0, this.promised - requests);
  }

  snapshot(): RequestProgress {
    const known = [...this.reads].every((s) => this.sweepSizes.has(s));
    let details = 0;
    for (const n of this.sweepSizes.values()) details += n;
    return {
      sent: this.sent,
      settled: this.settled,
      ...(known ? { planned: Math.max(this.sent, this.sent + details - this.detailsSent) + this.promised } : {}),
    };
  }
}
