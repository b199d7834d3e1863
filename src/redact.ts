/**
 * The one place secrets are removed from anything we print or write: the public key, the secret key and every
 * token seen. Each secret is also matched in its URL-encoded forms, since it travels in query strings.
 */
export type SecretKind = 'public-key' | 'secret-key' | 'token' | 'other-public-key' | 'other-secret-key' | 'disabled-public-key' | 'disabled-secret-key' | 'disabled-token';

export class Redactor {
  private readonly secrets = new Map<string, SecretKind>();
  private pattern: RegExp | undefined;

  add(value: string | undefined, kind: SecretKind): void {
    if (!value) return;
    for (const form of new Set([value, encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+'), JSON.stringify(value).slice(1, -1)])) {
      if (!this.secrets.has(form)) { this.secrets.set(form, kind); this.pattern = undefined; }
    }
  }

  /** Every secret as [kind, value] pairs (kind first so the value never lands in a log by accident of order). */
  entries(): Array<[SecretKind, string]> {
    return [...this.secrets].map(([v, k]) => [k, v]);
  }

  redact(text: string): string {
    if (this.secrets.size === 0 || !text) return text;
    if (!this.pattern) {
      // Longest first, so a secret that contains another is replaced whole.
      const alts = [...this.secrets.keys()].sort((a, b) => b.length - a.length).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      this.pattern = new RegExp(alts.join('|'), 'g');
    }
    return text.replace(this.pattern, (m) => `[REDACTED:${this.secrets.get(m)}]`);
  }

  /** A deep copy of a JSON-like value with every string redacted (keys included). */
  redactDeep<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.redactDeep(v);
      return out as T;
    }
    return value;
  }
}
