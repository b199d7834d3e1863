/**
 * One run of the engine as a test runner's tests see it (the programmatic API's session, app/api.ts, which the Vitest
 * and node:test adapters use): each test waits for its own check's record. No test runner's import.
 */
import type { Check } from '../core/model/check.js';
import type { EngineOptions, EngineResult } from '../core/engine/engine.js';
import type { CheckRecord } from '../core/model/report.js';

/** Starts the engine (core/engine/engine.ts runChecks) on the checks whose tests will run, with the adapter's options. */
export type StartChecks = (
  checks: Check[],
  opts: Required<Pick<EngineOptions, 'signal' | 'onRecord'>>,
) => Promise<EngineResult>;

interface Waiting {
  promise: Promise<CheckRecord>;
  resolve(r: CheckRecord): void;
  reject(e: unknown): void;
}

/**
 * One run of the engine and each check's record as it arrives. It starts when the first check asks for its record
 * (a test runner has chosen by then which tests run — filters, shards, .only — and the run takes those checks).
 */
export class CheckRecords {
  private readonly waiting = new Map<string, Waiting>();
  private readonly controller = new AbortController();
  private started: Promise<EngineResult> | undefined;

  /** @param start the engine's run; it may throw (library mode: the config was not resolved) */
  constructor(
    private readonly selected: readonly Check[],
    private readonly start: StartChecks,
  ) {}

  private entry(id: string): Waiting {
    let w = this.waiting.get(id);
    if (!w) {
      let resolve!: (r: CheckRecord) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<CheckRecord>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined);
      this.waiting.set(id, (w = { promise, resolve, reject }));
    }
    return w;
  }

  /** Starts the engine on those of the selected checks `runs` names, unless it has started already. */
  begin(runs: ReadonlySet<string>): void {
    if (this.started) return;
    const checks = this.selected.filter((c) => runs.has(c.id));
    try {
      this.started = this.start(checks, {
        signal: this.controller.signal,
        onRecord: (r) => this.entry(r.id).resolve(r),
      });
    } catch (e) {
      this.started = Promise.reject(e);
    }
    this.started.then(
      (r) => {
        for (const rec of r.records) this.entry(rec.id).resolve(rec);
        // A check whose test runs but that the engine was not given: never happens; the test must not hang.
        for (const w of this.waiting.values()) w.reject(new Error('the run ended without this check'));
      },
      (e: unknown) => {
        for (const w of this.waiting.values()) w.reject(e);
      },
    );
  }

  /**
   * The record of a check, once the engine has it. If the engine has not started, it starts now on the checks
   * `runs` names (those whose tests will run).
   */
  record(id: string, runs: () => ReadonlySet<string>): Promise<CheckRecord> {
    if (!this.started) this.begin(runs());
    return this.entry(id).promise;
  }

  /** Stops the run: every check not finished is incomplete, with this reason (a cancelled test run, a signal). */
  stop(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** Resolves once the run has ended (started or not). */
  async ended(): Promise<void> {
    await this.started?.catch(() => undefined);
  }

  /** The run's result once it has ended; undefined if it never started. Rejects if it could not start. */
  async result(): Promise<EngineResult | undefined> {
    return this.started;
  }
}
