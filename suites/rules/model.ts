/**
 * The rule matrix's model (issue 27, "Deliver" 1): for every rule of the spec, the ways a server can break it, the
 * places (endpoints, the path variants a router may treat alike, HEAD) and the applications, and for each cell the
 * checks that probe it and the mutants of the reference server that prove it, or why it is not probed.
 *
 * Checks are named by id and mutants and variants by name, as strings: the mutants and variants live in reference/,
 * which this layer may not import. test/rules.test.ts holds every name against ALL_CHECKS, MUTANTS and
 * LATITUDE_VARIANTS, and every mutant against the checks its cell names.
 */

/** The ways a server can break a rule (issue 27's list). */
export const WAYS = [
  'absent',
  'wrong value',
  'wrong type',
  'wrong place or carrier',
  'partial or prefix match',
  'case',
  'whitespace or encoding',
  "another application's or merchant's value",
  'stale value',
] as const;
/** One of {@link WAYS}. */
export type Way = (typeof WAYS)[number];

/** The configured applications (config app, other_app, disabled_app). */
export const APPS = ['app', 'other_app', 'disabled_app'] as const;
/** One of {@link APPS}. */
export type App = (typeof APPS)[number];

/** A request target or a member of an answer, as "GET /dishes/:id" or "GET /orders (dishes[].pivot)". */
export type Place = string;

/** A check that probes a cell, the mutants that prove it does, or why no mutant does. */
export interface Proof {
  check: string;
  mutants: string[];
  /** Why no mutant proves it: required when `mutants` is empty. */
  unproven?: string;
}

/** What the suite does about a cell. */
export type Outcome =
  | {
      kind: 'probed';
      by: Proof[];
      /** When it is probed, if not in every run ("with other_app", "with unsafe_methods"). */
      scope?: string;
      /**
       * How a covering design probes it, when this cell's own request is not sent in every run: the way is sent
       * at this place from another application's credentials, and from this application's at other places
       * (support/token-probes.ts appFor).
       */
      via?: string;
    }
  | { kind: 'not probed'; why: string }
  | {
      /** No rule applies here: a quoted sentence of the spec or of an RFC says so, and why it follows. */
      kind: 'not applicable';
      quote: string;
      source: string;
      why: string;
    };

/** One way of breaking a rule (`how` says it concretely), and its outcome by place and application. */
export interface WaySpec {
  way: Way;
  how: string;
  /** Outcomes; the first whose places and apps hold the cell wins (an entry without them holds every cell). */
  at: Array<{ places?: readonly Place[]; apps?: readonly App[]; outcome: Outcome }>;
  /** The places of this way, when not the rule's. */
  places?: readonly Place[];
}

/** A reading the spec allows, beside the rule: the conforming variant of the reference server that proves it passes. */
export interface Latitude {
  reading: string;
  variants: string[];
}

/** A rule of the spec and every way the matrix knows to break it. */
export interface Rule {
  id: string;
  /** The table of docs/rules.md it is listed in ("§2.2 dish"). */
  group: string;
  text: string;
  level: 'MUST' | 'SHOULD';
  places: readonly Place[];
  apps: readonly App[];
  /** Why an application is not among `apps`, when one is left out. */
  appsNote?: string;
  ways: WaySpec[];
  latitude: Latitude[];
}

/** One cell of the matrix: a rule broken one way, at one place, for one application. */
export interface Cell {
  rule: string;
  way: Way;
  how: string;
  place: Place;
  app: App;
  /** Undefined when no entry of the way holds the cell: a hole test/rules.test.ts reports. */
  outcome: Outcome | undefined;
}

/** Every cell of a rule: its ways × places × applications. */
export function cellsOf(rule: Rule): Cell[] {
  return rule.ways.flatMap((w) =>
    (w.places ?? rule.places).flatMap((place) =>
      rule.apps.map((app) => ({
        rule: rule.id,
        way: w.way,
        how: w.how,
        place,
        app,
        outcome: w.at.find((a) => (!a.places || a.places.includes(place)) && (!a.apps || a.apps.includes(app)))
          ?.outcome,
      })),
    ),
  );
}

/** A check's proof by these mutants. */
export const by = (check: string, ...mutants: string[]): Proof => ({ check, mutants });

/** A check that probes a cell no mutant proves, and why none does. */
export const unproven = (check: string, why: string): Proof => ({ check, mutants: [], unproven: why });

/** Probed in every run by these checks. */
export const probed = (...by: Proof[]): Outcome => ({ kind: 'probed', by });

/** Probed only in some runs (`scope` says which). */
export const probedWhen = (scope: string, ...by: Proof[]): Outcome => ({ kind: 'probed', by, scope });

/** Not probed, and why. */
export const notProbed = (why: string): Outcome => ({ kind: 'not probed', why });

/** Not applicable, by a sentence of the spec or an RFC (quoted as written, with where it is) and why it follows. */
export const notApplicable = (source: string, quote: string, why: string): Outcome => ({
  kind: 'not applicable',
  source,
  quote,
  why,
});

/** Probed in every run through a covering design (`via` says how). */
export const probedVia = (via: string, ...by: Proof[]): Outcome => ({ kind: 'probed', by, via });

/** An outcome for these places (and applications, when given). */
export const at = (
  places: readonly Place[] | undefined,
  apps: readonly App[] | undefined,
  outcome: Outcome,
): WaySpec['at'][number] => ({ ...(places ? { places } : {}), ...(apps ? { apps } : {}), outcome });

/** Shared reasons, each said the same way wherever it holds. */
export const WHY = {
  noRecords: 'a disabled application is refused (§5.5): no answer carries its records',
  notThisWay: 'nothing in the spec can be broken this way here',
} as const;
