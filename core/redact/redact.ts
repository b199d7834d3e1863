/**
 * The one place secrets are removed from anything we print or write: the public key, the secret key and every
 * token seen.
 *
 * A secret is found in every form an honest server may quote it in: raw, lower-cased (header names arrive
 * lowercased), URL-encoded (%XX in either case, any choice of escaped characters), form-encoded (+ for space),
 * JSON-escaped in every legal way (\/, \" and the other short escapes, \uXXXX for any character in either case)
 * and HTML-escaped (named, decimal and hex character references), and these nested in each other (a URL quoted in
 * a JSON string). Rather than list encoded forms, the text is decoded ("views"), each decoded character remembering
 * the span of the original it came from, and the secrets are searched in every view at once: one Aho-Corasick
 * automaton, so the cost is linear in the text whatever the number and length of secrets (8,000-character tokens).
 * Deliberate re-encodings (base64, reversed, split) are not recognised.
 *
 * Messages quote server values cut short with "…" (show() in assertions.ts); when a cut falls inside a secret, the
 * part before "…" is a prefix of it: any such prefix of 4 or more characters is hidden too (found by the same scan).
 *
 * Secrets shorter than SAFE_SECRET_LENGTH (a server may issue the token "NOT") cannot be replaced everywhere
 * without rewriting the tool's own words: they are replaced in what the server sent (the evidence, and values
 * messages quote through show()), never in the tool's own text.
 */
/**
 * The stand-in a recording (a HAR) writes for a secret of a kind: the same for every occurrence, so replays still
 * match. The checks change the real token's last character to '~' (suites/auth.ts): its stand-in changes the same way.
 */
export function placeholderOf(kind: SecretKind): string {
  return kind === 'altered-token' ? `${placeholderOf('token').slice(0, -1)}~` : `REDACTED_${kind}`;
}

/**
 * What a secret is, as its redaction marker says: `[REDACTED:other-token]`. Tokens are named for the application
 * they were issued to (token: app's; other-token: other_app's; issued-token: a key pair that is neither), so a
 * reproduction line says which credential it needs.
 */
export type SecretKind =
  | 'public-key'
  | 'secret-key'
  | 'token'
  | 'other-token'
  | 'issued-token'
  | 'altered-token'
  | 'derived-token'
  | 'derived-key'
  | 'derived-public-key'
  | 'other-public-key'
  | 'other-secret-key'
  | 'disabled-public-key'
  | 'disabled-secret-key'
  | 'disabled-token'
  | 'oidc-token';

import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.js';

/** Texts up to this long are remembered redacted (Redactor.replace), at most MEMO_ENTRIES of each way. */
const MEMO_CHARS = 256;
const MEMO_ENTRIES = 4096;
/** Shorter secrets are words as much as secrets: see the module comment. */
export const SAFE_SECRET_LENGTH = 8;
/** A cut-off prefix this long or longer is hidden. */
const MIN_PREFIX = 4;
const ELLIPSIS = 0x2026;

/** Opens a marker made by redactQuoted: a private-use character and a nonce of the process no server can guess. */
const QUOTED_MARKER = `\uE000${randomBytes(8).toString('hex')}`;

/** Literal redaction markers in server data would turn into shell variables in curl lines (reporters/evidence.ts). */
const FORGED_MARKER = /\[(REDACTED)/gi;

/** Server text with every literal `[REDACTED` made into `[FORGED-REDACTED`: only the redactor writes markers. */
export function neutralizeMarkers(s: string): string {
  return s.includes('[') ? s.replace(FORGED_MARKER, '[FORGED-$1') : s;
}

/**
 * Aho-Corasick over UTF-16 code units. Most trie nodes of long secrets have one child: that child sits in typed
 * arrays, only branching nodes use the shared map, so a trie of many 8,000-character tokens stays small.
 */
class Matcher {
  private single = new Int32Array(1024).fill(-1);
  private singleChar = new Int32Array(1024);
  private readonly more = new Map<number, number>();
  private fail: Int32Array = new Int32Array(0);
  private depth = new Int32Array(1024);
  /** Length and kind of the longest secret ending at the node (through its failure chain); 0 when none. */
  private outLen: Int32Array = new Int32Array(0);
  private outKind: Int32Array = new Int32Array(0);
  /** Kind of the first secret whose prefix the node is. */
  private prefixKind = new Int32Array(1024);
  private ends = new Int32Array(1024);
  private size = 1;

  constructor(patterns: Array<[string, number]>) {
    for (const [p, kind] of patterns) this.insert(p, kind);
    this.link();
  }

  private grow(): void {
    const n = this.single.length * 2;
    const g = (a: Int32Array, fill = 0): Int32Array<ArrayBuffer> => {
      const b = new Int32Array(n).fill(fill);
      b.set(a);
      return b;
    };
    this.single = g(this.single, -1);
    this.singleChar = g(this.singleChar);
    this.depth = g(this.depth);
    this.prefixKind = g(this.prefixKind);
    this.ends = g(this.ends);
  }

  child(node: number, c: number): number {
    if (this.singleChar[node] === c && this.single[node]! >= 0) return this.single[node]!;
    return this.more.get(node * 65536 + c) ?? -1;
  }

  private insert(p: string, kind: number): void {
    let node = 0;
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      let next = this.child(node, c);
      if (next < 0) {
        if (this.size >= this.single.length) this.grow();
        next = this.size++;
        this.depth[next] = i + 1;
        this.prefixKind[next] = kind;
        if (this.single[node]! < 0) {
          this.single[node] = next;
          this.singleChar[node] = c;
        } else this.more.set(node * 65536 + c, next);
      }
      node = next;
    }
    if (!this.ends[node]) this.ends[node] = kind + 1;
  }

  private link(): void {
    this.fail = new Int32Array(this.size);
    this.outLen = new Int32Array(this.size);
    this.outKind = new Int32Array(this.size);
    // Branching children per node, for the breadth-first pass.
    const extra = new Map<number, Array<[number, number]>>();
    for (const [key, child] of this.more) {
      const node = Math.floor(key / 65536);
      let list = extra.get(node);
      if (!list) extra.set(node, (list = []));
      list.push([key % 65536, child]);
    }
    const queue = new Int32Array(this.size);
    let head = 0;
    let tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
      const node = queue[head++]!;
      const visit = (c: number, child: number): void => {
        let f = node === 0 ? 0 : this.step(this.fail[node]!, c);
        if (f === child) f = 0;
        this.fail[child] = f;
        if (this.ends[child]) {
          this.outLen[child] = this.depth[child]!;
          this.outKind[child] = this.ends[child]! - 1;
        } else {
          this.outLen[child] = this.outLen[f]!;
          this.outKind[child] = this.outKind[f]!;
        }
        queue[tail++] = child;
      };
      if (this.single[node]! >= 0) visit(this.singleChar[node]!, this.single[node]!);
      for (const [c, child] of extra.get(node) ?? []) visit(c, child);
    }
  }

  /** The state after reading c in state `node`. */
  step(node: number, c: number): number {
    for (;;) {
      const next = this.child(node, c);
      if (next >= 0) return next;
      if (node === 0) return 0;
      node = this.fail[node]!;
    }
  }

  /**
   * Every stretch of `text` to hide: [start, end, kind] triples, end exclusive. A whole secret, or a prefix of one
   * (MIN_PREFIX or longer) that ends just before a "…".
   */
  scan(text: string, found: (start: number, end: number, kind: number) => void): void {
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === ELLIPSIS && this.depth[node]! >= MIN_PREFIX) found(i - this.depth[node]!, i, this.prefixKind[node]!);
      node = this.step(node, c);
      const len = this.outLen[node]!;
      if (len) found(i + 1 - len, i + 1, this.outKind[node]!);
    }
  }
}

/** A decoded rendering of a text: character i of `text` came from original characters [start[i], end[i]). */
interface View {
  text: string;
  start: Int32Array;
  end: Int32Array;
}

type Decoder = (s: string) => View | undefined;

const HEX = /^[0-9a-fA-F]+$/;

/**
 * Builds a view: decoded characters, each with the original span it came from. A decoding never lengthens a text,
 * so the spans fit typed arrays of the original's length.
 */
class ViewBuilder {
  private readonly parts: string[] = [];
  private readonly start: Int32Array;
  private readonly end: Int32Array;
  private n = 0;
  private rawFrom = 0;
  changed = false;
  constructor(private readonly source: string) {
    this.start = new Int32Array(source.length);
    this.end = new Int32Array(source.length);
  }
  /** Original characters up to `to` that were not decoded are kept as they are, in one piece. */
  private flush(to: number): void {
    if (to <= this.rawFrom) return;
    this.parts.push(this.source.slice(this.rawFrom, to));
    for (let i = this.rawFrom; i < to; i++) {
      this.start[this.n] = i;
      this.end[this.n++] = i + 1;
    }
  }
  push(decoded: string, from: number, to: number): void {
    this.flush(from);
    this.parts.push(decoded);
    for (let k = 0; k < decoded.length; k++) {
      this.start[this.n] = from;
      this.end[this.n++] = to;
    }
    this.rawFrom = to;
    this.changed = true;
  }
  done(): View | undefined {
    if (!this.changed) return undefined;
    this.flush(this.source.length);
    return { text: this.parts.join(''), start: this.start.subarray(0, this.n), end: this.end.subarray(0, this.n) };
  }
}

/** JSON string escapes: \uXXXX (either case), \/ \" \\ \b \f \n \r \t. */
const jsonDecode: Decoder = (s) => {
  if (!s.includes('\\')) return undefined;
  const v = new ViewBuilder(s);
  const short: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') {
      const n = s[i + 1];
      if (n === 'u' && HEX.test(s.slice(i + 2, i + 6)) && i + 6 <= s.length) {
        v.push(String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16)), i, i + 6);
        i += 5;
        continue;
      }
      if (n !== undefined && short[n] !== undefined) {
        v.push(short[n]!, i, i + 2);
        i++;
        continue;
      }
    }
  }
  return v.done();
};

/** Percent-encoding (either hex case, UTF-8), and with `plus` form encoding (+ for space). */
function percentDecoder(plus: boolean): Decoder {
  return (s) => {
    if (!s.includes('%') && !(plus && s.includes('+'))) return undefined;
    const v = new ViewBuilder(s);
    const byteAt = (i: number): number =>
      s[i] === '%' && HEX.test(s.slice(i + 1, i + 3)) && i + 3 <= s.length ? parseInt(s.slice(i + 1, i + 3), 16) : -1;
    for (let i = 0; i < s.length; i++) {
      const b = byteAt(i);
      if (b >= 0) {
        const len =
          b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
        const bytes = [b];
        for (let k = 1; k < len; k++) {
          const c = byteAt(i + 3 * k);
          if (c < 0x80 || c > 0xbf) break;
          bytes.push(c);
        }
        if (len && bytes.length === len) {
          const ch = Buffer.from(bytes).toString('utf8');
          if (!ch.includes('\uFFFD')) {
            v.push(ch, i, i + 3 * len);
            i += 3 * len - 1;
            continue;
          }
        }
      }
      if (plus && s[i] === '+') {
        v.push(' ', i, i + 1);
        continue;
      }
    }
    return v.done();
  };
}

/** Named references for every ASCII character that has one (HTML5), and the space-like nbsp. */
const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  excl: '!',
  num: '#',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  equals: '=',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  rsqb: ']',
  rbrack: ']',
  bsol: '\\',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  rcub: '}',
  rbrace: '}',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  Hat: '^',
  tilde: '~',
  NewLine: '\n',
  Tab: '\t',
  QUOT: '"',
  AMP: '&',
  LT: '<',
  GT: '>',
};
const ENTITY = /^&(?:#(\d{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|([A-Za-z]{2,20});)/;

/** HTML character references: named, decimal and hex. */
const htmlDecode: Decoder = (s) => {
  if (!s.includes('&')) return undefined;
  const v = new ViewBuilder(s);
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '&') {
      const m = ENTITY.exec(s.slice(i, i + 24));
      const code = m?.[1] !== undefined ? Number(m[1]) : m?.[2] !== undefined ? parseInt(m[2], 16) : undefined;
      const ch =
        code !== undefined
          ? code <= 0x10ffff
            ? String.fromCodePoint(code)
            : undefined
          : m?.[3] !== undefined
            ? ENTITIES[m[3]]
            : undefined;
      if (m && ch !== undefined) {
        v.push(ch, i, i + m[0].length);
        i += m[0].length - 1;
        continue;
      }
    }
  }
  return v.done();
};

/** The decodings tried, alone and nested (outermost first): each only when the text holds what it decodes. */
const VIEWS: Decoder[][] = [
  [jsonDecode],
  [percentDecoder(false)],
  [percentDecoder(true)],
  [htmlDecode],
  [jsonDecode, percentDecoder(false)],
  [jsonDecode, percentDecoder(true)],
  [jsonDecode, htmlDecode],
  [htmlDecode, jsonDecode],
  [htmlDecode, percentDecoder(false)],
];

function compose(outer: View, inner: View): View {
  const start = new Int32Array(inner.text.length);
  const end = new Int32Array(inner.text.length);
  for (let i = 0; i < inner.text.length; i++) {
    start[i] = outer.start[inner.start[i]!]!;
    end[i] = outer.end[inner.end[i]! - 1]!;
  }
  return { text: inner.text, start, end };
}

/** A piece of replaceSecrets' marked text that starts with `REDACTED:<kind>]`, the marker given its name. */
function placeholderAt(part: string, name: (kind: SecretKind) => string): string {
  const end = part.indexOf(']');
  return `${name(part.slice('REDACTED:'.length, end) as SecretKind)}${part.slice(end + 1)}`;
}

/** Secrets added since the whole matcher was built that a small matcher of their own takes, at least. */
const RECENT_SECRETS = 32;

/**
 * A redactor's matchers of one set of secrets: parts[0] over the first `base` secrets (in the order added), parts[1]
 * (when any) over the rest up to `covered`. parts is empty while the base has no secret of the set.
 */
interface MatcherParts {
  parts: Matcher[];
  covered: number;
  base?: number;
}

/** A run's secrets, and the one way anything is redacted before it is printed or written. */
export class Redactor {
  private readonly secrets = new Map<string, SecretKind>();
  /** The values added as themselves (not one of their forms: the lower case, the URL encoding). */
  private readonly added = new Set<string>();
  private readonly kinds: SecretKind[] = [];
  /** The matchers of the safe-length secrets and of all secrets (see matchers). */
  private readonly built: [MatcherParts, MatcherParts] = [
    { parts: [], covered: 0 },
    { parts: [], covered: 0 },
  ];
  private secretsVersion = 0;
  /** Changes whenever a secret is added: what was redacted before may show the new one. */
  get version(): number {
    return this.secretsVersion;
  }
  /** Redacted short texts, per way of replacing (replace): server text, server text quoted, the tool's own. */
  private readonly memo = [new Map<string, string>(), new Map<string, string>(), new Map<string, string>()];
  /** Kinds of the secrets too short to be replaced in the tool's own words (see SAFE_SECRET_LENGTH). */
  readonly short = new Set<SecretKind>();

  add(value: string | undefined, kind: SecretKind): void {
    if (!value) return;
    // Header names arrive lowercased, and a server may echo a secret in one (x-echo-<token>). A short secret's lower
    // case would be an ordinary word ("not"): it is left out. The usual encoded forms are searched as they are too
    // (besides decoding, see replace): a quote cut short inside an escape sequence is a prefix of one of them.
    const url = encodeURIComponent(value);
    const forms =
      value.length >= SAFE_SECRET_LENGTH
        ? [
            value,
            value.toLowerCase(),
            url,
            url.replace(/%20/g, '+'),
            new URLSearchParams({ v: value }).toString().slice(2),
            JSON.stringify(value).slice(1, -1),
          ]
        : [value];
    if (value.length < SAFE_SECRET_LENGTH) this.short.add(kind);
    const firstAsItself = !this.added.has(value);
    this.added.add(value);
    for (const form of forms) {
      // A value added as itself takes its kind over from a form of another secret: the token's lower case, sent as a
      // wrong token of its own (a derived token), is that, and a recording must tell it from the token.
      const takesOver = form === value && firstAsItself && this.secrets.has(form) && this.secrets.get(form) !== kind;
      if (!this.secrets.has(form) || takesOver) {
        this.secrets.set(form, kind);
        // A new form comes last and the matchers take it in when next asked; a form that changes kind is rebuilt.
        if (takesOver) for (const b of this.built) Object.assign(b, { parts: [], covered: 0 });
        for (const m of this.memo) m.clear();
        this.secretsVersion++;
      }
    }
  }

  /** Every secret as [kind, value] pairs (kind first so the value never lands in a log by accident of order). */
  /** The kind a value was added as (the value exactly as added), or undefined. */
  kindOf(value: string): SecretKind | undefined {
    return this.secrets.get(value);
  }

  entries(): Array<[SecretKind, string]> {
    return [...this.secrets].map(([v, k]) => [k, v]);
  }

  /**
   * The matchers that together find every secret (every one, or those of safe length): one built over the secrets
   * known when it was last rebuilt, and one over those added since, while they are few. A run learns tokens as it
   * goes (each /auth, each derived key), and rebuilding one automaton of every form of every secret after each was
   * most of redaction's cost (40 ms of a fixture run); the small one is rebuilt instead, and the whole only when the
   * secrets added since are a quarter of it.
   */
  private matchers(all: boolean): Matcher[] {
    const b = this.built[all ? 1 : 0];
    const total = this.secrets.size;
    if (b.covered === total) return b.parts;
    const [first] = b.parts;
    const whole = first === undefined || total - (b.base ?? 0) > Math.max(RECENT_SECRETS, (b.base ?? 0) / 4);
    const from = whole ? 0 : b.base!;
    const patterns: Array<[string, number]> = [];
    let i = 0;
    for (const [text, kind] of this.secrets) {
      if (i++ < from || (!all && text.length < SAFE_SECRET_LENGTH)) continue;
      let k = this.kinds.indexOf(kind);
      if (k < 0) k = this.kinds.push(kind) - 1;
      patterns.push([text, k]);
    }
    const made = patterns.length ? [new Matcher(patterns)] : [];
    b.parts = whole ? made : [first!, ...made];
    if (whole) b.base = total;
    b.covered = total;
    return b.parts;
  }

  /** The text with every secret of safe length replaced by `[REDACTED:<kind>]`. */
  redact(text: string): string {
    return this.replace(text, false);
  }

  /**
   * Text the server sent (evidence): forged markers neutralised, then every secret replaced, the short ones too (in
   * server data they are the server's words, not the tool's).
   */
  redactServerText(text: string): string {
    return this.replace(neutralizeMarkers(text), true);
  }

  /**
   * A server value about to be quoted in a message (show() in assertions.ts): as redactServerText, but its markers
   * are written in a form only redactMessage turns into `[REDACTED:…]`, so that redactMessage can neutralise every
   * other marker text in the message (one that came with a server value composed in raw, such as an id in a path).
   */
  redactQuoted(text: string): string {
    return this.replace(neutralizeMarkers(text), true, QUOTED_MARKER);
  }

  /**
   * Text of a recording (a HAR a run writes): every secret, short ones too, replaced by `name(kind)`, and nothing else
   * changed. A literal "[REDACTED" the server sent stays as it came: the recording is what the server answered, and a
   * replay of it judges the same bytes.
   */
  replaceSecrets(text: string, name: (kind: SecretKind) => string): string {
    const open = `${QUOTED_MARKER}\uE001`;
    const marked = this.replaceNow(text, true, open);
    return marked === text
      ? text
      : marked
          .split(open)
          .map((part, i) => (i === 0 ? part : placeholderAt(part, name)))
          .join('');
  }

  /** A message of the tool (composed with server values): forged markers neutralised, secrets replaced. */
  redactMessage(text: string): string {
    return this.replace(neutralizeMarkers(text), false).split(`${QUOTED_MARKER}REDACTED`).join('[REDACTED');
  }

  private replace(text: string, all: boolean, open = '['): string {
    if (!text) return text;
    // Short texts repeat (a header name or value in every exchange of the evidence: 8,700 calls for 190 texts in a
    // run of the fixtures): each is redacted once until a secret is added.
    if (text.length > MEMO_CHARS) return this.replaceNow(text, all, open);
    const memo = this.memo[all ? (open === '[' ? 0 : 1) : 2]!;
    let out = memo.get(text);
    if (out === undefined) {
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      memo.set(text, (out = this.replaceNow(text, all, open)));
    }
    return out;
  }

  private replaceNow(text: string, all: boolean, open: string): string {
    const spans = this.spansOf(text, all);
    if (!spans.length) return text;
    let out = '';
    let at = 0;
    for (const [start, end, kind] of spans) {
      out += `${text.slice(at, start)}${open}REDACTED:${this.kinds[kind]}]`;
      at = end;
    }
    return out + text.slice(at);
  }

  /**
   * Where the secrets are in a text, in any of their forms: [start, end, kind] in order, overlapping stretches made
   * one, named after the one that starts first (the longest, on a tie).
   */
  private spansOf(text: string, all: boolean): Array<[number, number, number]> {
    const ms = this.matchers(all);
    if (!ms.length) return [];
    const spans: Array<[number, number, number]> = [];
    for (const m of ms) m.scan(text, (s, e, k) => spans.push([s, e, k]));
    for (const decoders of VIEWS) {
      let view: View | undefined;
      for (const d of decoders) {
        const inner = d(view ? view.text : text);
        if (!inner) {
          view = undefined;
          break;
        }
        view = view ? compose(view, inner) : inner;
      }
      if (!view) continue;
      const v = view;
      for (const m of ms) m.scan(v.text, (s, e, k) => spans.push([v.start[s]!, v.end[e - 1]!, k]));
    }
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const merged: Array<[number, number, number]> = [];
    for (let i = 0; i < spans.length;) {
      const [start, , kind] = spans[i]!;
      let end = spans[i]![1];
      for (i++; i < spans.length && spans[i]![0] < end; i++) end = Math.max(end, spans[i]![1]);
      merged.push([start, end, kind]);
    }
    return merged;
  }

  /**
   * replaceSecrets over a text that comes in pieces (a long body written to a HAR a slice at a time): `push` gives
   * back what is settled so far, `end` the rest. A secret cut between two pieces is replaced whole: the last
   * characters, as many as the longest form of a secret may take, wait for the next piece.
   */
  secretStream(name: (kind: SecretKind) => string): { push(text: string): string; end(): string } {
    let held = '';
    const settle = (text: string, last: boolean): string => {
      const spans = this.spansOf(text, true);
      // Every form of a secret fits in this many characters (an escape takes at most a dozen per character).
      const reach = 16 * this.longest + 64;
      let cut = last ? text.length : Math.max(0, text.length - reach);
      // A match that runs over the cut waits whole; so does a surrogate pair.
      for (const [start, end] of spans) if (start < cut && end > cut) cut = start;
      if (!last && cut > 0 && /[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--;
      held = text.slice(cut);
      let out = '';
      let at = 0;
      for (const [start, end, kind] of spans) {
        if (end > cut) break;
        out += `${text.slice(at, start)}${name(this.kinds[kind]!)}`;
        at = end;
      }
      return out + text.slice(at, cut);
    };
    return {
      push: (text) => settle(held + text, false),
      end: () => settle(held, true),
    };
  }

  /** The length of the longest secret known. */
  private get longest(): number {
    let n = 0;
    for (const s of this.secrets.keys()) n = Math.max(n, s.length);
    return n;
  }

  /**
   * A deep copy of a JSON-like value with every string redacted (keys included). Iterative: server data may nest
   * 100,000 deep. With `server`, the value is server data (see redactServerText).
   */
  redactDeep<T>(value: T, server = false): T {
    const fix = (s: string): string => (server ? this.redactServerText(s) : this.redact(s));
    if (typeof value === 'string') return fix(value) as T;
    if (value === null || typeof value !== 'object') return value;
    const copy = (v: unknown): unknown => (Array.isArray(v) ? [] : {});
    const root = copy(value);
    const stack: Array<[object, Record<string, unknown>]> = [[value as object, root as Record<string, unknown>]];
    while (stack.length) {
      const [src, dst] = stack.pop()!;
      const array = Array.isArray(src);
      for (const [k, v] of Object.entries(src)) {
        let out: unknown = v;
        if (typeof v === 'string') out = fix(v);
        else if (v !== null && typeof v === 'object') {
          out = copy(v);
          stack.push([v as object, out as Record<string, unknown>]);
        }
        // defineProperty: a key "__proto__" from the server is an own property, not the copy's prototype.
        if (array) dst[Number(k)] = out;
        else Object.defineProperty(dst, fix(k), { value: out, enumerable: true, writable: true, configurable: true });
      }
    }
    return root as T;
  }
}

/** A redactor that knows every configured secret. */
export function redactorFor(config: Config): Redactor {
  const r = new Redactor();
  r.add(config.app.secret, 'public-key');
  r.add(config.app.key, 'secret-key');
  r.add(config.other_app?.secret, 'other-public-key');
  r.add(config.other_app?.key, 'other-secret-key');
  r.add(config.disabled_app?.secret, 'disabled-public-key');
  r.add(config.disabled_app?.key, 'disabled-secret-key');
  r.add(config.disabled_app?.token, 'disabled-token');
  return r;
}
