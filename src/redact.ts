/**
 * The one place secrets are removed from anything we print or write: the public key, the secret key and every
 * token seen. Each secret is also matched in its URL-encoded forms, since it travels in query strings.
 */
export type SecretKind = 'public-key' | 'secret-key' | 'token' | 'altered-token' | 'other-public-key' | 'other-secret-key' | 'disabled-public-key' | 'disabled-secret-key' | 'disabled-token';

export class Redactor {
  private readonly secrets = new Map<string, SecretKind>();
  private pattern: RegExp | undefined;
  /** Length of the longest form of any secret: text cut after redaction needs this much margin. */
  longest = 0;

  add(value: string | undefined, kind: SecretKind): void {
    if (!value) return;
    // URLSearchParams (how the client builds query strings) escapes more than encodeURIComponent: !'()~ too.
    // Lower case too: HTTP header names arrive lowercased, and a server may echo a secret in one (x-echo-<token>).
    const forms = [value, encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+'), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1), value.toLowerCase()];
    for (const form of new Set(forms)) {
      if (!this.secrets.has(form)) { this.secrets.set(form, kind); this.pattern = undefined; this.longest = Math.max(this.longest, form.length); }
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
    const out = text.replace(this.pattern, (m) => `[REDACTED:${this.secrets.get(m)}]`);
    return out.includes('…') ? this.redactCutPrefixes(out) : out;
  }

  /**
   * Messages quote server values cut short with "…" (show() in assertions.ts). When the cut falls inside a secret,
   * the part before "…" is a prefix the full-match pass cannot see: hide any prefix of 4 or more characters.
   */
  private redactCutPrefixes(text: string): string {
    let out = text;
    for (let at = out.indexOf('…'); at !== -1; at = out.indexOf('…', at + 1)) {
      for (const [secret, kind] of this.secrets) {
        let n = Math.min(at, secret.length - 1);
        while (n >= 4 && out.slice(at - n, at) !== secret.slice(0, n)) n--;
        if (n >= 4) {
          const mark = `[REDACTED:${kind}]`;
          out = out.slice(0, at - n) + mark + out.slice(at);
          at += mark.length - n;
          break;
        }
      }
    }
    return out;
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
