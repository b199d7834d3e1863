/**
 * What a failing check found, one item per thing that broke a rule, each with a fingerprint: a stable key of what
 * failed (a record, a field, an endpoint, a case), never the wording, a value that varies or the order. Baselines
 * match on fingerprints, so a baseline written for one broken record does not also accept another one.
 */
export class Findings {
  readonly items: string[] = [];
  private readonly keys = new Set<string>();

  /**
   * One finding: its text for people, and for baselines the fingerprint of each thing it names (e.g.
   * `dish:17:user_id`, `GET /dishes:query`; a record that differs in two fields is one finding with two).
   */
  add(text: string, ...fingerprints: [string, ...string[]]): void {
    this.items.push(text);
    for (const f of fingerprints) this.keys.add(f);
  }

  get length(): number { return this.items.length; }

  /** The fingerprints of every finding, sorted and without repeats (order of discovery is not stable). */
  get fingerprints(): string[] { return [...this.keys].sort(); }

  /** "2 of 7 dishes differ …: first; second"; what is [one, many] when the phrase depends on the count. */
  summary(what: string | [string, string], of?: number, max = 5): string {
    const phrase = typeof what === 'string' ? what : this.items.length === 1 && of === undefined ? what[0] : what[1];
    return `${this.items.length}${of !== undefined ? ` of ${of}` : ''} ${phrase}: ${this.list(max)}`;
  }

  /** The first findings, then how many more. */
  list(max = 5): string {
    const more = this.items.length > max ? `; … and ${this.items.length - max} more` : '';
    return `${this.items.slice(0, max).join('; ')}${more}`;
  }
}

/** A fingerprint for a record of the API: `dish:17`, `seat:21:table_number` (the id as its exact text). */
export function recordKey(kind: string, id: unknown, field?: string): string {
  const idText = typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint' ? String(id) : JSON.stringify(id) ?? 'none';
  return `${kind}:${idText}${field !== undefined ? `:${field}` : ''}`;
}
