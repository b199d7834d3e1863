import type { Config } from '../config/config.js';
import type { Reply, RequestSpec } from '../transport/exchange.js';
import type { Api } from '../session/api.js';
import type { Sweep } from '../spec/resources.js';
import { CREDENTIALS } from '../spec/auth-scheme.js';
import type { Evidence, Shows } from './findings.js';

/** How much a rule weighs: MUST (field tables, numbered rules: gates), SHOULD (warns), INFO (observes). */
export type Level = 'MUST' | 'SHOULD' | 'INFO';

/** Areas in the order a vendor would fix things; reports group and sort by them. */
export const AREAS = [
  'auth',
  'envelope',
  'merchant',
  'dishes',
  'seats',
  'orders',
  'consistency',
  'isolation',
  'errors',
  'readonly',
  'fuzz',
  'transport',
] as const;
/** The spec area a check belongs to (one of AREAS). */
export type Area = (typeof AREAS)[number];

/** What a check needs beyond the application's own key pair; without it the check is skipped, visibly. */
export type Requirement =
  'other_app' | 'disabled_app_keys' | 'disabled_app_token' | 'unsafe_methods' | 'https' | 'fuzz';

/** What a requirement asks of the user, in the config's own words ("needs disabled_app.secret and …"). */
export const REQUIREMENT_WORDS: Record<Requirement, string> = {
  other_app: 'other_app',
  disabled_app_keys: `${CREDENTIALS.disabled_app.secret.key} and ${CREDENTIALS.disabled_app.key.key}`,
  disabled_app_token: CREDENTIALS.disabled_app.token.key,
  unsafe_methods: 'unsafe_methods: true',
  https: 'an https:// base_url',
  fuzz: 'fuzz.runs above 0',
};

/**
 * How a check ended, before any baseline: passed; failed (the server broke the rule); skipped (not configured, not
 * applicable, or blocked by another check's finding); incomplete (it could not finish: no usable response, the run's
 * deadline, an interruption; the spec sets no time limit, so this is never the server's failure); error (the suite
 * itself broke).
 */
export type Status = 'passed' | 'failed' | 'skipped' | 'incomplete' | 'error';

/** The smallest generated case a fuzz check failed on, with the seed and path that replay it. */
export interface FuzzFailure {
  seed: number;
  path: string;
  counterexample: string;
  shrinks: number;
  replay: string;
}

/** What one check concluded, with the evidence behind it, before the baseline and the outcome model apply. */
export interface CheckResult {
  status: Status;
  message: string;
  /** The exchanges kept, each of a failed check marked with what it shows (core/model/findings.ts). */
  evidence: Evidence[];
  /** INFO remarks that never fail: extra fields, what the server chose where the spec leaves latitude. */
  notes: string[];
  /** For INFO checks: what the server did (the implementation profile). */
  observation?: string;
  /** For failed checks: stable keys of what failed (records, fields, endpoints); baselines match on them. */
  fingerprints?: string[];
  /** Set when the check judged a seeded sample rather than every record: what it left out. */
  sampled?: string;
  /** Skipped for want of configuration: the requirement that was not met (the run's coverage names it). */
  unmet?: Requirement;
  fuzz?: FuzzFailure;
  duration_ms: number;
  /**
   * When the check started, in ms since the run's checks began (set by the engine). With duration_ms it places the
   * check on the run's clock: JUnit's suite times are the wall span of their checks. Absent for a check that never
   * started, and in reports of versions before it.
   */
  start_ms?: number;
}

/**
 * Everything a check's run function gets: the configuration, the shared requests, its own requests and its verdicts.
 */
export interface CheckContext {
  readonly config: Config;
  /** Shared, memoized requests of the run (the token, lists, details); their exchanges join this check's evidence. */
  readonly api: Api;
  /** A fresh request of this check's own, recorded as evidence. */
  send(spec: RequestSpec): Promise<Reply>;
  /**
   * Ends the check as failed: say what was expected and what came. fingerprints name what failed (see
   * core/model/findings.ts); without them the check as a whole is the fingerprint.
   */
  fail(message: string, fingerprints?: readonly string[]): never;
  note(text: string): void;
  /** Records what the server did (INFO checks); the last one is the check's message. */
  observe(text: string): void;
  /** Registers a derived secret (the real token with its last character changed) so no report shows it. */
  secret(value: string, kind?: 'altered-token' | 'derived-token' | 'derived-key' | 'derived-public-key'): void;
  setFuzz(f: FuzzFailure): void;
  /**
   * Says what an answer shows should the check fail: the finding (it broke the rule), or a correct answer judged
   * beside it. The reports show the finding's exchanges first, unfolded, and label the correct ones; a mark of
   * 'finding' stays. A failed check that marks none has its evidence marked from its message (inferredShows).
   */
  shows(reply: Reply, what: Shows): void;
}

/** One check: its declaration (id, level, title, the spec sections it cites, what it needs) and its run function. */
export interface Check {
  id: string;
  title: string;
  level: Level;
  /** Spec sections, e.g. "§5.4, §7". */
  spec: string;
  area: Area;
  requires?: Requirement[];
  /**
   * The details this check reads through api.details, named as `<resource>:<application>`, e.g.
   * `reads: ['dishes:app']` for every dish detail with app's token. The run sends each detail once and keeps its
   * reply only until every check that names it has read it (a large merchant has 40,000 details).
   */
  reads?: Sweep[];
  /**
   * Calls /auth with a configured application's keys, so a server may issue a token (a broken one even for wrong
   * keys) and, since token lifetime is not shown (§5.6), end the run's earlier one. Such checks start with the run,
   * but the engine sends their /auth requests (api.send to /auth) only after every other check has ended, so they never
   * change what another check relies on; then they call /auth all at once.
   */
  mintsTokens?: boolean;
  run(ctx: CheckContext): Promise<void>;
}

/** A check as its area's file declares it: everything but the area, which defineChecks adds. */
export type CheckDeclaration = Omit<Check, 'area'>;

/** Declares an area's checks: each declaration gets the area, nothing else is added or changed. */
export function defineChecks(area: Area, checks: CheckDeclaration[]): Check[] {
  return checks.map((c) => ({ ...c, area }));
}
