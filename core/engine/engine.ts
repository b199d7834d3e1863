/**
 * The engine: one conformance run from a config and the selected checks to their records. Every run path goes
 * through here: the CLI (app/checks-process.ts), the programmatic API and its adapters (app/api.ts), check-har, the recordings and
 * the checks' unit replay. It owns the order checks run in (phasesOf), the outcome of each check (runCheck) and its
 * record (checkRecord), and ends every check it started: at the deadline or an interruption, what did not finish is
 * incomplete, never failed.
 */
import { AREAS, type Check } from '../model/check.js';
import type { Config } from '../config/config.js';
import { SharedRequests } from '../session/api.js';
import { runCheck, unmetRequirement } from './run-check.js';
import { setQuoteFilter } from '../redact/quote.js';
import type { RequestProgress } from '../session/progress.js';
import { redactorFor, type Redactor } from '../redact/redact.js';
import { checkRecord, unfinishedRecord, type CheckRecord } from '../model/report.js';
import { clientFor, deadlineWords, type SourceOf } from './run.js';
import type { Sweep } from '../spec/resources.js';

/**
 * A step of a run: its checks run all at once (concurrent) or one by one; a phase starts when the one before ended,
 * except the token-minting phase (see phasesOf). Named 'areas' (every area's checks that call no /auth and send no
 * unsafe method), 'readonly' and 'token-minting'.
 */
export interface Phase {
  name: string;
  concurrent: boolean;
  checks: Check[];
}

/**
 * The phases of a run, in order. Every area but 'readonly' at once, each check as soon as what it needs has arrived
 * (requests are capped by the client, not by grouping). 'readonly' alone after them, one by one: its unsafe methods
 * are the one thing that may change a broken server's data, and no other check may read that change. Last the
 * /auth calls of the checks that mint tokens (Check.mintsTokens): a server may end the run's token when it issues a
 * new one (§5.6), so no /auth of theirs is sent before every other check has ended. Those checks start with the run
 * all the same (the engine holds only their /auth requests), so what they read with the run's token comes early,
 * and they then call /auth all at once: the MUST ones only judge their own /auth answers, and the profile's
 * (INFO-AUTH-TOKEN) judges what a new token does to an earlier one, which another check's /auth leaves as true.
 */
export function phasesOf(checks: readonly Check[]): Phase[] {
  return [
    {
      name: 'areas',
      concurrent: true,
      checks: AREAS.filter((a) => a !== 'readonly').flatMap((a) =>
        checks.filter((c) => c.area === a && !c.mintsTokens),
      ),
    },
    { name: 'readonly', concurrent: false, checks: checks.filter((c) => c.area === 'readonly' && !c.mintsTokens) },
    // The profile's first: each of them is a chain of /auth calls one after another, and the MUST ones a batch that
    // fills the slots left.
    {
      name: MINTING,
      concurrent: true,
      checks: checks.filter((c) => c.mintsTokens).sort((a, b) => profileFirst(a) - profileFirst(b)),
    },
  ].filter((p) => p.checks.length > 0);
}

const profileFirst = (c: Check): number => (c.level === 'INFO' ? 0 : 1);

/** A group of a runner's tests (a describe block): one per area in the concurrent phase, else the phase itself. */
export interface TestGroup {
  name: string;
  concurrent: boolean;
  checks: Check[];
}

/** How a runner adapter (Vitest, node:test) groups its tests: the phases in order, the concurrent one by area. */
export function testGroupsOf(checks: readonly Check[]): TestGroup[] {
  return phasesOf(checks).flatMap((phase) =>
    phase.name === 'areas'
      ? [...new Set(phase.checks.map((c) => c.area))].map((a) => ({
          name: a,
          concurrent: phase.concurrent,
          checks: phase.checks.filter((c) => c.area === a),
        }))
      : [{ name: phase.name, concurrent: phase.concurrent, checks: phase.checks }],
  );
}

/** The phase whose checks start with the run and whose /auth requests wait for every other phase. */
const MINTING = 'token-minting';

/** Per declared read, the checks of the run that read it: those selected that declare it (Check.reads) and can run. */
function readersOf(checks: readonly Check[], config: Config): Map<Sweep, Set<string>> {
  const readers = new Map<Sweep, Set<string>>();
  for (const c of checks) {
    if (unmetRequirement(c, config)) continue;
    for (const s of c.reads ?? []) {
      let set = readers.get(s);
      if (!set) readers.set(s, (set = new Set()));
      set.add(c.id);
    }
  }
  return readers;
}

/** How a run is driven: when it must end, who hears of each record, where its exchanges come from. */
export interface EngineOptions {
  /** Ends the run early (SIGINT, a cancelled Vitest run): every check not finished is incomplete, with the reason. */
  signal?: AbortSignal;
  /** Each check's record as soon as it is final (before the run ends). */
  onRecord?: (record: CheckRecord) => void;
  /** A check is about to start (its phase began, or its turn came). */
  onStart?: (check: Check) => void;
  /** Epoch ms by which the run ends (default deadline_ms from now): requests stop, unfinished checks are incomplete. */
  deadlineAt?: number;
  /** Every phase one check at a time (check-har: a request asked twice gets its recorded answers in order). */
  sequential?: boolean;
  /**
   * The count of requests sent and planned (core/session/progress.ts) for the CLI's progress line: called every
   * PROGRESS_EVERY_MS while the run goes on, and once at its end.
   */
  onProgress?: (progress: RequestProgress) => void;
  /** Called with the run's redactor before any check starts (check-har adds the recording's other secrets). */
  onRedactor?: (redactor: Redactor) => void;
}

/** What a run produced: one record per check (in the order given), the run's problems, and its redactor. */
export interface EngineResult {
  records: CheckRecord[];
  /** Problems of the run outside any one check (it was stopped: how many checks did not finish). */
  errors: string[];
  redactor: Redactor;
}

/** How often a run tells onProgress its count of requests: often enough for a live line, rarely enough to cost nothing. */
export const PROGRESS_EVERY_MS = 500;

/**
 * After the deadline: time for checks to end on their own (their requests stop at the deadline and they end as
 * incomplete with the client's words) before the engine calls what is left unfinished.
 */
const DEADLINE_GRACE_MS = 200;

/**
 * Runs the checks in their phases and returns their records. Never throws for a check: a check that breaks is an
 * error record. A deadline or an abort ends the run at once: started checks that did not end, and checks never
 * started, are incomplete ("not finished: <why>"), and no further check starts.
 * @param source where exchanges come from (a recording, a recorder around the client); live HTTP when absent
 */
export async function runChecks(
  config: Config,
  checks: readonly Check[],
  source?: SourceOf,
  opts: EngineOptions = {},
): Promise<EngineResult> {
  const deadlineAt = opts.deadlineAt ?? Date.now() + config.deadline_ms;
  const redactor = redactorFor(config);
  // Values quoted in messages are server text: the run's redactor treats them so (see show in assertions.ts).
  setQuoteFilter((s) => redactor.redactQuoted(s));
  const client = source ? source(redactor) : clientFor(config, redactor, { deadlineAt });
  opts.onRedactor?.(redactor);
  const shared = new SharedRequests(config, client, readersOf(checks, config));
  const onProgress = opts.onProgress;
  const progressTimer = onProgress && setInterval(() => onProgress(shared.tally.snapshot()), PROGRESS_EVERY_MS);
  progressTimer?.unref?.();

  const records = new Map<string, CheckRecord>();
  const settle = (rec: CheckRecord): void => {
    // A check that ends after the run was stopped keeps its "not finished" record: the report is already made.
    if (records.has(rec.id)) return;
    records.set(rec.id, rec);
    opts.onRecord?.(rec);
  };

  let stopReason: string | undefined;
  let stop!: (why: string) => void;
  const stopped = new Promise<void>((resolve) => {
    stop = (why) => {
      stopReason ??= why;
      resolve();
    };
  });
  const onAbort = (): void => stop(reasonText(opts.signal?.reason));
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop(deadlineWords(config)), Math.max(0, deadlineAt - Date.now()) + DEADLINE_GRACE_MS);
  timer.unref?.();

  // Each record says when its check started on the run's clock (JUnit's suite times are wall spans of these).
  const runStart = performance.now();
  const startedAt = new Map<string, number>();
  const one = async (c: Check): Promise<void> => {
    if (stopReason !== undefined) return;
    opts.onStart?.(c);
    const start = performance.now();
    startedAt.set(c.id, start);
    const result = await runCheck(c, shared);
    settle(checkRecord(c, { ...result, start_ms: Math.round(start - runStart) }));
  };
  const phases = (async () => {
    const all = phasesOf(checks);
    // The token-minting checks start now, beside the first phase; their /auth requests wait until it is their turn.
    let open!: () => void;
    shared.holdMinting(new Promise<void>((resolve) => (open = resolve)));
    const minting = opts.sequential ? undefined : all.find((p) => p.name === MINTING);
    const early = minting && Promise.all(minting.checks.map(one));
    for (const phase of all) {
      if (stopReason !== undefined) return;
      if (phase.name === MINTING) open();
      if (phase === minting) await early;
      else if (phase.concurrent && !opts.sequential) await Promise.all(phase.checks.map(one));
      else for (const c of phase.checks) await one(c);
    }
  })();
  // Stopped: the checks still running end on their own, heard by no one.
  phases.catch(() => undefined);
  try {
    await Promise.race([phases, stopped]);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }

  // Ended past the deadline with checks the client's deadline cut short: the run was stopped by it all the same.
  if (
    stopReason === undefined &&
    Date.now() >= deadlineAt &&
    [...records.values()].some((r) => r.status === 'incomplete')
  )
    stopReason = deadlineWords(config);
  const errors: string[] = [];
  if (stopReason !== undefined) {
    const left = checks.filter((c) => !records.has(c.id));
    const now = performance.now();
    for (const c of left) {
      const start = startedAt.get(c.id);
      // A check stopped while it ran took its time up to the stop; one never started has no place on the clock.
      const why = redactor.redact(`not finished: ${stopReason}`);
      settle(
        start === undefined
          ? unfinishedRecord(c, why)
          : unfinishedRecord(c, why, 'incomplete', now - start, start - runStart),
      );
    }
    const unfinished = checks.filter((c) => records.get(c.id)?.status === 'incomplete').length;
    errors.push(redactor.redact(`${stopReason}: ${unfinished} of ${checks.length} checks did not finish`));
  }
  if (progressTimer) clearInterval(progressTimer);
  onProgress?.(shared.tally.snapshot());
  // Stopped: the requests still in flight end at their own time limit; the run does not wait for them.
  const closing = client.close().catch(() => undefined);
  if (stopReason === undefined) await closing;
  return { records: checks.map((c) => records.get(c.id)!), errors, redactor };
}

/** The words of an abort's reason: a string as given, an error's message (Vitest's cancel carries one). */
function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  const r = reason as { reason?: unknown; message?: unknown } | undefined;
  if (typeof r?.reason === 'string' && r.reason) return r.reason;
  if (typeof r?.message === 'string' && r.message) return r.message;
  return 'the run was interrupted';
}
