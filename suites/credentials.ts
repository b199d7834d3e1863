/**
 * Credentials never appear in data. §2.6 gives the key pair exactly two places, /auth's app_secret and app_key
 * (and the token one, app_token); §1 says the data endpoints return the merchant's restaurant data. A configured key
 * or an issued token anywhere else is a leak (MUST); a record that carries credential material of its own (a
 * password hash, a field named like a secret or a token) is one a builder should not publish (SHOULD).
 */
import { defineChecks, type CheckContext } from '../core/model/check.js';
import { Blocked } from '../core/session/check-errors.js';
import { everyRecord, isRecord, successData } from '../core/session/api.js';
import { DETAIL_RESOURCES, endpointLabel, RESOURCE_PATHS, type Who } from '../core/spec/resources.js';
import type { Reply } from '../core/transport/exchange.js';
import { AUTH_PATH, detailPath } from '../core/spec/endpoints.js';
import { TOKEN_FIELD, TOKEN_PATH } from '../core/spec/auth-scheme.js';
import { NetworkError } from '../core/transport/exchange.js';
import { isDiskList, isLongList } from '../core/transport/disk-list.js';

/**
 * Visits every member of a JSON tree; the path is built only when asked for (a 65 MB list has millions of members),
 * from parent links. Iterative: a hostile body may nest deeper than the stack.
 */
function walk(root: unknown, visit: (path: () => string, key: string | undefined, value: unknown) => void): void {
  interface Node {
    v: unknown;
    key: string | undefined;
    seg: string;
    parent: Node | undefined;
    /** A list read from disk, its elements pushed one at a time from `next` (never all parsed at once). */
    rest?: { list: unknown[]; next: number };
  }
  const pathOf = (n: Node): string => {
    const segs: string[] = [];
    for (let at: Node | undefined = n; at; at = at.parent) segs.push(at.seg);
    return segs.reverse().join('').replace(/^\./, '');
  };
  const stack: Node[] = [{ v: root, key: undefined, seg: '', parent: undefined }];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.rest) {
      const { list, next } = n.rest;
      if (next >= list.length) continue;
      stack.push({ ...n, rest: { list, next: next + 1 } });
      stack.push({ v: list[next], key: undefined, seg: `[${next}]`, parent: n.parent });
      continue;
    }
    visit(() => pathOf(n), n.key, n.v);
    const v = n.v;
    if (typeof v !== 'object' || v === null) continue;
    if (isDiskList(v)) {
      stack.push({ v: undefined, key: undefined, seg: '', parent: n, rest: { list: v, next: 0 } });
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: undefined, seg: `[${i}]`, parent: n });
      continue;
    }
    const ks = Object.keys(v);
    for (let i = ks.length - 1; i >= 0; i--)
      stack.push({ v: (v as Record<string, unknown>)[ks[i]!], key: ks[i], seg: `.${ks[i]}`, parent: n });
  }
}

/** What the cheap look at a reply's tree found: SEC-01's leak, SEC-02's password hash or credential-named key. */
interface Suspicion {
  leak: boolean;
  hash: boolean;
  named: boolean;
}

/**
 * The look at every string and key name of a reply's tree, before a walk with paths (a large merchant's /orders has
 * millions of members, and building their paths costs several times a parse) for the few trees that show a finding.
 * SEC-01 and SEC-02 read the same replies: the first to ask looks for both, and the other reads what it found (one
 * walk of a 65 MB list instead of two). A list read from disk is read in the pass the checks woken by its arrival
 * share (everyRecord), not in one of its own. Nothing is gathered: the distinct strings of ten times the large
 * merchant's /orders held 28 MB, and one regular expression per string costs less than adding it to a Set.
 */
function suspicion(tree: unknown, leak: RegExp | undefined): Promise<Suspicion> {
  // Lists only: a detail is a few members, cheaper to look at twice than to remember (40,000 entries).
  const memoized = isRecord(tree) && Array.isArray(tree.data);
  const memo = memoized ? looked.get(tree) : undefined;
  if (memo && memo.leak === leak?.source) return memo.found;
  const found = lookAt(tree, leak);
  if (memoized) looked.set(tree, { leak: leak?.source, found });
  return found;
}

/** Key names repeat in every record of every reply: each is tested once (up to a bound a hostile server cannot grow). */
const namedKeys = new Map<string, boolean>();
function credentialNamed(k: string): boolean {
  let named = namedKeys.get(k);
  if (named === undefined) {
    named = CREDENTIAL_NAME.test(k);
    if (namedKeys.size < 10_000) namedKeys.set(k, named);
  }
  return named;
}

/** Per reply tree: what suspicion found, and with which leak pattern (a token issued later makes another). */
const looked = new WeakMap<object, { leak: string | undefined; found: Promise<Suspicion> }>();

async function lookAt(tree: unknown, leak: RegExp | undefined): Promise<Suspicion> {
  const found: Suspicion = { leak: false, hash: false, named: false };
  const longLists: unknown[][] = [];
  const done = (): boolean => (found.leak || !leak) && (found.hash || found.named);
  const look = (root: unknown): void => {
    // Iterative: a hostile body may nest deeper than the stack.
    const stack: unknown[] = [root];
    while (stack.length) {
      const v = stack.pop();
      if (typeof v === 'string') {
        if (leak && !found.leak && leak.test(v)) found.leak = true;
        if (!found.hash && PASSWORD_HASH.test(v)) found.hash = true;
        if (done()) return;
        continue;
      }
      if (typeof v !== 'object' || v === null) continue;
      // A list read from disk, or a long one: one record at a time in the checks' shared pass, after the rest.
      if (isLongList(v)) {
        longLists.push(v);
        continue;
      }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) stack.push(v[i]);
        continue;
      }
      for (const k of Object.keys(v)) {
        if (credentialNamed(k)) found.named = true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  };
  look(tree);
  for (const list of longLists)
    await everyRecord(list, (rec) => {
      if (!done()) look(rec);
    });
  return found;
}

/** A pattern that matches any of the values, taken literally. */
const anyOf = (values: readonly string[]): RegExp =>
  new RegExp(values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));

/** The configured keys and the tokens issued so far: what no answer may carry outside /auth's fields (SEC-01). */
function credentialsOf(ctx: CheckContext): Array<{ what: string; value: string }> {
  const c = ctx.config;
  return [
    { what: "app's public key", value: c.app.secret },
    { what: "app's secret key", value: c.app.key },
    ...(c.other_app
      ? [
          { what: "other_app's public key", value: c.other_app.secret },
          { what: "other_app's secret key", value: c.other_app.key },
        ]
      : []),
    ...(c.disabled_app?.secret ? [{ what: "disabled_app's public key", value: c.disabled_app.secret }] : []),
    ...(c.disabled_app?.key ? [{ what: "disabled_app's secret key", value: c.disabled_app.key }] : []),
    ...(c.disabled_app?.token ? [{ what: "disabled_app's token", value: c.disabled_app.token }] : []),
    ...ctx.api.issuedTokens().map((t) => ({ what: `a token issued to ${t.who}`, value: t.token })),
  ].filter((s) => s.value.length >= 4);
}

/** A pattern matching any of the credentials; undefined when there are none (an empty pattern matches anything). */
const leakPattern = (secrets: ReadonlyArray<{ value: string }>): RegExp | undefined =>
  secrets.length ? anyOf(secrets.map((s) => s.value)) : undefined;

/** The successful replies of the run a check can read: /auth of each application, endpoints 2–7, every detail. */
async function replies(
  ctx: CheckContext,
  each: (what: string, reply: Reply, who: Who) => Promise<void>,
): Promise<number> {
  let n = 0;
  const take = async (what: string, who: Who, get: () => Promise<Reply | undefined>): Promise<void> => {
    let r: Reply | undefined;
    try {
      r = await get();
    } catch (e) {
      if (e instanceof Blocked) {
        ctx.note(`${what} not read: ${e.message}`);
        return;
      }
      throw e;
    }
    // Only answers that carry data; refusals are the UNAUTH checks' (none: a recording without this /auth).
    if (!r || !successData(r).ok) return;
    n++;
    await each(what, r, who);
  };
  for (const who of ['app', ...(ctx.config.other_app ? ['other_app' as const] : [])] as const) {
    const as = who === 'app' ? '' : ` (${who})`;
    await take(`GET ${AUTH_PATH}${as}`, who, () => ctx.api.authAnswer(who));
    for (const path of RESOURCE_PATHS) await take(`GET ${path}${as}`, who, () => ctx.api.get(path, who));
    // Every application's details (#35): other_app's are the ones ISO-04 reads, so none is asked twice.
    for (const resource of DETAIL_RESOURCES) {
      const details = await ctx.api.details(resource, who).catch((e: unknown) => {
        if (e instanceof Blocked || e instanceof NetworkError) return [];
        throw e;
      });
      for await (const { id, reply } of details)
        await take(`GET ${detailPath(resource, id)}${as}`, who, () => Promise.resolve(reply));
    }
  }
  return n;
}

/** /auth's own fields: data.app_secret and data.app_key echo the key pair, data.app_token is the token (§2.6). */
const AUTH_FIELDS = new Set(['data.app_secret', 'data.app_key', TOKEN_PATH]);

/**
 * Key names of credential material: anything with "password" in it, or a name ending in secret, token, api key, app
 * key, access key, private key, salt or credential (remember_token, client_secret; not token_count or is_secret_menu).
 */
const CREDENTIAL_NAME =
  /pass(?:word|wd)|(?:^|[_\-.])(?:pwd|secret|token|api_?key|app_?key|access_?key|private_?key|salt|credentials?)$/i;
/** Values that are password hashes: bcrypt, argon2, crypt(3) SHA-256/512, Django's pbkdf2. */
const PASSWORD_HASH =
  /^(?:\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}|\$argon2(?:id|i|d)\$.+|\$[56]\$.+\$.+|pbkdf2_sha(?:1|256|512)\$.+)$/;

/** The checks that no answer carries credentials: the run's own keys and tokens, or secrets in records. */
export const credentialChecks = defineChecks('auth', [
  {
    id: 'SEC-01',
    level: 'MUST',
    spec: '§2.6, §1, §5.2',
    reads: ['dishes:app', 'seats:app', 'dishes:other_app', 'seats:other_app'],
    title: `No response carries a configured key or an issued token, except ${AUTH_PATH}'s app_secret, app_key and ${TOKEN_FIELD}`,
    async run(ctx) {
      const secrets = credentialsOf(ctx);
      const leak = leakPattern(secrets);
      const found: string[] = [];
      const keys = new Set<string>();
      const n = await replies(ctx, async (what, reply, who) => {
        const auth = what.startsWith(`GET ${AUTH_PATH}`);
        if (!auth && !(leak && (await suspicion(reply.json, leak)).leak)) return;
        walk(reply.json, (path, _key, v) => {
          if (typeof v !== 'string') return;
          for (const s of secrets) {
            if (!v.includes(s.value)) continue;
            const at = path();
            // /auth echoes its own application's pair and token in its three fields, and nothing else anywhere.
            if (auth && AUTH_FIELDS.has(at) && (s.what.startsWith(who) || s.what === `a token issued to ${who}`))
              continue;
            found.push(`${what} carries ${s.what} in ${at}`);
            keys.add(`${endpointLabel(what)} ${at.replace(/\[\d+\]/g, '[]')}`);
          }
        });
      });
      if (!n) throw new Blocked('no successful answer to read (see AUTH-01, AUTH-05)');
      if (found.length)
        ctx.fail(
          `${found.length} place${found.length > 1 ? 's' : ''} where a response carries a credential (only ${AUTH_PATH}'s app_secret, app_key and ${TOKEN_FIELD} may): ${found.slice(0, 5).join('; ')}${found.length > 5 ? `; … and ${found.length - 5} more` : ''}`,
          [...keys],
        );
    },
  },
  {
    id: 'SEC-02',
    level: 'SHOULD',
    spec: '§1, §2.2–§2.5',
    reads: ['dishes:app', 'seats:app', 'dishes:other_app', 'seats:other_app'],
    title:
      'Records carry no credential material: no password hash, no field named like a secret, a password or a token',
    async run(ctx) {
      const found = new Map<string, string>();
      // The leak pattern SEC-01 looks for too, so one look at each reply serves both checks (suspicion).
      const leak = leakPattern(credentialsOf(ctx));
      const n = await replies(ctx, async (what, reply) => {
        const auth = what.startsWith(`GET ${AUTH_PATH}`);
        const suspect = await suspicion(reply.json, leak);
        if (!suspect.hash && !suspect.named) return;
        walk(reply.json, (path, key, v) => {
          // A member named like a secret, or a password hash wherever it is (a list of strings too).
          const named = key !== undefined && CREDENTIAL_NAME.test(key) && v !== null && v !== '';
          if (!named && !(typeof v === 'string' && PASSWORD_HASH.test(v))) return;
          const at = path();
          if (auth && AUTH_FIELDS.has(at)) return;
          const where = `${endpointLabel(what)} ${at.replace(/\[\d+\]/g, '[]')}`;
          if (!found.has(where))
            found.set(where, `${where}: ${named ? 'a field named like credential material' : 'a password hash'}`);
        });
      });
      if (!n) throw new Blocked('no successful answer to read (see AUTH-01, AUTH-05)');
      if (found.size)
        ctx.fail(
          `records should carry no credential material (judgement: named by the field's name or a password-hash value; what it holds is not shown): ${[...found.values()].slice(0, 6).join('; ')}`,
          [...found.keys()],
        );
    },
  },
]);
