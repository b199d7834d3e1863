import type { Config } from '../config/config.js';
import type { Exchange } from '../transport/exchange.js';
import { NetworkError, reportable } from '../transport/exchange.js';
import type { SharedRequests } from '../session/api.js';
import { capText } from '../redact/untrusted-text.js';
import type { Check, CheckContext, CheckResult, FuzzFailure, Requirement } from '../model/check.js';
import { inferredShows, type Evidence, type Shows } from '../model/findings.js';
import { Blocked, CheckFailure } from '../session/check-errors.js';
import { unrecordedRequest } from '../session/recorded-source.js';
import { CREDENTIALS, TOKEN_HEADER } from '../spec/auth-scheme.js';
import { counted } from '../base/counted.js';

const REQUIREMENT_HELP: Record<Requirement, (c: Config) => string | undefined> = {
  other_app: (c) =>
    c.other_app
      ? undefined
      : `not configured: needs other_app (an application of a second merchant: --${CREDENTIALS.other_app.secret.flag}/--${CREDENTIALS.other_app.key.flag})`,
  disabled_app_keys: (c) =>
    c.disabled_app?.secret && c.disabled_app.key
      ? undefined
      : `not configured: needs ${CREDENTIALS.disabled_app.secret.key} and ${CREDENTIALS.disabled_app.key.key} (an application the merchant has disabled)`,
  disabled_app_token: (c) =>
    c.disabled_app?.token
      ? undefined
      : `not configured: needs ${CREDENTIALS.disabled_app.token.key} (a token issued before the application was disabled)`,
  unsafe_methods: (c) =>
    c.unsafe_methods
      ? undefined
      : 'not enabled: sends POST/PUT/PATCH/DELETE only with unsafe_methods: true (--unsafe-methods)',
  https: (c) =>
    c.base_url.startsWith('https:')
      ? undefined
      : 'not applicable: base_url is http://, so HTTPS-only (§4) cannot be verified — WARNING: the target is not served over HTTPS',
  fuzz: (c) => (c.fuzz.runs > 0 ? undefined : 'not enabled: fuzz.runs is 0'),
};

/** Why a check cannot run with this config (a requirement it names is missing), or undefined when it can. */
export function unmetRequirement(check: Check, config: Config): { requirement: Requirement; why: string } | undefined {
  for (const r of check.requires ?? []) {
    const why = REQUIREMENT_HELP[r](config);
    if (why) return { requirement: r, why };
  }
  return undefined;
}

/**
 * What the transport did that a reader of the result should know, read from the evidence: 429 answers that were
 * retried after their Retry-After (INFO: §8 leaves limits open), GETs sent again on a fresh connection after theirs
 * closed before any answer (core/transport/http.ts), and redirects, which are never followed.
 */
export function transportNotes(evidence: Exchange[]): string[] {
  const out = new Set<string>();
  for (const e of evidence) {
    const where = `${e.request.method} ${e.request.url}`;
    if (e.retries?.length) {
      const waits = e.retries.map((r) => `${(r.waited_ms / 1000).toFixed(1)} s`).join(', ');
      const final = e.response ? `HTTP ${e.response.status}` : (e.error ?? 'no response');
      out.add(
        `rate limited: ${where} got 429 Too Many Requests ${counted(e.retries.length, 'time')}; retried ${counted(e.retries.length, 'time')} after Retry-After (waited ${waits}); final answer ${final}`,
      );
    }
    if (e.resent !== undefined)
      out.add(
        `${where}: its connection closed before any byte of an answer (${e.resent}); sent once more on a fresh connection, as a GET may be (RFC 9112 §9.3.1); ${e.response ? `answered HTTP ${e.response.status}` : `failed again: ${e.error ?? 'no response'}`}`,
      );
    const status = e.response?.status ?? 0;
    if (status >= 300 && status < 400) {
      out.add(
        `${where} answered HTTP ${status} redirect to ${e.response!.headers.location ?? '(no Location)'}: not followed (the ${TOKEN_HEADER} stays with base_url)`,
      );
    }
  }
  return [...out];
}

/** The path of base_url without its trailing slash: a message names requests relative to it. */
function basePathOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** Exchanges kept as evidence per check, twice over (see record in runCheck). */
export const EVIDENCE_MAX = 50;

/**
 * Bounds of what a check says: messages quote server data (a 5 MB id), and a check over two million records could
 * note each. Past these the text is cut, saying how much more there was (report.json, junit.xml, the job summary
 * and the terminal all render these strings).
 */
const MESSAGE_CHARS = 20_000;
const NOTE_CHARS = 4_000;
const NOTES_MAX = 200;
/** Redacted with this much text past a cut, so a secret across the cut is replaced whole before cutting. */
const CUT_MARGIN = 16_384;

/** Runs one check and turns whatever happened into its result; secrets are redacted here, before anything leaves. */
export async function runCheck(check: Check, shared: SharedRequests): Promise<CheckResult> {
  const started = performance.now();
  const evidence: Exchange[] = [];
  // Weak: a check over every detail of a large merchant records 20,000 exchanges, and only the kept ones may stay.
  const seen = new WeakSet<Exchange>();
  // Those the bounds below left out: one that shows the finding is taken back (see shows).
  const leftOut = new WeakSet<Exchange>();
  // A check over every detail of a large merchant uses 20,000 exchanges: the report keeps the first EVIDENCE_MAX
  // and up to EVIDENCE_MAX more that stand out (no 2xx answer, retried), and says how many it left out.
  let usual = 0;
  let unusual = 0;
  let omitted = 0;
  // Requests of this check a recording did not hold (core/session/recorded-source.ts): what it judged is not the whole.
  const unrecorded: string[] = [];
  const record = (e: Exchange): void => {
    if (seen.has(e)) return;
    seen.add(e);
    const asked = unrecordedRequest(e);
    if (asked !== undefined) {
      unrecorded.push(asked);
      return;
    }
    const status = e.response?.status ?? 0;
    const standsOut = status < 200 || status > 299 || !!e.retries?.length || e.resent !== undefined;
    if (usual + unusual < EVIDENCE_MAX) usual++;
    else if (standsOut && unusual < EVIDENCE_MAX) unusual++;
    else {
      omitted++;
      leftOut.add(e);
      return;
    }
    evidence.push(e);
  };
  // What the check said its answers show (CheckContext.shows); an exchange that shows the finding is kept whatever
  // the bounds above left out (up to EVIDENCE_MAX more), so the report always holds it.
  const marks = new WeakMap<Exchange, Shows>();
  let findingsKept = 0;
  const shows = (e: Exchange, what: Shows): void => {
    if (marks.get(e) === 'finding') return;
    marks.set(e, what);
    if (what !== 'finding' || !leftOut.has(e) || findingsKept >= EVIDENCE_MAX) return;
    leftOut.delete(e);
    findingsKept++;
    omitted--;
    evidence.push(e);
  };
  const notes: string[] = [];
  let notesLeftOut = 0;
  let observation: string | undefined;
  let fuzz: FuzzFailure | undefined;
  let fingerprints: readonly string[] = [];
  let sampled: string | undefined;
  const redactor = shared.client.redactor;

  const api = shared.view(
    record,
    check.id,
    (text) => {
      sampled = sampled ? `${sampled}; ${text}` : text;
    },
    (text) => {
      if (!notes.includes(text)) notes.push(text);
    },
    check.mintsTokens === true,
  );
  const ctx: CheckContext = {
    config: shared.config,
    api,
    send: (spec) => api.send(spec),
    fail(message, keys) {
      throw new CheckFailure(message, keys);
    },
    note(text) {
      if (notes.length < NOTES_MAX) notes.push(text);
      else notesLeftOut++;
    },
    observe(text) {
      observation = text;
    },
    secret(value, kind = 'altered-token') {
      // A derived token or key (a part of the real one, or the real one respelled) is a secret whole; in a replay
      // it is derived from a recording's stand-in (core/session/har.ts), which is no secret (and parts of it are words).
      if (kind !== 'altered-token') return shared.client.holds ? undefined : redactor.add(value, kind);
      // The altered token shares all but one character with the real one: what they share is a secret as well
      // (a server that echoes the altered token with its odd character stripped would otherwise show it).
      redactor.add(value, 'altered-token');
      redactor.add(value.slice(0, -1), 'altered-token');
    },
    setFuzz(f) {
      fuzz = f;
    },
    shows(reply, what) {
      shows(reply.exchange, what);
    },
  };

  const fit = (text: string, max: number): string =>
    capText(redactor.redactMessage(text.length > max + CUT_MARGIN ? text.slice(0, max + CUT_MARGIN) : text), max);
  const done = (status: CheckResult['status'], message: string): CheckResult => ({
    status,
    message: fit(message, MESSAGE_CHARS),
    evidence: evidenceOf(status, fit(message, MESSAGE_CHARS)),
    notes: [
      ...notes,
      ...transportNotes(evidence),
      ...(notesLeftOut ? [`${notesLeftOut} more notes left out (the first ${NOTES_MAX} are kept)`] : []),
      ...(omitted
        ? [
            `evidence: ${evidence.length} of ${evidence.length + omitted} exchanges kept (the first ${EVIDENCE_MAX}, then those without a 2xx answer${findingsKept ? `, then ${findingsKept} more that show the finding` : ''})`,
          ]
        : []),
    ].map((n) => fit(n, NOTE_CHARS)),
    ...(observation !== undefined ? { observation: fit(observation, MESSAGE_CHARS) } : {}),
    ...(fuzz ? { fuzz: redactor.redactDeep(fuzz) } : {}),
    ...(status === 'failed'
      ? {
          fingerprints: (fingerprints.length ? [...new Set(fingerprints)].sort() : [check.id]).map((f) =>
            redactor.redactMessage(f),
          ),
        }
      : {}),
    ...(sampled !== undefined && status !== 'skipped' ? { sampled: redactor.redact(sampled) } : {}),
    duration_ms: Math.round(performance.now() - started),
  });

  // Exchanges are recorded raw: the ones kept are redacted here, with every secret known by now. Those of a failed
  // check say what they show: as the check marked them, else as its message names them (inferredShows).
  function evidenceOf(status: CheckResult['status'], message: string): Evidence[] {
    const shown = evidence.map((e) => reportable(e, redactor));
    if (status !== 'failed') return shown;
    const marked = evidence.map((e) => marks.get(e));
    // A check's own word wins: an answer it judged correct stays so whatever its message names.
    const what = marked.includes('finding')
      ? marked
      : inferredShows(shown, message, basePathOf(shared.config.base_url)).map((w, i) => marked[i] ?? w);
    return shown.map((e, i) => (what[i] ? { ...e, shows: what[i] } : e));
  }

  const unmet = unmetRequirement(check, shared.config);
  if (unmet) return { ...done('skipped', unmet.why), unmet: unmet.requirement };
  const result = await judged();
  // A finding in recorded answers stands; anything else, with a request the recording lacked, judged nothing whole.
  if (unrecorded.length && result.status !== 'failed' && result.status !== 'error') {
    const more = unrecorded.length > 1 ? ` (and ${unrecorded.length - 1} more)` : '';
    return done('skipped', `not in the recording: ${unrecorded[0]!}${more}`);
  }
  return result;

  async function judged(): Promise<CheckResult> {
    try {
      await check.run(ctx);
      return done('passed', observation ?? 'as the spec requires');
    } catch (e) {
      if (e instanceof Blocked) return done('skipped', `blocked: ${e.message}`);
      // No usable response (a timeout, a broken connection, the run's deadline): nothing was judged. The spec sets no
      // time limit, so this is never the server's failure; the check is incomplete.
      if (e instanceof NetworkError) return done('incomplete', `could not finish: ${e.message}`);
      if (e instanceof CheckFailure) {
        // INFO checks record, they never fail: what went wrong is what the server did.
        if (check.level === 'INFO') return done('passed', observation ?? e.message);
        fingerprints = e.fingerprints;
        return done('failed', e.message);
      }
      // One line and where it happened, no stack trace (CONFORMANCE_DEBUG=1 keeps the stack for us).
      const err = e as Error;
      const at = /\(?((?:file:\/\/)?[^()\s]+:\d+:\d+)\)?$/m
        .exec(err?.stack?.split('\n')[1] ?? '')?.[1]
        ?.replace(/^.*\/(dist\/)?/, '');
      const detail = process.env.CONFORMANCE_DEBUG ? ` | ${err?.stack?.split('\n').slice(1, 6).join(' | ')}` : '';
      return done(
        'error',
        `internal error of the suite: ${err?.message?.split('\n')[0] ?? String(e)}${at ? ` (at ${at})` : ''}${detail}`,
      );
    } finally {
      api.ended();
      shared.finished(check.id);
    }
  }
}
