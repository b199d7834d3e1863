import { naturalOrder } from '../core/base/natural-order.js';
import { AREAS, type Area, type Level } from '../core/model/check.js';
import {
  findingsOf,
  isObservation,
  judgedCounts,
  OUTCOME_ORDER,
  OUTCOMES,
  unfinishedOf,
  VERDICT_MEANING,
  VERDICT_ORDER,
  VERDICT_WORD,
  type CheckRecord,
  type Outcome,
  type Report,
  type Verdict,
} from '../core/model/report.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import type { RequestProgress } from '../core/session/progress.js';
import { credentialSteps, curlCommand, curlOptionsOf, exchangeLine, exchangeText, markedEvidence } from './evidence.js';
import { counted } from '../core/base/counted.js';

/** Colour on a terminal unless NO_COLOR; the CLI decides for good with --no-color and FORCE_COLOR (setColour). */
let colour = process.stdout.isTTY === true && !process.env.NO_COLOR;
/** Turns colour on or off for everything printed after (--no-color, FORCE_COLOR). */
export function setColour(on: boolean): void {
  colour = on;
}
const paint = (code: number, s: string): string => (colour ? `\x1b[${code}m${s}\x1b[0m` : s);

/** The colour of each outcome's word (a Record: every outcome has one). */
const COLOUR: Record<Outcome, number> = {
  passed: 32,
  failed: 31,
  warned: 33,
  known: 34,
  stale: 31,
  expired: 31,
  skipped: 90,
  incomplete: 35,
  error: 35,
};
const VERDICT_COLOUR: Record<Verdict, number> = {
  conformant: 32,
  partial: 33,
  'known failures': 31,
  'not conformant': 31,
  incomplete: 35,
  'nothing judged': 35,
};

const word = (o: Outcome): string => paint(COLOUR[o], OUTCOMES[o].word.padEnd(10));

/** Server text on one terminal line (see core/redact/untrusted-text.ts): every line that quotes the server goes through it. */
export const oneLine = (s: string): string => untrustedLine(s);

/** Outcomes whose line says why the check judged nothing: skipped (blocked, not configured), not finished, broke. */
const SAYS_WHY: ReadonlySet<Outcome> = new Set(['skipped', 'incomplete', 'error']);

/**
 * One check's line, ids aligned, in the results grouped by area. An INFO check that ran says what the server was
 * observed to do (where the spec says "not shown"): recorded, never judged. A check that judged nothing says why.
 */
export function checkLine(r: CheckRecord, idWidth = 18): string {
  const info = isObservation(r);
  const tag = info ? paint(36, 'INFO'.padEnd(10)) : word(r.outcome);
  const why = info
    ? ` — observed: ${oneLine(r.observation ?? r.message)}`
    : SAYS_WHY.has(r.outcome)
      ? ` — ${oneLine(r.message)}`
      : '';
  return `  ${tag} ${r.id.padEnd(idWidth)} ${r.title}${why}`;
}

/** When a run's expected length passes this, it says once how to get a faster verdict. */
const SLOW_RUN_MS = 120_000;
/** The request rate is taken over this much of the recent past (a run speeds up once its lists are in). */
const RATE_WINDOW_MS = 10_000;
/**
 * Requests each check still unfinished is taken to send in turn after the planned ones (Progress.left): 2 since the
 * token-minting checks call /auth all at once (it was 3 while they went one by one; the estimate then overshot by
 * about 2 s in test/progress-estimate.test.ts). 3 again since #35: the checks that end the run send more of their
 * requests in turn (RO-01's rounds for every application, the token-minting phase's key pairs of every application),
 * and with 2 the estimate fell short by 2–4 s there; with 4 it overshot by 45 % early in a run on a busy machine.
 */
const TAIL_REQUESTS_PER_CHECK = 3;
/** Outside a terminal (a CI log), a plain progress line at most this often, unless the CLI is told otherwise. */
export const PLAIN_PROGRESS_EVERY_MS = 10_000;

/** A duration for people: "45 s", "3 min 20 s", "1 h 05 min". */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${String(s % 60).padStart(2, '0')} s` : ''}`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * Progress while checks run: on a terminal one live line, rewritten in place; elsewhere (CI logs) a plain line at
 * most every 10 s. The line says checks done of all, requests done of planned (planned once every list a sweep
 * reads is in), the request rate and an estimate of the time left. When the run is expected to take more than two
 * minutes, one line says how to get a faster verdict. Results themselves are printed once, grouped by area, when
 * the run ends.
 */
export class Progress {
  private done = 0;
  private readonly started = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private hinted = false;
  private lastPlain = this.started;
  private requests: RequestProgress | undefined;
  /** Recent (time, requests settled, requests in flight) samples, for the rate and the time a request takes. */
  private readonly recent: Array<[number, number, number]> = [];

  /**
   * @param readRequests the run's request tally as the checks' process last wrote it (undefined before it has)
   * @param plainEveryMs outside a terminal, the least time between two plain lines
   * @param concurrency the most requests the run has in flight at once
   */
  constructor(
    private readonly total: number,
    private readonly write: (s: string) => void,
    private readonly live: boolean,
    private readonly readRequests: () => RequestProgress | undefined = () => undefined,
    private readonly plainEveryMs = PLAIN_PROGRESS_EVERY_MS,
    private readonly concurrency = 1,
  ) {
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  finished(): void {
    this.done++;
    if (this.live) {
      this.requests = this.readRequests() ?? this.requests;
      this.draw();
    }
  }

  /** Requests per second over the recent past, once there is a past to speak of (at least `spanMs` of it). */
  private rate(spanMs = 2000): number | undefined {
    const first = this.recent[0];
    const last = this.recent.at(-1);
    if (!first || !last || last[0] - first[0] < spanMs) return undefined;
    return ((last[1] - first[1]) * 1000) / (last[0] - first[0]);
  }

  /**
   * The time left, when the plan is known and requests are moving: the planned requests at the recent rate, then
   * the checks still unfinished. Those are mostly the ones whose requests go out at the end (unsafe methods one after
   * another on each path, /auth again: see core/engine/engine.ts), a few each in turn, each taking the server's latency:
   * the requests in flight over the rate (Little's law), those in flight counted up to the client's concurrency (the
   * rest wait in its queue, which a request sent in turn does not).
   */
  private left(spanMs?: number): number | undefined {
    const r = this.rate(spanMs);
    const p = this.requests;
    if (!r || !p || p.planned === undefined) return undefined;
    const inFlight = this.recent.reduce((n, s) => n + s[2], 0) / Math.max(1, this.recent.length);
    // In request slots: one request sent in turn takes as long as that many of them at the recent rate.
    const tail = (this.total - this.done) * TAIL_REQUESTS_PER_CHECK * Math.max(1, Math.min(this.concurrency, inFlight));
    return ((p.planned - p.settled + tail) / r) * 1000;
  }

  private line(now = performance.now()): string {
    const parts = [`checks ${this.done}/${this.total} done`];
    const p = this.requests;
    if (p) {
      parts.push(
        `requests ${p.settled}/${p.planned ?? '?'}${p.planned === undefined ? ' (planned once the lists are in)' : ''}`,
      );
      const r = this.rate();
      if (r !== undefined) parts.push(`${r < 10 ? r.toFixed(1) : Math.round(r)} req/s`);
      const left = this.left();
      if (left !== undefined) parts.push(`about ${durationText(left)} left`);
    }
    parts.push(`${durationText(now - this.started)} elapsed`);
    return parts.join(' · ');
  }

  private draw(): void {
    this.write(`\r\x1b[2K${this.line()}`);
  }

  private tick(): void {
    const now = performance.now();
    this.requests = this.readRequests() ?? this.requests;
    if (this.requests) {
      this.recent.push([now, this.requests.settled, this.requests.sent - this.requests.settled]);
      while (this.recent.length > 2 && now - this.recent[0]![0] > RATE_WINDOW_MS) this.recent.shift();
    }
    if (this.live) this.draw();
    else if (now - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = now;
      this.write(`progress: ${this.line(now)}\n`);
    }
    // The hint trusts a rate taken over most of its window only: while the lists come in, the rate says little.
    const left = this.left(RATE_WINDOW_MS * 0.8);
    const expected = now - this.started + (left ?? 0);
    if (!this.hinted && expected > SLOW_RUN_MS) {
      this.hinted = true;
      const about = left !== undefined ? `is expected to take about ${durationText(expected)}` : 'is taking a while';
      this.write(
        `${this.live ? '\r\x1b[2K' : ''}This run ${about}: --max-details N checks a seeded sample of N records per resource (a PARTIAL verdict, the sample stated), and --concurrency N sends more requests at once, if the server allows.\n`,
      );
    }
  }

  /** Stops the timer and clears the live line. */
  end(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.live) this.write('\r\x1b[2K');
  }
}

/** Counts of the outcomes that occurred, in severity order: "40 passed, 2 failed, 3 skipped". */
function countsText(c: Record<Outcome, number>): string {
  return (
    OUTCOME_ORDER.filter((o) => c[o])
      .map((o) => `${c[o]} ${o}`)
      .join(', ') || 'none'
  );
}

/**
 * The run's opening lines on what its verdict can be at best, from what it was told (before any request): a
 * selection (--only/--skip) without a MUST check judges nothing, one with some is PARTIAL at best, and a plain
 * http:// target cannot verify HTTPS-only (TRANS-03). Each line ends with a newline.
 */
export function ceilingLines(
  selected: ReadonlyArray<{ level: Level }>,
  catalogueSize: number,
  https: boolean,
): string[] {
  const lines: string[] = [];
  const must = selected.some((c) => c.level === 'MUST');
  if (!must)
    lines.push(
      `Selection: ${selected.length} of ${counted(catalogueSize, 'check')} (--only/--skip), none of them a MUST check: nothing can be judged, the verdict will be ${VERDICT_WORD['nothing judged']} (exit 3)\n`,
    );
  else if (selected.length < catalogueSize)
    lines.push(
      `Selection: ${selected.length} of ${counted(catalogueSize, 'check')} (--only/--skip); the verdict can be ${VERDICT_WORD.partial} at best\n`,
    );
  if (!https)
    lines.push(
      `Warning: base_url is plain http://, but §4 allows only HTTPS: TRANS-03 cannot run${must ? `, so the verdict can be ${VERDICT_WORD.partial} at best` : ''}\n`,
    );
  return lines;
}

/** The exit codes with the verdict words each comes with, best first (the help's last lines), from the report model. */
export function exitCodesText(usage = 'a usage or config error, one line on stderr, before any request'): string {
  const verdicts = [...VERDICT_ORDER].reverse().sort((a, b) => VERDICT_MEANING[a].exit - VERDICT_MEANING[b].exit);
  const rows: Array<[string, string, string]> = verdicts.map((v) => [
    String(VERDICT_MEANING[v].exit),
    VERDICT_WORD[v],
    VERDICT_MEANING[v].when,
  ]);
  rows.splice(
    rows.findIndex((r) => r[0] === '3'),
    0,
    ['2', '—', usage],
  );
  const w = Math.max(...rows.map((r) => r[1].length));
  // Each meaning wrapped under its own column, as the options are.
  const indent = ' '.repeat(w + 6);
  const wrap = (text: string): string =>
    text
      .split(' ')
      .reduce<string[]>((lines, word) => {
        const last = lines.at(-1);
        if (last !== undefined && indent.length + last.length + 1 + word.length <= 118)
          lines[lines.length - 1] = `${last} ${word}`;
        else lines.push(word);
        return lines;
      }, [])
      .join(`\n${indent}`);
  return `Exit codes (with the verdict every output prints):\n${rows.map(([code, word, when]) => `  ${code} ${word.padEnd(w)}  ${wrap(when)}`).join('\n')}\n`;
}

/** `--list`: the catalogue as a table, in the stable order (area, then id). */
export function listText(
  checks: ReadonlyArray<{ id: string; level: Level; area: Area; spec: string; title: string }>,
): string {
  const sorted = [...checks].sort((a, b) => AREAS.indexOf(a.area) - AREAS.indexOf(b.area) || naturalOrder(a.id, b.id));
  const w = Math.max(...sorted.map((c) => c.id.length));
  return `${sorted.map((c) => `${c.id.padEnd(w)}  ${c.level.padEnd(6)}  ${c.area.padEnd(11)}  ${c.title}  [${c.spec}]`).join('\n')}\n`;
}

/**
 * The closing summary: the verdict and why, counts by area, the findings most severe first (with every exchange
 * under --verbose), what did not finish, what did not run, what the server was observed to do (INFO), then the
 * verdict line again with the counts (the last line a CI log shows). --quiet keeps the verdict and the findings.
 */
export function summaryText(
  report: Report,
  reportFiles: string[],
  opts: { quiet?: boolean; verbose?: boolean } = {},
): string {
  const verdict = `${paint(VERDICT_COLOUR[report.verdict], VERDICT_WORD[report.verdict])}${report.source === 'recording' ? ' (from a recording)' : ''}`;
  const out: string[] = ['', `${verdict}: ${oneLine(report.verdict_reason)}`];
  if (!opts.quiet) {
    // Every check, grouped by area in the order a vendor fixes things, by id within an area; ids aligned.
    const width = Math.max(0, ...report.checks.map((c) => c.id.length));
    for (const area of AREAS) {
      if (!report.summary.by_area[area]) continue;
      // Observations (INFO) apart: an area's header never counts one as passed.
      const { counts, observed } = judgedCounts(report.checks.filter((c) => c.area === area));
      const judged = OUTCOME_ORDER.some((o) => counts[o]) ? countsText(counts) : '';
      out.push('', `${area} (${[judged, observed ? `${observed} INFO` : ''].filter(Boolean).join(', ')}):`);
      for (const r of report.checks) if (r.area === area) out.push(checkLine(r, width));
    }
  }
  const findings = findingsOf(report);
  const curl = curlOptionsOf(report);
  if (findings.length) {
    out.push('', 'Findings (most severe first):');
    // Under --verbose, the exchanges that show each finding, whole; each other one a line (a token check judges a
    // hundred correct refusals beside two findings). Without marks, every exchange is whole (core/model/findings.ts).
    const shown = new Map(
      (opts.verbose ? findings : []).map((c) => {
        const marked = markedEvidence({ ...c, base_url: report.target.base_url });
        const whole = marked.some((e) => e.shows === 'finding') ? marked.filter((e) => e.shows === 'finding') : marked;
        return [c, { whole, beside: marked.filter((e) => !whole.includes(e)) }] as const;
      }),
    );
    // How to set the variables the reproduction lines printed use ($OPEN_TOKEN …), once before them.
    const steps = opts.verbose
      ? credentialSteps(
          [...shown.values()].flatMap(({ whole }) => whole.map((e) => curlCommand(e, curl))),
          report.target.base_url,
          curl,
        )
      : [];
    if (steps.length)
      out.push(
        '  The reproduce: lines below use these variables; set them first (the tokens are fetched the way the suite does, §5.2):',
        ...steps.map((l) => `    ${oneLine(l)}`),
      );
    for (const c of findings) {
      out.push(`  ${word(c.outcome)} ${c.id} [${c.level} ${c.spec}] ${c.title}`, `      ${oneLine(c.message)}`);
      const b = c.baseline;
      if (b) {
        const state =
          b.state === 'new'
            ? `lists other failures of this check; new now: ${b.new_fingerprints!.slice(0, 8).map(oneLine).join(', ')}${b.new_fingerprints!.length > 8 ? ', …' : ''}`
            : b.state === 'stale'
              ? 'passes now: remove the entry'
              : b.state === 'expired'
                ? `expired ${b.expires ?? ''}`
                : `known${b.expires ? ` until ${b.expires}` : ''}`;
        out.push(`      baseline (${oneLine(b.reason)}): ${state}`);
      }
      if (c.fuzz) out.push(`      replay: ${oneLine(c.fuzz.replay)}`);
      if (opts.verbose) {
        const { whole, beside } = shown.get(c)!;
        for (const e of whole)
          out.push(
            '',
            ...exchangeText(e, curl)
              .split('\n')
              .map((l) => `      ${oneLine(l)}`),
          );
        if (beside.length)
          out.push(
            '',
            `      Judged beside it (${counted(beside.length, 'exchange')}, whole in report.json and report.html):`,
            ...beside.map((e) => `        ${oneLine(exchangeLine(e))}`),
          );
        out.push('');
      }
    }
  }
  const unfinished = unfinishedOf(report);
  if (unfinished.length) {
    out.push('', "Not finished (no verdict on these; never the server's failure):");
    for (const c of unfinished) out.push(`  ${word(c.outcome)} ${c.id}: ${oneLine(c.message)}`);
  }
  if (report.coverage.not_run.length && !opts.quiet) {
    // Exactly the MUST checks the count names: each that has a record with its own reason, the rest (not selected,
    // never started) one line per reason.
    out.push('', `Not run: ${report.coverage.text}`);
    const records = new Map(report.checks.map((c) => [c.id, c]));
    const absent = new Map<string, string[]>();
    for (const n of report.coverage.not_run) {
      const c = records.get(n.id);
      if (c) out.push(`  ${n.id}: ${oneLine(c.outcome === 'skipped' ? c.message : n.why)}`);
      else absent.set(n.why, [...(absent.get(n.why) ?? []), n.id]);
    }
    for (const [why, ids] of absent) out.push(`  ${oneLine(why)}: ${ids.join(', ')}`);
  }
  // The run's own problems (an interruption, the deadline, a process that died): never the server's, never a
  // verdict on it; a user's Ctrl-C is no fault of the suite either, so they are named after the run.
  for (const e of report.errors) out.push(`  RUN: ${oneLine(e)}`);
  const must = report.summary.by_level.MUST;
  const should = report.summary.by_level.SHOULD;
  out.push(
    '',
    `${verdict}: MUST ${countsText(must)}; SHOULD ${countsText(should)} (${counted(report.checks.length, 'check')}, ${(report.duration_ms / 1000).toFixed(1)} s, exit ${report.exit_code})`,
  );
  for (const f of reportFiles) out.push(`Report: ${oneLine(f)}`);
  return `${out.join('\n')}\n`;
}
