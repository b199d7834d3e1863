import { counted, grouped } from '../core/base/counted.js';
import { naturalOrder } from '../core/base/natural-order.js';
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../core/base/atomic-file.js';
import { join } from 'node:path';
import { AREAS, type Level } from '../core/model/check.js';
import {
  findingsOf,
  isObservation,
  judgedCounts,
  OUTCOME_ORDER,
  OUTCOMES,
  unfinishedOf,
  VERDICT_WORD,
  type CheckRecord,
  type Counts,
  type Outcome,
  type Report,
  type Verdict,
} from '../core/model/report.js';
import {
  credentialSteps,
  curlCommand,
  curlOptionsOf,
  markedEvidence,
  prettyBody,
  SHOWS_LABEL,
  sizeNote,
  type CurlOptions,
} from './evidence.js';
import type { Evidence } from '../core/model/findings.js';
import { citedKeys, shippedSections } from '../core/spec/spec-text.js';
import { html, trusted, type Html } from './html-escape.js';

/**
 * report.html: one self-contained file (no external script, style, font or image) a vendor can open offline or
 * forward. A Content-Security-Policy allows exactly our inline style and script, by hash: even if server data
 * ever escaped its escaping, a browser would run none of it. Evidence is shown for findings only (passed checks'
 * evidence is in report.json), and long exchange lists are cut, so thousands of exchanges still open fast.
 */

/**
 * The badge colour of each verdict (a Record: every verdict has one). Green is CONFORMANT's alone: a run the baseline
 * gated green is still red, as NOT CONFORMANT is.
 */
const VERDICT_COLOUR: Record<Verdict, 'pass' | 'warn' | 'fail' | 'err'> = {
  conformant: 'pass',
  partial: 'warn',
  'known failures': 'fail',
  'not conformant': 'fail',
  incomplete: 'err',
  'nothing judged': 'err',
};
const verdictClass = (v: Verdict): string => v.replace(/ /g, '-');

const STYLE = `
:root{--info:#0e7490;--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--skip:#6e7781;--err:#8250df;--known:#0969da;--bg:#fff;--fg:#1f2328;--mute:#59636e;--line:#d1d9e0;--code:#f6f8fa;--note-bg:#ddf4ff;--mark:#fff8c5;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--info:#22b5d3;--pass:#3fb950;--fail:#f85149;--warn:#d29922;--skip:#8b949e;--err:#a371f7;--known:#58a6ff;--bg:#0d1117;--fg:#e6edf3;--mute:#9198a1;--line:#3d444d;--code:#151b23;--note-bg:#0c2d6b;--mark:#3b2e00}}
a{color:var(--known)}
*{box-sizing:border-box}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px;text-transform:capitalize}
code,pre{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-all;margin:4px 0}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0 0}.meta dt{color:var(--mute)}.meta dd{margin:0;word-break:break-all}
.verdict{display:inline-block;font-weight:700;font-size:18px;padding:6px 14px;border-radius:6px;color:#fff;margin:12px 0}
${(Object.keys(VERDICT_COLOUR) as Verdict[]).map((v) => `.verdict.${verdictClass(v)}{background:var(--${VERDICT_COLOUR[v]})}`).join('')}
table{border-collapse:collapse;margin:6px 0}th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
th{color:var(--mute);font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:block;width:260px;height:12px}
.toolbar{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding:8px 0;z-index:1;display:flex;gap:18px;align-items:center}
.check{border:1px solid var(--line);border-left:5px solid var(--skip);border-radius:6px;padding:8px 12px;margin:8px 0}
.check.passed{border-left-color:var(--pass)}.check.passed.INFO{border-left-color:var(--info)}
.check,section.area,h2{scroll-margin-top:64px}
.check.failed,.check.stale,.check.expired{border-left-color:var(--fail)}.check.warned{border-left-color:var(--warn)}
.check.error,.check.incomplete{border-left-color:var(--err)}.check.known{border-left-color:var(--known)}
.head{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}.title{font-weight:600}
.badge{display:inline-block;min-width:54px;text-align:center;font-weight:700;font-size:12px;padding:1px 6px;border-radius:4px;color:#fff;background:var(--skip)}
.badge.PASS{background:var(--pass)}.badge.INFO{background:var(--info)}.badge.FAIL,.badge.STALE,.badge.EXPIRED{background:var(--fail)}.badge.WARN{background:var(--warn)}.badge.ERROR,.badge.INCOMPLETE{background:var(--err)}.badge.KNOWN{background:var(--known)}
.lvl{font-size:12px;border:1px solid var(--line);border-radius:4px;padding:0 5px;color:var(--mute)}.spec{color:var(--mute)}
.msg{margin:4px 0;white-space:pre-wrap;word-break:break-word}.note{color:var(--mute)}
.baseline{background:var(--note-bg);border-radius:4px;padding:2px 8px;margin:4px 0}
details.ex.shows-finding{border-color:var(--fail)}.shows-finding .shows{color:var(--fail);font-weight:600}.shows-correct .shows{color:var(--pass)}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:center}.filters select,.filters input{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:2px 6px}
.hidden{display:none!important}
.spec a{color:inherit}.spec-text{white-space:pre-wrap}
pre.curl{overflow-wrap:anywhere;word-break:normal}
details.cells,details.found{margin:6px 0}details.cells summary,details.found summary{cursor:pointer}.found-items{word-break:break-word;margin:4px 0}td.id{white-space:nowrap}table.rules tr.part td:first-child{font-weight:600}
@media print{.toolbar,#failures-only{display:none}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}pre{max-height:24em;overflow:hidden}
.check{break-inside:avoid-page}body{font-size:11px}main{max-width:none;padding:0}
.check:not(.finding){padding:0 8px;margin:2px 0;border-width:0 0 0 4px;border-radius:0}.check:not(.finding) .msg,.check:not(.finding) ul.note,.check:not(.finding) .evidence{display:none}
.finding details.ex:not([open]),#spec details:not([open]),details.config,table.rules tr.full{display:none}.spec-text{font-size:10px}}
details.ex{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}details.ex>summary{cursor:pointer;word-break:break-all}
.ex h4{margin:8px 0 2px;font-size:13px}.ex table{font-size:12.5px}.ex td:first-child{color:var(--mute);white-space:nowrap}.ex td{word-break:break-all}
.failures-only .check:not(.finding),.failures-only .area:not(.has-finding){display:none}
#no-findings{display:none}.failures-only #no-findings{display:block}
footer{margin-top:40px;color:var(--mute);font-size:12px}
`;

/**
 * The failures-only switch toggles one class (the stylesheet hides); the filters by level, area, outcome and text
 * mark the cards that do not match. Print shows the exchanges unfolded (those that show a finding, the first few of
 * each card): a finding with many such exchanges still prints in a few pages, the rest are in report.json.
 */
const SCRIPT = `(function(){var d=document,b=d.body;
d.getElementById('failures-only').addEventListener('change',function(e){b.classList.toggle('failures-only',e.target.checked);});
var f=['f-level','f-area','f-outcome'].map(function(i){return d.getElementById(i);}),q=d.getElementById('f-text'),cards=d.querySelectorAll('article.check');
function apply(){var t=q.value.toLowerCase();cards.forEach(function(c){var ok=f.every(function(s){return !s.value||c.getAttribute('data-'+s.id.slice(2))===s.value;})&&(!t||c.textContent.toLowerCase().indexOf(t)>=0);c.classList.toggle('hidden',!ok);});}
f.forEach(function(s){s.addEventListener('change',apply);});q.addEventListener('input',apply);})();`;

const sha256 = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const CSP = `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'`;

const COLORS: Record<Outcome, string> = {
  passed: '#1a7f37',
  failed: '#cf222e',
  stale: '#cf222e',
  expired: '#cf222e',
  warned: '#9a6700',
  known: '#0969da',
  skipped: '#afb8c1',
  incomplete: '#8250df',
  error: '#8250df',
};

const INFO_COLOR = '#0e7490';

const countsText = (c: Counts): string =>
  OUTCOME_ORDER.filter((o) => c[o])
    .map((o) => `${c[o]} ${o}`)
    .join(', ');

/**
 * A stacked bar of the outcomes and the observations (INFO) as inline SVG (presentation attributes, so the CSP needs
 * no inline styles).
 */
function bar(c: Counts, observed = 0): Html {
  const parts: Array<[string, number, string]> = [
    ...OUTCOME_ORDER.map((o): [string, number, string] => [o, c[o], COLORS[o]]),
    ['INFO', observed, INFO_COLOR] as [string, number, string],
  ].filter(([, n]) => n > 0);
  const total = parts.reduce((t, [, n]) => t + n, 0) || 1;
  let x = 0;
  const rects = parts.map(([label, n, colour]) => {
    const w = (n / total) * 100;
    const r = html`<rect x="${x.toFixed(2)}%" width="${w.toFixed(2)}%" height="12" fill="${colour}"><title>${n} ${label}</title></rect>`;
    x += w;
    return r;
  });
  const label = [countsText(c), observed ? `${observed} INFO` : ''].filter(Boolean).join(', ');
  return html`<svg class="bar" role="img" aria-label="${label}">${rects}</svg>`;
}

function levelTable(report: Report): Html {
  // Observations (INFO checks that ran) in a column of their own, as in the area table.
  const per = (['MUST', 'SHOULD', 'INFO'] as Level[]).map(
    (l) => [l, judgedCounts(report.checks.filter((c) => c.level === l))] as const,
  );
  const cols = OUTCOME_ORDER.filter((o) => per.some(([, p]) => p.counts[o]));
  const info = per.some(([, p]) => p.observed);
  const rows = per.map(
    ([l, { counts, observed }]) =>
      html`<tr><th>${l}</th>${cols.map((o) => html`<td class="n">${counts[o]}</td>`)}${info ? html`<td class="n">${observed}</td>` : ''}</tr>`,
  );
  const { known, stale, expired } = report.summary;
  const baseline =
    known + stale + expired
      ? html`<p>Baseline: ${counted(known, 'known failure')} ${known === 1 ? 'does' : 'do'} not fail the run; ${stale} stale entr${stale === 1 ? 'y' : 'ies'} and ${expired} expired entr${expired === 1 ? 'y' : 'ies'} do.</p>`
      : '';
  return html`<table><tr><th>Level</th>${cols.map((o) => html`<th>${o}</th>`)}${info ? html`<th>INFO</th>` : ''}</tr>${rows}</table>
<p class="note">MUST failures fail the run; SHOULD failures are warnings; INFO checks record what the server does and never fail; an incomplete check could not finish and judged nothing.</p>${baseline}`;
}

/** Per area, the judged outcomes and the observations (INFO checks that ran) apart: no observation counts as passed. */
function areaTable(report: Report): Html {
  const per = AREAS.filter((a) => report.summary.by_area[a]).map(
    (a) => [a, judgedCounts(report.checks.filter((c) => c.area === a))] as const,
  );
  const cols = OUTCOME_ORDER.filter((o) => per.some(([, p]) => p.counts[o]));
  const info = per.some(([, p]) => p.observed);
  const rows = per.map(
    ([a, { counts, observed }]) =>
      html`<tr><th><a href="#area-${a}">${a}</a></th><td>${bar(counts, observed)}</td>${cols.map((o) => html`<td class="n">${counts[o]}</td>`)}${info ? html`<td class="n">${observed}</td>` : ''}</tr>`,
  );
  return html`<table><tr><th>Area</th><th></th>${cols.map((o) => html`<th>${o}</th>`)}${info ? html`<th>INFO</th>` : ''}</tr>${rows}</table>`;
}

/** Characters of a finding's message in the table at the top; its card has the whole. */
const TABLE_MESSAGE_CHARS = 300;
const shortMessage = (m: string): string =>
  m.length > TABLE_MESSAGE_CHARS ? `${m.slice(0, TABLE_MESSAGE_CHARS)}… (the whole message is in its card)` : m;

/** The findings, most severe first, each a link to its card with what it found; then what did not finish. */
function findingsList(report: Report): Html | '' {
  const list = [...findingsOf(report), ...unfinishedOf(report)];
  if (!list.length) return '';
  return html`<h2>Findings</h2><table>${list.map((c) => {
    const word = OUTCOMES[c.outcome].word;
    return html`<tr><td><span class="badge ${word}">${word}</span></td><td class="id"><a href="#check-${c.id}"><code>${c.id}</code></a></td><td>${c.level}</td><td><div class="title">${c.title}</div><div class="msg">${shortMessage(c.message)}</div></td></tr>`;
  })}</table>`;
}

function headerRows(h: Record<string, string>): Html {
  return html`<table>${Object.entries(h).map(([k, v]) => html`<tr><td>${k}</td><td>${v}</td></tr>`)}</table>`;
}

function exchange(e: Evidence, open: boolean, curl: CurlOptions): Html {
  const r = e.response;
  const outcome = r ? `HTTP ${r.status}` : `no response: ${e.error ?? 'unknown error'}`;
  const response = r
    ? html`<h4>Response: HTTP ${r.status}, body ${sizeNote(r)}</h4>${headerRows(r.headers)}<pre>${prettyBody(r.body_excerpt, r.truncated).text}</pre>`
    : html`<h4>No response</h4><p class="msg">${e.error ?? 'unknown error'}</p>`;
  const label = e.shows ? html`<span class="shows">${SHOWS_LABEL[e.shows]} · </span>` : '';
  return html`<details class="ex${e.shows ? ` shows-${e.shows}` : ''}"${open ? trusted(' open') : ''}><summary>${label}<code>${e.request.method} ${e.request.url}</code> → ${outcome} <span class="note">(${e.duration_ms} ms)</span></summary>
<h4>Request</h4>${headerRows(e.request.headers)}${e.request.body !== undefined ? html`<pre class="request-body">${e.request.body}</pre>` : ''}${response}
<h4>Reproduce</h4><pre class="curl">${curlCommand(e, curl)}</pre></details>`;
}

/**
 * How many exchanges the page shows in all: past it, each further finding shows only its last exchange (the one
 * that usually failed), so a report of thousands of findings stays a few megabytes and opens fast.
 */
const PAGE_BUDGET = 1000;
const PER_CHECK = 12;
/** Exchanges that show the finding unfolded per check; the others stay folded. */
const UNFOLDED = 3;

/**
 * A check's evidence, the exchanges that show the finding first, labelled and the first few unfolded; the correct
 * answers judged beside them labelled as such (core/model/findings.ts: the check marks them).
 */
function evidence(c: CheckRecord, curl: CurlOptions, budget: { left: number }, baseUrl: string): Html | '' {
  if (!c.evidence.length) return '';
  const ordered = markedEvidence({ ...c, base_url: baseUrl });
  const max = budget.left > 0 ? Math.min(PER_CHECK, Math.max(budget.left, 1)) : 1;
  const shown = ordered.slice(0, max);
  budget.left -= shown.length;
  const omitted = ordered.length - shown.length;
  const items = shown.map((e, i) => exchange(e, e.shows === 'finding' && i < UNFOLDED, curl));
  return html`<div class="evidence">${items}${omitted ? html`<p class="note">${counted(omitted, 'more exchange')} of this check ${omitted === 1 ? 'is' : 'are'} in report.json.</p>` : ''}</div>`;
}

/**
 * Which MUST checks the run did not judge, by reason: the verdict's reason above says how many and why the word is
 * what it is; this line names them.
 */
function notJudged(report: Report): Html | '' {
  if (report.coverage.complete || !report.coverage.not_run.length) return '';
  const by = new Map<string, string[]>();
  for (const n of report.coverage.not_run) by.set(n.why, [...(by.get(n.why) ?? []), n.id]);
  return html`<p class="note" id="not-judged">MUST checks not judged: ${[...by].map(([why, ids]) => `${why}: ${ids.join(', ')}`).join('; ')}.</p>`;
}

/** The rule matrix's coverage of a run, as report.json carries it (report.coverage, when the run counted cells). */
interface CellCoverage {
  cellsApplicable: number;
  cellsProbed: number;
  rules: Array<{ rule: string; applicable: number; probed: number }>;
}

function cellsOf(report: Report): CellCoverage | undefined {
  const c = report.coverage as Partial<CellCoverage>;
  return typeof c.cellsApplicable === 'number' && typeof c.cellsProbed === 'number' && Array.isArray(c.rules)
    ? (c as CellCoverage)
    : undefined;
}

/**
 * How much of the rule matrix the run probed: cells probed of those applicable, then per rule, the rules not
 * probed in full first (print shows those only).
 */
function cellCoverage(report: Report): Html | '' {
  const cells = cellsOf(report);
  if (!cells) return '';
  const pct = (p: number, a: number): string => (a ? `${Math.floor((p / a) * 1000) / 10} %` : '—');
  const rules = [...cells.rules].sort((a, b) => a.probed / (a.applicable || 1) - b.probed / (b.applicable || 1));
  const partial = rules.filter((r) => r.probed < r.applicable).length;
  const rows = rules.map(
    (r) =>
      html`<tr class="${r.probed < r.applicable ? 'part' : 'full'}"><td>${r.rule}</td><td class="n">${grouped(r.probed)}</td><td class="n">${grouped(r.applicable)}</td><td class="n">${pct(r.probed, r.applicable)}</td></tr>`,
  );
  return html`<details class="cells" id="cell-coverage"${partial ? trusted(' open') : ''}><summary>Rule matrix: ${grouped(cells.cellsProbed)} of ${counted(cells.cellsApplicable, 'applicable cell')} probed in this run (${pct(cells.cellsProbed, cells.cellsApplicable)}); ${partial ? `${counted(partial, 'rule')} not probed in full` : `every rule probed in full`}</summary>
<table class="rules"><tr><th>Rule</th><th>probed</th><th>applicable</th><th></th></tr>${rows}</table></details>`;
}

/** Every item a failed check found, as report.json lists them (its fingerprints), when its message names a few. */
function foundItems(c: CheckRecord): Html | '' {
  const fps = c.fingerprints ?? [];
  if (!OUTCOMES[c.outcome].finding || fps.length < 2) return '';
  return html`<details class="found"${fps.length <= FOUND_UNFOLDED ? trusted(' open') : ''}><summary>${counted(fps.length, 'item')} it found (fingerprints, as report.json lists them)</summary><p class="found-items"><code>${fps.join(', ')}</code></p></details>`;
}
const FOUND_UNFOLDED = 20;

/** A check's spec reference with each § a link to the cited text in the appendix. */
function specLinks(reference: string): Html {
  const keys = citedKeys(reference);
  if (!keys.length) return html`${reference}`;
  return html`${reference} ${keys.map((k) => html`<a href="#spec-${k.replace(/\W+/g, '-')}" title="${shippedSections().get(k)?.text.slice(0, 300) ?? ''}">[${k}]</a>`)}`;
}

/** "§2.1 Response envelope"; a rule whose title is its own reference ("§4 rule 1") is named once. */
const sectionHeading = (key: string, title: string): string =>
  title === `§${key}` || title.startsWith(`§${key} `) ? title : `§${key} ${title}`;

/** The text of every section the report's checks cite, so a reader checks the rule without leaving the page. */
function specAppendix(report: Report): Html {
  const sections = shippedSections();
  const keys = [...new Set(report.checks.flatMap((c) => citedKeys(c.spec)))]
    .filter((k) => sections.has(k))
    .sort(naturalOrder);
  return html`<h2 id="spec">Spec sections cited</h2><p class="note">From the spec this version of the suite checks (shipped with it as spec/open-platform-api.md).</p>
${keys.map((k) => html`<details id="spec-${k.replace(/\W+/g, '-')}"><summary>${sectionHeading(k, sections.get(k)!.title)}</summary><div class="spec-text">${sections.get(k)!.text}</div></details>`)}`;
}

function fuzzBlock(c: CheckRecord): Html | '' {
  const f = c.fuzz;
  if (!f) return '';
  return html`<dl class="meta"><dt>fuzz seed</dt><dd><code>${f.seed}</code></dd><dt>path</dt><dd><code>${f.path}</code></dd>
<dt>counterexample</dt><dd><code>${f.counterexample}</code> (after ${f.shrinks} shrinks)</dd><dt>replay</dt><dd><pre>${f.replay}</pre></dd></dl>`;
}

function baselineBlock(c: CheckRecord): Html | '' {
  const b = c.baseline;
  if (!b) return '';
  const what =
    b.state === 'known'
      ? 'Known failure (baseline): does not fail the run.'
      : b.state === 'stale'
        ? 'Stale baseline entry: this check passes now — remove it from the baseline (it fails the run until then).'
        : b.state === 'new'
          ? `The baseline lists other failures of this check; these are new and fail the run: ${(b.new_fingerprints ?? []).join(', ')}.`
          : `Expired baseline entry (expired ${b.expires ?? ''}): counts as a new failure.`;
  return html`<p class="baseline">${what} Reason: ${b.reason}${b.expires && b.state !== 'expired' ? ` (expires ${b.expires})` : ''}</p>`;
}

/** The word of a check's badge: INFO for an observation (as the terminal says), else its outcome's word. */
const badgeWord = (c: CheckRecord): string => (isObservation(c) ? 'INFO' : OUTCOMES[c.outcome].word);

function check(c: CheckRecord, curl: CurlOptions, budget: { left: number }, baseUrl: string): Html {
  const word = badgeWord(c);
  const classes = [c.outcome, c.level, OUTCOMES[c.outcome].finding ? 'finding' : ''].filter(Boolean).join(' ');
  const showEvidence = OUTCOMES[c.outcome].finding || c.outcome === 'error' || c.outcome === 'incomplete';
  return html`<article class="check ${classes}" id="check-${c.id}" data-level="${c.level}" data-area="${c.area}" data-outcome="${c.outcome}">
<div class="head"><span class="badge ${word}">${word}</span><code>${c.id}</code><span class="lvl">${c.level}</span><span class="spec">${specLinks(c.spec)}</span><span class="title">${c.title}</span></div>
<p class="msg">${c.message}</p>${foundItems(c)}${baselineBlock(c)}${fuzzBlock(c)}
${c.notes.length ? html`<ul class="note">${c.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
${showEvidence ? evidence(c, curl, budget, baseUrl) : ''}</article>`;
}

function checksSection(report: Report, curl: CurlOptions): Html {
  const budget = { left: PAGE_BUDGET };
  const areas = AREAS.map((a) => {
    const checks = report.checks.filter((c) => c.area === a);
    if (!checks.length) return '';
    const has = checks.some((c) => OUTCOMES[c.outcome].finding) ? ' has-finding' : '';
    return html`<section class="area${trusted(has)}" id="area-${a}"><h3>${a}</h3>${checks.map((c) => check(c, curl, budget, report.target.base_url))}</section>`;
  });
  return html`${areas}`;
}

function profile(report: Report): Html {
  const info = report.checks.filter((c) => c.level === 'INFO');
  const notes = report.checks.filter((c) => c.notes.length);
  const rows = info.map(
    (c) =>
      html`<tr><td><a href="#check-${c.id}"><code>${c.id}</code></a></td><td>${c.title}</td><td class="msg">${c.observation ?? c.message}</td></tr>`,
  );
  const noteRows = notes.map(
    (c) =>
      html`<tr><td><a href="#check-${c.id}"><code>${c.id}</code></a></td><td>${c.notes.map((n) => html`<div>${n}</div>`)}</td></tr>`,
  );
  return html`<p class="note">What the server does where the spec leaves a choice or says "not shown" (INFO checks never fail).</p>
${rows.length ? html`<table><tr><th>ID</th><th>Check</th><th>Observed</th></tr>${rows}</table>` : html`<p>No INFO checks ran.</p>`}
${noteRows.length ? html`<h3>Remarks</h3><table><tr><th>Check</th><th>Remark</th></tr>${noteRows}</table>` : ''}`;
}

/**
 * Before the curl lines of the findings: how to get each credential they use (export the key pairs' variables, then
 * fetch each token), named for what it is. Only when there are findings.
 */
function reproduceBox(report: Report, curl: CurlOptions): Html | '' {
  const cards = [...findingsOf(report), ...unfinishedOf(report)];
  if (!cards.length) return '';
  const steps = credentialSteps(
    cards.flatMap((c) => c.evidence.map((e) => curlCommand(e, curl))),
    report.target.base_url,
    curl,
  );
  if (!steps.length) return '';
  return html`<p class="note">To reproduce a finding, set the credentials its curl lines use, then run them (the tokens are fetched the way the suite does, §5.2):</p>
<pre class="curl" id="reproduce">${steps.join('\n')}</pre>`;
}

/** A filter of the toolbar: every value that occurs, or all. */
function select(id: string, label: string, values: readonly string[]): Html {
  return html`<label>${label} <select id="${id}"><option value="">all</option>${values.map((v) => html`<option value="${v}">${v}</option>`)}</select></label>`;
}

/** What the HTML report links beside itself: the signed attestation of the run, when `conformance attest` wrote one. */
export interface HtmlLinks {
  /** The attestation's file name, in the report's folder. */
  attestation?: string;
}

/** report.html as text: one self-contained page under a strict Content-Security-Policy. */
export function renderHtml(report: Report, links: HtmlLinks = {}): string {
  const curl = curlOptionsOf(report);
  const findings = findingsOf(report).length;
  const harness = report.errors.length
    ? html`<h2>The run itself</h2><p>The run did not fully happen (an interruption, the deadline, a problem of the suite or its environment); none of this is the server's failure.</p><ul>${report.errors.map((e) => html`<li><pre>${e}</pre></li>`)}</ul>`
    : '';
  const doc = html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: ${report.target.base_url}</title>
<style>${trusted(STYLE)}</style></head>
<body><main>
<h1>Conformance report</h1>
<dl class="meta"><dt>Target</dt><dd><code>${report.target.base_url}</code></dd>
<dt>Date</dt><dd>${report.started_at}</dd><dt>Duration</dt><dd>${(report.duration_ms / 1000).toFixed(1)} s</dd>
<dt>Tool</dt><dd>${report.tool.name} ${report.tool.version}</dd>${report.source === 'recording' ? html`<dt>Source</dt><dd>a recording (check-har): the verdict is of the recorded exchanges; no request was sent</dd>` : html`<dt>Fuzz</dt><dd>seed ${report.fuzz.seed}, ${report.fuzz.runs} runs</dd>`}${links.attestation ? html`<dt>Attestation</dt><dd><a id="attestation" href="./${encodeURIComponent(links.attestation)}">${links.attestation}</a> (the signed verdict: <code>conformance verify ${links.attestation} --report report.json</code> with the vendor's key or CI identity checks this report against it)</dd>` : ''}</dl>
<div class="verdict ${verdictClass(report.verdict)}">${VERDICT_WORD[report.verdict]}</div>
<span class="note">exit code ${report.exit_code} · ${counted(report.checks.length, 'check')} · ${counted(findings, 'finding')}</span>
<p class="msg">${report.verdict_reason}</p>
${notJudged(report)}
${findingsList(report)}${cellCoverage(report)}
<h2>Counts per level</h2>${levelTable(report)}
<h2>Summary per area</h2>${areaTable(report)}
${harness}
<h2>Checks</h2>
<div class="toolbar filters"><label><input type="checkbox" id="failures-only"> Show failures only</label>
${select('f-level', 'level', ['MUST', 'SHOULD', 'INFO'])}${select(
    'f-area',
    'area',
    AREAS.filter((a) => report.summary.by_area[a]),
  )}${select(
    'f-outcome',
    'outcome',
    OUTCOME_ORDER.filter((o) => report.summary[o]),
  )}
<input type="search" id="f-text" placeholder="search checks" aria-label="search checks"><span class="note">${counted(findings, 'finding')} of ${counted(report.checks.length, 'check')}</span></div>
${findings ? '' : report.checks.length ? html`<p id="no-findings">No failures: every check passed, was skipped, or is an INFO observation.</p>` : html`<p id="no-findings">No check ran: ${report.verdict_reason}</p>`}
${reproduceBox(report, curl)}
${checksSection(report, curl)}
<h2 id="profile">Implementation profile</h2>${profile(report)}
${specAppendix(report)}
<details class="config"><summary>Effective configuration (credentials redacted)</summary><pre>${JSON.stringify(report.config, null, 2)}</pre></details>
<footer>${report.tool.name} ${report.tool.version} · report.json holds the full result model, including the evidence of passed checks.</footer>
</main><script>${trusted(SCRIPT)}</script></body></html>
`;
  return doc.value;
}

/** Writes report.html into the report directory and returns its path. */
export async function writeHtmlReport(report: Report, dir: string): Promise<string> {
  const file = join(dir, 'report.html');
  await writeFileAtomic(file, renderHtml(report));
  return file;
}
