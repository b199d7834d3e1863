import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  APPS,
  cellsOf,
  matrixCounts,
  RULES,
  type App,
  type Cell,
  type Outcome,
  type Rule,
} from '../suites/rules/index.js';
import { NAMED_PLACES } from '../suites/rules/places.js';
import { sentenceMapMarkdown } from '../suites/rules/sentences.js';

/**
 * docs/rules.md, written from the rule matrix (suites/rules/) by `npm run rules`; test/rules.test.ts compares it and
 * never writes it. Each section is one table: a row per rule, way of breaking it and outcome, with the places and
 * applications that share that outcome.
 */

/** The file the matrix is written to, relative to the package root. */
export const RULES_DOC = 'docs/rules.md';

/** Text for a Markdown table cell: no pipe or line break of its own. */
const cellText = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Places as a reader names them: a named set (every data endpoint …) where the list holds all of it. */
function placesText(places: readonly string[]): string {
  let left = [...places];
  const out: string[] = [];
  for (const named of NAMED_PLACES) {
    if (named.places.length < 2 || !named.places.every((p) => left.includes(p))) continue;
    out.push(named.label);
    left = left.filter((p) => !named.places.includes(p));
  }
  return [...out, ...left].join(', ');
}

const appsText = (apps: readonly App[]): string =>
  apps.length === APPS.length ? 'every application' : apps.join(', ');

/** Where and for whom, for a set of cells sharing one outcome: places grouped by the applications they hold. */
function whereText(cells: readonly Cell[], rule: Rule): string {
  const appsOf = new Map<string, App[]>();
  for (const c of cells) appsOf.set(c.place, [...(appsOf.get(c.place) ?? []), c.app]);
  const byApps = new Map<string, string[]>();
  for (const [place, apps] of appsOf) {
    const key = apps.join(', ');
    byApps.set(key, [...(byApps.get(key) ?? []), place]);
  }
  return [...byApps]
    .map(([apps, places]) => {
      const who = apps.split(', ') as App[];
      const whom = who.length === rule.apps.length && rule.apps.length > 1 ? appsText(rule.apps) : who.join(', ');
      return `${placesText(places)} — ${whom}`;
    })
    .join('; ');
}

/**
 * An outcome with each endpoint's own UNAUTH check and no-token-check mutant written as one: the six endpoints'
 * cells then share a line ("UNAUTH-* (each endpoint's own)"), while the matrix still holds each exactly.
 */
const template = (o: Outcome | undefined): string =>
  JSON.stringify(o ?? null)
    .replace(/UNAUTH-[A-Z]+/g, 'UNAUTH-*')
    .replace(/no-token-check-[a-z]+/g, 'no-token-check-*');

/** The notes of one section: each long reason written once, referred to by number. */
class Notes {
  private readonly numbers = new Map<string, number>();
  ref(text: string): string {
    let n = this.numbers.get(text);
    if (n === undefined) this.numbers.set(text, (n = this.numbers.size + 1));
    return `[${n}]`;
  }
  markdown(): string[] {
    return [...this.numbers].map(([text, n]) => `${n}. ${text}`);
  }
}

/** A check's proof: its mutants, or a note saying why none proves it. */
function proofText(o: Extract<Outcome, { kind: 'probed' }>, notes: Notes, merged: boolean): string {
  const own = merged ? " (each endpoint's own)" : '';
  const proofs = o.by.map((p) =>
    p.mutants.length
      ? `${p.check}${own} (${p.mutants.map((m) => `\`${m}\``).join(', ')})`
      : `${p.check}${own} (no mutant ${notes.ref(p.unproven ?? '')})`,
  );
  const scope = [o.scope, o.via].filter(Boolean).join('; ');
  return `${scope ? `*${scope}:* ` : ''}${proofs.join(', ')}`;
}

function latitudeText(rule: Rule): string {
  if (!rule.latitude.length) return '';
  const items = rule.latitude.map(
    (l) => `${l.reading} (${l.variants.length ? l.variants.map((v) => `\`${v}\``).join(', ') : 'no variant yet'})`,
  );
  return `<br>*Allowed:* ${items.join('; ')}`;
}

/** The rows of one rule: one per way of breaking it, its cells grouped by outcome. */
function ruleRows(rule: Rule, notes: Notes, appsNoteSaid: boolean): string[] {
  const cells = cellsOf(rule);
  return rule.ways.map((w, i) => {
    const groups = new Map<string, Cell[]>();
    for (const c of cells.filter((c) => c.way === w.way && c.how === w.how)) {
      const key = template(c.outcome);
      groups.set(key, [...(groups.get(key) ?? []), c]);
    }
    const probed: string[] = [];
    const not: string[] = [];
    for (const group of groups.values()) {
      const o = group[0]!.outcome;
      const where = whereText(group, rule);
      const merged = new Set(group.map((c) => JSON.stringify(c.outcome))).size > 1;
      if (!o) not.push(`${where}: **no outcome, a hole in the matrix**`);
      else if (o.kind === 'probed')
        probed.push(`${where}: ${proofText(merged ? (JSON.parse(template(o)) as typeof o) : o, notes, merged)}`);
      else if (o.kind === 'not probed') not.push(`${where}: ${notes.ref(o.why)}`);
      else not.push(`${where}: *not applicable* ${notes.ref(`${o.source}: “${o.quote}” — ${o.why}`)}`);
    }
    const ruleCell =
      i === 0
        ? `**${rule.id}** ${rule.text}${rule.level === 'MUST' ? '' : ` (${rule.level})`}${rule.appsNote && !appsNoteSaid ? `<br>*Left out:* ${rule.appsNote}` : ''}${latitudeText(rule)}`
        : '';
    return `| ${[ruleCell, `${w.way}: ${w.how}`, probed.join('<br>'), not.join('<br>')].map(cellText).join(' | ')} |`;
  });
}

/** docs/rules.md as the matrix generates it. */
export function rulesMarkdown(): string {
  const groups = [...new Set(RULES.map((r) => r.group))];
  const total = matrixCounts();
  const countRow = (name: string, cells: readonly Cell[]): string => {
    const n = matrixCounts(cells);
    return `| ${name} | ${n.rules} | ${n.cells} | ${n.cells - n.notApplicable} | ${n.probed} | ${n.proven} | ${n.notProbed} | ${n.notApplicable} |`;
  };
  const out = [
    '# Every rule, every way to break it',
    '',
    '<!-- Generated from suites/rules/ by `npm run rules`; do not edit by hand (test/rules.test.ts compares it). -->',
    '',
    'For every rule of the spec (each numbered rule of §4 and §5, the common rules, §1, the envelope of §2.1, the',
    'errors of §7, and every row of §2’s field tables, a rule at MUST), the ways a server can break it, at every place',
    '(each endpoint; the path variants a router may treat alike; HEAD where GET is defined; the members of an answer',
    'that carry a record) and for every configured application (`app`, `other_app`, `disabled_app`). Each cell says',
    'which check probes it and which mutant of the reference server proves the check catches it',
    '(`reference/mutants/*`, run by `test/mutants.test.ts`), or why no mutant does, or why the cell is not probed at',
    'all: those are the gaps. *Allowed* beside a rule is the latitude the spec leaves, with the conforming variant that',
    'proves a server using it passes (`reference/variants.ts`, run by `test/latitude.test.ts`).',
    '',
    'Only the ways that apply to a rule are listed (a name can be no wrong value when the spec fixes none); the path',
    'variants and HEAD are places of the token rule, where a router that serves an alias can skip the check. A scope in',
    'italics says in which runs a cell is probed, when not in every run. A cell is *not applicable* only by a sentence',
    'of the spec or of an RFC, quoted in its note; every other cell is probed, or a gap that says why not. A run is',
    'CONFORMANT only when it probed every applicable cell: a gap counts as a cell it did not probe (PARTIAL).',
    '',
    'The token rule (§4 rule 4, §5.4) is probed in every run by a covering design (`suites/support/token-probes.ts`,',
    '`appFor`): every way is sent at every place (each data endpoint and each of its path variants), so every way ×',
    'place pair is probed; each time the wrong token is derived from one configured application’s credentials, the',
    'application turning with the place, so every way × application pair is probed too (each application takes',
    'each way at two of the six endpoints, and at one or more of the five places of every endpoint). A cell whose',
    'own request goes out from another application’s credentials says so (*covering design*): a defect confined to',
    'one application at one place only is not guaranteed to be met. fast-check draws the generated values (one per',
    'way and place in a default run); `--fuzz-runs` raises only how many it draws, never which cells are probed.',
    '',
    '| section | rules | cells | applicable | probed | proven by a mutant | not probed | not applicable |',
    '|---|---|---|---|---|---|---|---|',
    ...groups.map((g) => countRow(g, RULES.filter((r) => r.group === g).flatMap(cellsOf))),
    `| **all** | ${total.rules} | ${total.cells} | ${total.cells - total.notApplicable} | ${total.probed} | ${total.proven} | ${total.notProbed} | ${total.notApplicable} |`,
    '',
  ];
  for (const g of groups) {
    const notes = new Notes();
    out.push(
      `## ${g}`,
      '',
      '| rule | way to break it | probed: where — for whom: check (mutants that prove it) | not probed or not applicable: where — for whom: [why] |',
      '|---|---|---|---|',
    );
    // An application left out for the same reason as the rule above is said once, at the first.
    let said: string | undefined;
    for (const rule of RULES.filter((r) => r.group === g)) {
      out.push(...ruleRows(rule, notes, rule.appsNote === said));
      said = rule.appsNote;
    }
    out.push('', ...notes.markdown(), '');
  }
  out.push(...sentenceMapMarkdown());
  return out.join('\n');
}

/** Writes docs/rules.md from the matrix (`npm run rules`); true when it changed. */
export function writeRulesDoc(root: string): boolean {
  const path = join(root, RULES_DOC);
  const text = rulesMarkdown();
  let old: string | undefined;
  try {
    old = readFileSync(path, 'utf8');
  } catch {
    old = undefined;
  }
  if (old === text) return false;
  writeFileSync(path, text);
  return true;
}
