import type { Exchange } from '../transport/exchange.js';

/**
 * What a failing check found, one item per thing that broke a rule, each with a fingerprint: a stable key of what
 * failed (a record, a field, an endpoint, a case), never the wording, a value that varies or the order. Baselines
 * match on fingerprints, so a baseline written for one broken record does not also accept another one.
 */
export class Findings {
  readonly items: string[] = [];
  private readonly keys = new Set<string>();
  private count = 0;

  /**
   * One finding: its text for people, and for baselines the fingerprint of each thing it names (e.g.
   * `dish:17:user_id`, `GET /dishes:query`; a record that differs in two fields is one finding with two).
   */
  add(text: string, ...fingerprints: [string, ...string[]]): void {
    // Bounded: a list of two million records may differ everywhere. The texts past FINDINGS_KEPT are only counted;
    // fingerprints past FINGERPRINTS_KEPT are left out (lists are read in their order, so the same ones are kept).
    if (this.count++ < FINDINGS_KEPT) this.items.push(text);
    for (const f of fingerprints) if (this.keys.size < FINGERPRINTS_KEPT) this.keys.add(f);
  }

  get length(): number {
    return this.count;
  }

  /** The fingerprints of every finding, sorted and without repeats (order of discovery is not stable). */
  get fingerprints(): string[] {
    return [...this.keys].sort();
  }

  /** "2 of 7 dishes differ …: first; second"; what is [one, many] when the phrase depends on the count. */
  summary(what: string | [string, string], of?: number, max = 5): string {
    const phrase = typeof what === 'string' ? what : this.count === 1 && of === undefined ? what[0] : what[1];
    return `${this.count}${of !== undefined ? ` of ${of}` : ''} ${phrase}: ${this.list(max)}`;
  }

  /** The first findings, then how many more. */
  list(max = 5): string {
    const more = this.count > max ? `; … and ${this.count - max} more` : '';
    return `${this.items.slice(0, max).join('; ')}${more}`;
  }
}

/** Findings kept as text, and fingerprints kept, per check (see Findings.add). */
const FINDINGS_KEPT = 50;
const FINGERPRINTS_KEPT = 10_000;
/** Longest id text in a fingerprint: the server chooses ids (a 5 MB one), a cut keeps the key stable and small. */
const ID_CHARS = 200;

/** A fingerprint for a record of the API: `dish:17`, `seat:21:table_number` (the id as its exact text, bounded). */
export function recordKey(kind: string, id: unknown, field?: string): string {
  let idText: string;
  // A number is written by JSON.stringify as String writes it (a JSON id is never NaN or Infinity).
  if (typeof id === 'string' || typeof id === 'bigint') idText = String(id);
  else {
    try {
      idText = JSON.stringify(id) ?? 'none';
    } catch {
      idText = 'nested';
    }
  }
  if (idText.length > ID_CHARS) idText = `${idText.slice(0, ID_CHARS)}…`;
  return `${kind}:${idText}${field !== undefined ? `:${field}` : ''}`;
}

/**
 * What an exchange of a failed check shows: the finding (the answer that broke the rule), or a correct answer the
 * check judged beside it (a 401 refusal, as the spec requires, next to the 200 that should have been one). The check
 * says it (CheckContext.shows); the reports order and label the evidence by it.
 */
export type Shows = 'finding' | 'correct';

/** An exchange kept as a check's evidence, with what it shows when the check failed and said so. */
export type Evidence = Exchange & { shows?: Shows };

/**
 * What each exchange of a failed check shows, when the check marked none as the finding: the exchanges its message
 * names ("GET /seats/7 answered …") and those that got no answer; when the message names none, those answered
 * without a 2xx (a check that failed on one request has sent others the server answered rightly, and a refusal a
 * check expected is marked by the check itself). Returns the marks for the evidence in its order.
 */
export function inferredShows(
  evidence: readonly Exchange[],
  message: string,
  basePath: string,
): Array<Shows | undefined> {
  const named = evidence.map((e) => !e.response || namedByMessage(message, e, basePath));
  if (named.some(Boolean)) return named.map((n) => (n ? 'finding' : undefined));
  return evidence.map((e) => (e.response!.status < 200 || e.response!.status > 299 ? 'finding' : undefined));
}

/** Whether a message names the exchange's request ("GET /seats/7 answered …"), its path relative to base_url. */
function namedByMessage(message: string, e: Exchange, basePath: string): boolean {
  let path: string;
  try {
    path = new URL(e.request.url).pathname;
  } catch {
    return false;
  }
  const api = path.startsWith(basePath) ? path.slice(basePath.length) : path;
  return (
    api.length > 1 &&
    new RegExp(`${e.request.method} ${api.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w/-])`).test(message)
  );
}
