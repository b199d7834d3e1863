import { defineChecks, type CheckContext } from '../core/model/check.js';
import { isRecord, refusesToken, successData } from '../core/session/api.js';
import { AUTH_PATH, DATA_ENDPOINTS, type Endpoint } from '../core/spec/endpoints.js';
import {
  authQuery,
  authQueryText,
  authRequest,
  issuedToken,
  KEY_PAIR_QUERY,
  TOKEN_FIELD,
  TOKEN_HEADER,
  tokenField,
} from '../core/spec/auth-scheme.js';
import type { Reply } from '../core/transport/exchange.js';
import { SAFE_SECRET_LENGTH } from '../core/redact/redact.js';
import { illegalHeaderChars } from '../core/transport/issued-tokens.js';
import {
  carriedData,
  carriesData,
  describeReply,
  envelopeCode,
  expectError,
  expectShape,
  expectSuccess,
  isRefusal,
} from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { sensitiveValues, leakedValue } from './support/leaks.js';
import { dataEndpointPaths, endpointPath } from './support/paths.js';
import { sameJson } from './support/compare.js';
import { judgedApplications } from './support/tenants.js';
import { Findings } from '../core/model/findings.js';
import fc from 'fast-check';
import {
  APP_WAYS,
  appFor,
  BARE_WAYS,
  drawsPerPlace,
  FIXED_WAYS,
  PATH_WAYS,
  placeIndex,
  probeApps,
  type PathWay,
  type ProbeApp,
} from './support/token-probes.js';
import { Blocked } from '../core/session/check-errors.js';
import { disabledDataErrors, disabledTokenReplies, tokenOf } from './errors.js';
import { errorAnswerProblems } from './support/error-answers.js';

/** What is wrong with an answer to a request that carries no valid token, or undefined when it is a refusal. */
function refusalProblem(r: Reply, codes: number[], sensitive: Sensitive): string | undefined {
  const code = envelopeCode(r);
  if (!codes.includes(code as number)) return `expected code ${codes.join(' or ')}, got ${describeReply(r)}`;
  if (carriesData(r)) return `the refusal carries data ${carriedData(r)}`;
  const leak = leakedValue(r.text, sensitive);
  return leak ? `the refusal body contains ${leak}` : undefined;
}

type Sensitive = Awaited<ReturnType<typeof sensitiveValues>>;

/** A generated probe's finding, thrown so fast-check shrinks towards the simplest wrong token that got through. */
class ProbeFinding extends Error {}

/** An application's credentials a wrong token is derived from, as this run has them. */
interface Cred {
  who: ProbeApp;
  token: string;
  key?: string;
}

/** How a finding names the application a wrong token was derived from: nothing for app, as before #35. */
const fromWhom = (who: ProbeApp): string => (who === 'app' ? '' : ` (from ${who}'s credentials)`);

/**
 * The credentials of every application the covering design turns over (support/token-probes.ts appFor): app's
 * token and secret key, other_app's (its token from its own /auth), and the disabled application's earlier token
 * (and key, when configured). An application without a token this run (other_app's /auth refused: AUTH-02 judges
 * that) is stood in for by app, with a note.
 */
async function credentials(ctx: CheckContext): Promise<Array<Cred | undefined>> {
  const c = ctx.config;
  const apps = probeApps(c);
  return Promise.all(
    apps.map(async (who): Promise<Cred | undefined> => {
      if (who === 'app') return { who, token: await ctx.api.token(), key: c.app.key };
      if (who === 'disabled_app')
        return { who, token: c.disabled_app!.token!, ...(c.disabled_app!.key ? { key: c.disabled_app!.key } : {}) };
      try {
        return { who, token: await ctx.api.token('other_app'), key: c.other_app!.key };
      } catch (e) {
        if (!(e instanceof Blocked)) throw e;
        ctx.note(`wrong tokens derived from other_app's: not sent, app's stand in (${e.message})`);
        return undefined;
      }
    }),
  );
}

/** The longest path the token probes are sent to at every path way as well (a real id is a few characters). */
const LONG_PATH = 2048;

/** One probe of the token rule: a request without a valid credential at one place, and what its answer must be. */
interface Probe {
  way: string;
  /** The path way it is sent at; undefined at the endpoint itself. */
  at?: PathWay;
  who?: ProbeApp;
  send(): Promise<string | undefined>;
}

/**
 * The token rule at one data endpoint (§4 rule 4, §5.3, §5.4), every way at every place in every run: the endpoint
 * and each of its path ways, with no token, an empty one, a value unrelated to any token, wrong tokens derived from
 * an application's credentials (hand-picked and generated, shrunk on a finding), the real token in another carrier,
 * and at the path ways the disabled application's earlier token (AUTH-10 sends it to the endpoint itself). At the
 * endpoint the answer must be a 401 refusal with no data (any refusal where a carrier is also a query parameter);
 * at a path way, no data and no success (a router that does not serve it answers 404, which is fine).
 */
async function refusesBadTokens(ctx: CheckContext, ep: Endpoint): Promise<void> {
  const i = DATA_ENDPOINTS.indexOf(ep);
  const path = await endpointPath(ctx, ep);
  const [creds, sensitive] = await Promise.all([credentials(ctx), sensitiveValues(ctx)]);
  const app = creds[0]!;
  const tokens = creds.flatMap((c) => (c ? [c.token] : []));
  const { seed, runs } = ctx.config.fuzz;
  const draws = drawsPerPlace(runs);
  const probes: Probe[] = [];
  // A path past LONG_PATH (an id of megabytes a hostile list gave) is probed at the endpoint only: five times the
  // probes, each carrying it, would cost the run more than they can tell.
  const long = path.length > LONG_PATH;
  if (long) ctx.note(`the path ways not probed: the path has ${path.length} characters`);
  const places: Array<{ at?: PathWay; path: string; index: number }> = [
    { path, index: placeIndex(i) },
    ...(long ? [] : PATH_WAYS.map((w, v) => ({ at: w, path: w.path(path), index: placeIndex(i, v) }))),
  ];
  /** The problem with an answer at this place, or undefined when it refuses as it must. */
  const judge = (place: (typeof places)[number], r: Reply, codes: number[] | undefined): string | undefined => {
    const why = problemAt(place, r, codes);
    // Every answer judged is evidence: the finding's, or a correct refusal beside it (#35 item 5).
    ctx.shows(r, why ? 'finding' : 'correct');
    return why;
  };
  const problemAt = (place: (typeof places)[number], r: Reply, codes: number[] | undefined): string | undefined => {
    if (place.at) return successData(r).ok || carriesData(r) ? `GET ${place.path}: answered ${served(r)}` : undefined;
    if (codes) return refusalProblem(r, codes, sensitive);
    return successData(r).ok || carriesData(r) ? `the token was taken from it: answered ${served(r)}` : undefined;
  };
  /** Whether a finding came from generated values (the message then names the seed that replays them). */
  let generated = false;
  /** Sends generated values (shrunk on a finding): the first finding's text, or undefined. */
  const drawn = async (
    arb: fc.Arbitrary<string>,
    place: (typeof places)[number],
    k: number,
    secretOf?: string,
  ): Promise<string | undefined> => {
    const details = await fc.check(
      fc.asyncProperty(arb, async (value) => {
        // A value holding the whole token is redacted through it; any other derived one reveals part of it, so is a
        // secret whole (and a recording holds it as the derived token's stand-in).
        const derived = secretOf !== undefined && !value.includes(secretOf);
        if (derived) ctx.secret(value, 'derived-token');
        const r = await ctx.send({ path: place.path, token: value, ...(derived ? { derived: 'token' as const } : {}) });
        const why = judge(place, r, [401]);
        if (why) throw new ProbeFinding(why);
      }),
      { seed: seed + place.index * 64 + k, numRuns: draws },
    );
    if (!details.failed) return undefined;
    if (!(details.errorInstance instanceof ProbeFinding)) throw details.errorInstance;
    // The run's seed replays it (--seed; fast-check's own is that plus the probe's place): said once, in the message.
    generated = true;
    return `(shrunk ${details.numShrinks} times): ${details.errorInstance.message}`;
  };
  for (const place of places) {
    BARE_WAYS.forEach((way, k) => {
      const value = way.value(tokens);
      probes.push({
        way: way.name,
        ...(place.at ? { at: place.at } : {}),
        send: async () => {
          // The unrelated value is drawn as long as the tokens the run knows: a replay, which knows their stand-ins,
          // finds it by the derived token's stand-in (no part of it is secret; it is redacted all the same).
          if (typeof value === 'object') return drawn(value, place, 32 + k, '\u0000');
          const r = await ctx.send({ path: place.path, token: value });
          return judge(place, r, [401]);
        },
      });
    });
    APP_WAYS.forEach((way, k) => {
      const cred = appFor(creds, k, place.index) ?? app;
      probes.push({
        way: way.name,
        who: cred.who,
        ...(place.at ? { at: place.at } : {}),
        send: async () => {
          if (way.kind === 'carrier')
            return judge(place, await ctx.send(way.request(place.path, cred.token)), way.codes);
          if (way.kind === 'value') {
            const arb = way.arbitrary(cred.token);
            if (!arb) {
              ctx.note(`${way.name}${fromWhom(cred.who)}: not probed, the token has ${cred.token.length} characters`);
              return undefined;
            }
            return drawn(arb, place, k, cred.token);
          }
          const value = way.value(cred);
          if (value === undefined) {
            ctx.note(`${way.name}${fromWhom(cred.who)}: not probed, no secret key is configured for ${cred.who}`);
            return undefined;
          }
          // app's token with its last character changed keeps its own stand-in (a report's curl line rebuilds it);
          // another application's is a derived token, which a recording holds as the derived token's stand-in.
          const derived = cred.who !== 'app' && way === FIXED_WAYS[0];
          if (derived) ctx.secret(value, 'derived-token');
          else ctx.secret(value);
          const r = await ctx.send({
            path: place.path,
            token: value,
            ...(derived ? { derived: 'token' as const } : {}),
          });
          return judge(place, r, [401]);
        },
      });
    });
    const disabled = ctx.config.disabled_app?.token;
    if (place.at && disabled)
      probes.push({
        way: "the disabled application's earlier token",
        who: 'disabled_app',
        at: place.at,
        send: async () => judge(place, await ctx.send({ path: place.path, token: disabled }), [401]),
      });
  }
  // All at once, through the engine's concurrency caps: refusals are cheap. A probe without an answer (a reset
  // connection) ends the check as incomplete, none left unawaited. Judged in the order of the probes, whatever order
  // the answers came in: a finding's text is stable across runs.
  // Planned first (one request each; a shrunk finding sends a few more), so the progress line counts them.
  ctx.api.plan(probes.length);
  const answers = await Promise.all(probes.map((p) => p.send()));
  const found = new Findings();
  // Each finding in a block of its own: a statement after an early return counts as reached in every run (npm run ways).
  answers.forEach((why, n) => {
    if (why) {
      const p = probes[n]!;
      const who = p.who ? fromWhom(p.who) : '';
      const at = p.at ? ` at ${p.at.name}` : '';
      // Fingerprints as before #35 at the endpoint itself for app; a path way or another application is named.
      const key = p.at ? (p.way === BARE_WAYS[0]!.name ? p.at.name : `${p.way}, ${p.at.name}`) : p.way;
      found.add(`${p.way}${who}${at}${why.startsWith('(') ? ' ' : ': '}${why}`, `${key}${who}`);
    }
  });
  if (found.length)
    ctx.fail(
      `GET ${path} (§4 endpoint ${ep.n}) and the paths a router may serve as it must refuse every request without a valid token (code 401 and no data at the endpoint; no data at the others): ${found.items.join('; ')}${generated ? ` (generated values from seed ${seed}: --seed ${seed} replays them)` : ''}`,
      found.fingerprints,
    );
}

/** A configured application's key pair: app's, other_app's, and the disabled application's when its keys are set. */
interface KeyPair {
  who: ProbeApp;
  secret: string;
  key: string;
}

/** Every key pair the run is configured with, app's first. */
function keyPairs(ctx: CheckContext): KeyPair[] {
  const { app, other_app: other, disabled_app: disabled } = ctx.config;
  return [
    { who: 'app', secret: app.secret, key: app.key },
    ...(other ? [{ who: 'other_app' as const, secret: other.secret, key: other.key }] : []),
    ...(disabled?.secret && disabled.key
      ? [{ who: 'disabled_app' as const, secret: disabled.secret, key: disabled.key }]
      : []),
  ];
}

/** A string with the letter case of each letter swapped ("sk_Ab1" → "SK_aB1"). */
const swapCase = (s: string): string =>
  [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/** One key pair AUTH-07 sends to /auth, named for its finding. */
interface KeyPairProbe {
  label: string;
  query: Record<string, string>;
  derived?: 'key' | 'public-key';
}

/**
 * AUTH-07's key pairs, for each configured application (app, other_app, the disabled application when its keys are
 * set: §5.4 refuses every pair that is not an application's own, whatever the application): its public key with a
 * wrong secret key, the pair swapped (the secret key sent as the public key and the other way round), its public key
 * with a prefix, a suffix and an inner part of its secret key (where drawn by fast-check from the seed), with its
 * secret key in another letter case, and with spaces around it; its secret key with a prefix of its public key, its
 * public key in another letter case, and with spaces around it; and each public key with another application's secret
 * key. A part or a respelling reveals the key, so it is a secret of the run.
 */
function keyPairProbes(ctx: CheckContext): KeyPairProbe[] {
  const pairs = keyPairs(ctx);
  const probes: KeyPairProbe[] = [];
  const { seed } = ctx.config.fuzz;
  /** A part of a key (never the whole): a secret, and a recording holds it as the derived key's stand-in. */
  const part = (p: KeyPair, label: string, value: string): void => {
    ctx.secret(value, 'derived-key');
    probes.push({ label, query: authQuery({ secret: p.secret, key: value }), derived: 'key' });
  };
  pairs.forEach((p, n) => {
    const { who, key } = p;
    probes.push(
      {
        label: `${who}'s public key with a wrong secret key`,
        query: authQuery({ secret: p.secret, key: `${key}-wrong` }),
      },
      {
        label: `${who}'s key pair swapped (${authQueryText('<secret key>', '<public key>')})`,
        query: authQuery({ secret: key, key: p.secret }),
      },
    );
    // Parts at least SAFE_SECRET_LENGTH long, so the redactor hides them everywhere.
    if (key.length > SAFE_SECRET_LENGTH) {
      const [k, j] = fc.sample(
        fc.tuple(
          fc.integer({ min: SAFE_SECRET_LENGTH, max: key.length - 1 }),
          fc.integer({ min: 1, max: key.length - SAFE_SECRET_LENGTH }),
        ),
        // app's prefix as before (the seed itself); the others' drawn from the seed and their place.
        { seed: seed + n, numRuns: 1 },
      )[0]!;
      part(p, `${who}'s public key with a prefix of its secret key`, key.slice(0, k));
      part(p, `${who}'s public key with a suffix of its secret key`, key.slice(j));
    } else ctx.note(`a prefix and a suffix of ${who}'s secret key: not probed, the key has ${key.length} characters`);
    if (key.length - 2 >= SAFE_SECRET_LENGTH)
      part(p, `${who}'s public key with its secret key less its first and last characters`, key.slice(1, -1));
    else ctx.note(`an inner part of ${who}'s secret key: not probed, the key has ${key.length} characters`);
    const respelled = swapCase(key);
    if (respelled !== key) {
      ctx.secret(respelled, 'derived-key');
      probes.push({
        label: `${who}'s public key with its secret key in another letter case`,
        query: authQuery({ secret: p.secret, key: respelled }),
        derived: 'key',
      });
    } else ctx.note(`${who}'s secret key in another letter case: not probed, the key has no letters`);
    // Holding the whole key, it is redacted through it.
    probes.push({
      label: `${who}'s public key with spaces around its secret key`,
      query: authQuery({ secret: p.secret, key: ` ${key} ` }),
    });
    // The public key broken the same ways, with the right secret key (#35): a lookup by a lax public key.
    const publicKey = p.secret;
    if (publicKey.length > SAFE_SECRET_LENGTH) {
      const cut = publicKey.slice(0, publicKey.length - 1);
      ctx.secret(cut, 'derived-public-key');
      probes.push({
        label: `a prefix of ${who}'s public key with its secret key`,
        query: authQuery({ secret: cut, key }),
        derived: 'public-key',
      });
    } else ctx.note(`a prefix of ${who}'s public key: not probed, the key has ${publicKey.length} characters`);
    const publicRespelled = swapCase(publicKey);
    if (publicRespelled !== publicKey) {
      ctx.secret(publicRespelled, 'derived-public-key');
      probes.push({
        label: `${who}'s public key in another letter case with its secret key`,
        query: authQuery({ secret: publicRespelled, key }),
        derived: 'public-key',
      });
    } else ctx.note(`${who}'s public key in another letter case: not probed, the key has no letters`);
    probes.push({
      label: `${who}'s public key with spaces around it, with its secret key`,
      query: authQuery({ secret: ` ${publicKey} `, key }),
    });
  });
  // Halves of two applications' pairs: app's with other_app's both ways (as before #35), and the disabled
  // application's public key with app's secret key and app's public key with the disabled application's.
  for (const [a, b] of [
    ['app', 'other_app'],
    ['other_app', 'app'],
    ['disabled_app', 'app'],
    ['app', 'disabled_app'],
  ] as const) {
    const [pa, pb] = [pairs.find((p) => p.who === a), pairs.find((p) => p.who === b)];
    if (pa && pb)
      probes.push({
        label: `${a}'s public key with ${b}'s secret key`,
        query: authQuery({ secret: pa.secret, key: pb.key }),
      });
  }
  return probes;
}

/** §5.4, §7: /auth refuses with one of the given codes and issues nothing. */
function judgeAuthRefusal(ctx: CheckContext, r: Reply, label: string, codes: number[]): void {
  expectError(ctx, r, codes, `GET ${AUTH_PATH} ${label}`);
  if (carriesData(r)) {
    ctx.shows(r, 'finding');
    ctx.fail(`GET ${AUTH_PATH} ${label}: the refusal carries data ${carriedData(r)}`);
  }
}

/** What an answer that had to refuse served: its status, and the data it carries when it is no success. */
function served(r: Reply): string {
  return successData(r).ok ? describeReply(r) : `${describeReply(r)}, a refusal that carries data ${carriedData(r)}`;
}

/**
 * A check of what a successful /auth answer holds passes only on what it read: with no such answer from any
 * application (a refusal, a server error) it judged nothing, and AUTH-01 or AUTH-02 owns that answer.
 */
function requireJudged(judged: number, owners: string): void {
  if (judged === 0) throw new Blocked(`no successful ${AUTH_PATH} answer to read (see ${owners})`);
}

const unauth = DATA_ENDPOINTS.map((ep) => ({
  id: `UNAUTH-${ep.name.toUpperCase()}`,
  title: `GET ${ep.path} refuses a missing or invalid token with 401 and no data`,
  level: 'MUST' as const,
  spec: `§4 rule 4, §5.4, §7 (endpoint ${ep.n})`,
  run: (ctx: CheckContext) => refusesBadTokens(ctx, ep),
}));

/** The checks of /auth and of the token (§4 rule 3 and 4, §5, §7). */
export const authChecks = defineChecks('auth', [
  {
    id: 'AUTH-01',
    title: `${AUTH_PATH} issues a token for a valid key pair, with no ${TOKEN_HEADER} header`,
    level: 'MUST',
    spec: '§4 endpoint 1, §4 rule 3, §5.2, §2.6',
    async run(ctx) {
      const r = await ctx.api.auth();
      const data = expectSuccess(ctx, r, `GET ${AUTH_PATH} with a valid key pair`);
      const token = tokenField(data);
      if (typeof token !== 'string' || token === '')
        return ctx.fail(`GET ${AUTH_PATH}: expected a non-empty string ${TOKEN_FIELD} in data, got ${show(token)}`);
      // A token no header can carry cannot be sent back (§5.3 step 3): the requests that would are not sent.
      const illegal = illegalHeaderChars(token);
      if (illegal)
        ctx.fail(
          `GET ${AUTH_PATH}: the issued ${TOKEN_FIELD} holds characters no header value may carry (${illegal}; RFC 9110 §5.5), so no request can send it back in the ${TOKEN_HEADER} header`,
        );
      // Such a token is a word as much as a secret: it is hidden in what the server sent, not in the tool's own text.
      if (token.length < SAFE_SECRET_LENGTH)
        ctx.note(
          `the issued ${TOKEN_FIELD} has ${token.length} characters, too few to redact safely everywhere: it is redacted in server data (evidence, quoted values) but may remain readable in the tool's own text`,
        );
    },
  },
  {
    id: 'AUTH-02',
    title: `${AUTH_PATH} answers the access credential result of §2.6, for every configured application`,
    level: 'MUST',
    spec: '§2.6, §2.5',
    async run(ctx) {
      // Every configured application's answer (#27): other_app's /auth is read anyway, to learn its merchant.
      let judged = 0;
      for (const app of judgedApplications(ctx)) {
        const r = app.who === 'app' ? await ctx.api.auth() : await ctx.api.authAnswer(app.who);
        const s = r ? successData(r) : undefined;
        // app's refusal is AUTH-01's; other_app's, refused its own valid key pair in the run (its token for the
        // checks that need one), is this check's: they are blocked pointing here (#35). A success envelope gone wrong
        // is the envelope checks'.
        if (r && s && !s.ok && isRefusal(r) && app.who !== 'app')
          ctx.fail(
            `GET ${AUTH_PATH} with ${app.who}'s key pair: expected the access credential result (§2.6), ${s.why}`,
            [`${app.who}:refused`],
          );
        if (!s?.ok) continue;
        judged++;
        // other_app's token as AUTH-01 judges app's: one no header can carry cannot be sent back (§5.3 step 3).
        const token = app.who === 'app' ? undefined : tokenField(s.data);
        const illegal = typeof token === 'string' ? illegalHeaderChars(token) : undefined;
        if (illegal)
          ctx.fail(
            `GET ${AUTH_PATH} with ${app.who}'s key pair: the issued ${TOKEN_FIELD} holds characters no header value may carry (${illegal}; RFC 9110 §5.5), so no request can send it back in the ${TOKEN_HEADER} header`,
            [`${app.who}:${TOKEN_FIELD}`],
          );
        expectShape(ctx, 'auth-result', s.data, `GET ${AUTH_PATH}${app.suffix} data`);
      }
      requireJudged(judged, 'AUTH-01');
    },
  },
  {
    id: 'AUTH-03',
    title: `${AUTH_PATH} echoes app_secret as the public key and app_key as the secret key, for every configured application`,
    level: 'MUST',
    spec: '§2.6',
    async run(ctx) {
      const found = new Findings();
      // Every configured application's answer (#27), each against its own key pair.
      let judged = 0;
      for (const app of judgedApplications(ctx)) {
        const r = app.who === 'app' ? await ctx.api.auth() : await ctx.api.authAnswer(app.who);
        const s = r ? successData(r) : undefined;
        if (!s?.ok || !isRecord(s.data)) continue;
        judged++;
        const sent = app.who === 'app' ? ctx.config.app : ctx.config.other_app!;
        const mark = app.who === 'app' ? '' : `${app.who}:`;
        const where = app.suffix ? ` (GET ${AUTH_PATH}${app.suffix})` : '';
        if (s.data.app_secret !== sent.secret)
          found.add(
            `app_secret is ${show(s.data.app_secret)}, expected the public key sent as secret${where}`,
            `${mark}app_secret`,
          );
        if (s.data.app_key !== sent.key)
          found.add(
            `app_key is ${show(s.data.app_key)}, expected the secret key sent as key${where}`,
            `${mark}app_key`,
          );
      }
      if (found.length) ctx.fail(`GET ${AUTH_PATH}: ${found.items.join('; ')}`, found.fingerprints);
      requireJudged(judged, 'AUTH-01, AUTH-02');
    },
  },
  {
    id: 'AUTH-04',
    title: `The merchant in ${AUTH_PATH} equals the merchant of /merchant, for every configured application`,
    level: 'MUST',
    spec: '§2.6, §4 endpoint 2, §1',
    async run(ctx) {
      const problems: string[] = [];
      const keys: string[] = [];
      let judged = 0;
      // Every application: the isolation checks learn who other_app is from its /auth (suites/support/tenants.ts).
      for (const who of ['app', ...(ctx.config.other_app ? ['other_app' as const] : [])] as const) {
        const s = successData(await ctx.api.auth(who));
        if (!s.ok || !isRecord(s.data) || !isRecord(s.data.merchant)) continue;
        const m = await ctx.api.merchant(who);
        judged++;
        const a = s.data.merchant;
        const diff = [...new Set([...Object.keys(a), ...Object.keys(m)])].filter((k) => !sameJson(a[k], m[k]));
        if (diff.length)
          problems.push(
            `${who}: the merchant of ${AUTH_PATH} and of /merchant differ in ${diff.map((k) => `${k} (${show(a[k], 40)} vs ${show(m[k], 40)})`).join(', ')}`,
          );
        keys.push(...diff.map((k) => (who === 'app' ? `merchant.${k}` : `${who}:merchant.${k}`)));
      }
      if (problems.length) ctx.fail(problems.join('; '), keys);
      requireJudged(judged, 'AUTH-01, AUTH-02');
    },
  },
  {
    id: 'AUTH-05',
    title: 'The token opens every data endpoint (2–7), for every configured application',
    level: 'MUST',
    spec: '§5.3, §4 rule 4',
    async run(ctx) {
      const found = new Findings();
      // Each application's token at each data endpoint (a detail at an id of its own list); app's fingerprints as
      // before #35. other_app's /auth refused is AUTH-02's finding: its part is then not judged here, said in a note.
      const asked = await Promise.all(
        judgedApplications(ctx).map(async ({ who, suffix }) => {
          let paths: Awaited<ReturnType<typeof dataEndpointPaths>>;
          try {
            paths = await dataEndpointPaths(ctx, who);
          } catch (e) {
            if (!(e instanceof Blocked)) throw e;
            ctx.note(`${who}'s token not tried: ${e.message}`);
            return [];
          }
          return Promise.all(
            paths.map(async ({ ep, path }) => ({ who, suffix, ep, path, r: await ctx.api.get(path, who) })),
          );
        }),
      );
      for (const { who, suffix, ep, path, r } of asked.flat())
        // Only a refusal is the token's fault; a malformed success envelope is ENV-01's.
        if (isRefusal(r))
          found.add(`GET ${path}${suffix}: ${describeReply(r)}`, `${who === 'app' ? '' : `${who}:`}GET ${ep.path}`);
      if (found.length)
        ctx.fail(
          `with the token from ${AUTH_PATH}, expected the data, got a refusal: ${found.items.join('; ')}`,
          found.fingerprints,
        );
    },
  },
  {
    id: 'AUTH-06',
    title: `${AUTH_PATH} without ${KEY_PAIR_QUERY.publicKey} or without ${KEY_PAIR_QUERY.secretKey} is refused with 400 or 401 and no token`,
    level: 'MUST',
    spec: '§4 endpoint 1, §7',
    mintsTokens: true,
    async run(ctx) {
      const { publicKey, secretKey } = KEY_PAIR_QUERY;
      // Every configured key pair (other_app's, the disabled application's when set: §5.5 refuses it anyway) with one
      // of its two parameters left out, and sent as request headers named like them, or in the GET's body as JSON and
      // as a form, with none in the query (§4 endpoint 1 carries them in the query string only, and "The request has
      // no body."; RFC 9110 §9.3.1: a GET's content "cannot alter the meaning or target of the request"); app's
      // labels as before #35.
      const cases: Array<{
        label: string;
        query: Record<string, string>;
        headers?: Record<string, string>;
        body?: string;
      }> = [];
      for (const { who, secret, key } of keyPairs(ctx)) {
        const whose = who === 'app' ? '' : ` (${who}'s key pair)`;
        cases.push(
          { label: `without ${secretKey}${whose}`, query: { [publicKey]: secret } },
          { label: `without ${publicKey}${whose}`, query: { [secretKey]: key } },
        );
        if (who === 'app') cases.push({ label: 'with neither', query: {} });
        cases.push({
          label: `with ${publicKey} and ${secretKey} as request headers, none in the query${whose || " (app's key pair)"}`,
          query: {},
          headers: { [publicKey]: secret, [secretKey]: key },
        });
        const inBody = `none in the query${whose || " (app's key pair)"}`;
        cases.push(
          // The spec's own Content-Type (application/json; charset=utf-8) goes with the JSON body.
          {
            label: `with ${publicKey} and ${secretKey} in a JSON request body, ${inBody}`,
            query: {},
            body: JSON.stringify({ [publicKey]: secret, [secretKey]: key }),
          },
          {
            label: `with ${publicKey} and ${secretKey} in a form request body, ${inBody}`,
            query: {},
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ [publicKey]: secret, [secretKey]: key }).toString(),
          },
        );
      }
      // Those with a query of their own at once (no request depends on another); those that share the bare path one
      // after another after them, so a recording answers each as it came. Judged in the order of the cases.
      // A body tells its request apart in a recording as a query does (core/session/recorded-source.ts).
      const send = ({ query, headers, body }: (typeof cases)[number]): Promise<Reply> =>
        ctx.send({ path: AUTH_PATH, query, ...(headers ? { headers } : {}), ...(body !== undefined ? { body } : {}) });
      const bare = (c: (typeof cases)[number]): boolean => !Object.keys(c.query).length && c.body === undefined;
      // Planned now: they go out in the token-minting phase at the end of the run, which the estimate must count.
      ctx.api.plan(cases.length);
      const replies = new Map<(typeof cases)[number], Reply>();
      await Promise.all(cases.filter((c) => !bare(c)).map(async (c) => replies.set(c, await send(c))));
      for (const c of cases.filter(bare)) replies.set(c, await send(c));
      cases.forEach((c) => {
        const r = replies.get(c)!;
        // A GET with a body breaks §4 ("The request has no body."): a front end (a load balancer, a WAF) may refuse it
        // before the API does, with an HTTP 4xx of its own that is no envelope. It issued nothing, which is what
        // §5.2 asks; an answer of the API itself (an envelope) is judged as the other cases.
        if (c.body !== undefined && r.status >= 400 && r.status < 500 && !isRecord(r.json)) {
          ctx.shows(r, 'correct');
          ctx.note(
            `GET ${AUTH_PATH} ${c.label}: refused with HTTP ${r.status} and no envelope (a front end's refusal of a GET with a body)`,
          );
          return;
        }
        judgeAuthRefusal(ctx, r, c.label, [400, 401]);
      });
    },
  },
  {
    id: 'AUTH-07',
    title: `${AUTH_PATH} refuses a key pair that is not the application's own with 401 and no token, for every configured application`,
    level: 'MUST',
    spec: '§5.2, §5.4, §7',
    mintsTokens: true,
    async run(ctx) {
      const probes = keyPairProbes(ctx);
      // Planned now: they go out at the end of the run (the token-minting phase), which the estimate must count.
      ctx.api.plan(probes.length);
      // Sent at once (no probe depends on another), judged in the order of the probes.
      const replies = await Promise.all(
        probes.map((p) => ctx.send({ path: AUTH_PATH, query: p.query, ...(p.derived ? { derived: p.derived } : {}) })),
      );
      const found = new Findings();
      replies.forEach((r, i) => {
        const { label } = probes[i]!;
        const code = envelopeCode(r);
        // A refusal is an answer like any other: the error envelope, as JSON in UTF-8 (§1, §2.1, §7; ERR-04's judgement).
        const envelope = code === 401 ? errorAnswerProblems(r) : [];
        ctx.shows(r, code !== 401 || carriesData(r) || envelope.length ? 'finding' : 'correct');
        if (code !== 401) found.add(`${label}: expected code 401, got ${describeReply(r)}`, label);
        else if (carriesData(r)) found.add(`${label}: the refusal carries data ${carriedData(r)}`, label);
        for (const p of envelope) found.add(`${label}: ${p.text}`, `${label}:envelope${p.suffix}`);
      });
      if (found.length)
        ctx.fail(
          `GET ${AUTH_PATH} must refuse every key pair that is not an application's own (§5.4: code 401, no token): ${found.items.join('; ')}`,
          found.fingerprints,
        );
    },
  },
  {
    id: 'AUTH-08',
    title: `${AUTH_PATH} with an unknown public key is refused with 401 and no token`,
    level: 'MUST',
    spec: '§5.4, §7',
    mintsTokens: true,
    async run(ctx) {
      // With every configured application's secret key (app's as before #35): a server that looks an application up
      // by its secret key alone is found whichever key it is given.
      const pairs = keyPairs(ctx);
      ctx.api.plan(pairs.length);
      const replies = await Promise.all(
        pairs.map(({ key }) =>
          ctx.send({ path: AUTH_PATH, query: authQuery({ secret: 'conformance-unknown-public-key', key }) }),
        ),
      );
      pairs.forEach(({ who }, i) =>
        judgeAuthRefusal(
          ctx,
          replies[i]!,
          `with an unknown public key${who === 'app' ? '' : ` and ${who}'s secret key`}`,
          [401],
        ),
      );
    },
  },
  {
    id: 'AUTH-09',
    title: `${AUTH_PATH} refuses a disabled application with 401`,
    level: 'MUST',
    spec: '§5.5, §7',
    requires: ['disabled_app_keys'],
    async run(ctx) {
      const query = authQuery({ secret: ctx.config.disabled_app!.secret!, key: ctx.config.disabled_app!.key! });
      // Its key pair at every data endpoint as well, in the query as /auth takes it, with no token: it opens nothing
      // there either (§5.5). A request without a token is refused (§5.4), or a list's parameters answered 400 (§4
      // rule 2): either way no data.
      // The paths first: no request may be left unawaited while they are found.
      const paths = await dataEndpointPaths(ctx);
      const [auth, ...data] = await Promise.all([
        ctx.send({ path: AUTH_PATH, query }),
        ...paths.map(async ({ ep, path }) => ({
          ep,
          path,
          r: await ctx.send({ path, query }),
        })),
      ]);
      judgeAuthRefusal(ctx, auth as Reply, "with the disabled application's keys", [401]);
      const found = new Findings();
      for (const { ep, path, r } of data as Array<{ ep: Endpoint; path: string; r: Reply }>) {
        // Opened is answered as a success; a refusal that carries data is the endpoint's UNAUTH check's finding.
        const opened = successData(r).ok;
        ctx.shows(r, opened ? 'finding' : 'correct');
        if (opened) found.add(`GET ${path}: ${describeReply(r)}`, `GET ${ep.path}:keys`);
      }
      if (found.length)
        ctx.fail(
          `the disabled application's key pair, sent in the query string of a data endpoint with no token, must open nothing (§5.5): ${found.items.join('; ')}`,
          found.fingerprints,
        );
    },
  },
  {
    id: 'AUTH-10',
    title: "A disabled application's earlier token is refused with 401 on every data endpoint",
    level: 'MUST',
    spec: '§5.5, §5.4, §7',
    requires: ['disabled_app_token'],
    async run(ctx) {
      const found = new Findings();
      const sensitive = await sensitiveValues(ctx);
      const token = await tokenOf(ctx, 'disabled_app');
      // Sent once and shared with ERR-04, which judges the same refusals as envelopes, JSON and UTF-8 (#35).
      for (const { ep, path, reply: r } of await disabledTokenReplies(ctx)) {
        // Its refusal names no merchant's values either (§2.1 msg describes the error, §1: data is the owner's).
        const leak = leakedValue(r.text, sensitive);
        ctx.shows(r, envelopeCode(r) !== 401 || carriesData(r) || leak ? 'finding' : 'correct');
        if (envelopeCode(r) !== 401) found.add(`GET ${path}: ${describeReply(r)}`, `GET ${ep.path}`);
        else if (carriesData(r)) found.add(`GET ${path}: the refusal carries data`, `GET ${ep.path}`);
        else if (leak) found.add(`GET ${path}: the refusal body contains ${leak}`, `GET ${ep.path}:leak`);
      }
      // Its other requests of the data endpoints (#35), shared with ERR-04: unknown ids and the lists with query
      // parameters. Refused, with whatever error code (an id or a parameter may be judged before the token), no data.
      for (const { request, key, reply: r } of await disabledDataErrors(ctx)) {
        ctx.shows(r, successData(r).ok || carriesData(r) ? 'finding' : 'correct');
        if (successData(r).ok) found.add(`${request}: answered ${describeReply(r)}`, key);
        else if (carriesData(r)) found.add(`${request}: the refusal carries data`, key);
      }
      // At /auth, with no key pair: the earlier token renews nothing (§5.5: its credential is refused).
      const r = await ctx.send({ path: AUTH_PATH, token });
      // A token issued is a success; a refusal carrying data is AUTH-06's (/auth without secret and key).
      ctx.shows(r, successData(r).ok ? 'finding' : 'correct');
      if (successData(r).ok)
        found.add(`GET ${AUTH_PATH} with the token and no key pair: ${describeReply(r)}`, `GET ${AUTH_PATH}`);
      if (found.length)
        ctx.fail(
          `expected code 401 for the disabled application's token, got ${found.items.join('; ')}`,
          found.fingerprints,
        );
    },
  },
  ...unauth,
  // The implementation profile: what the server chose where the spec leaves it open (INFO, never fails).
  {
    id: 'INFO-AUTH-TOKEN',
    title: `Whether ${AUTH_PATH} issues a new token on every call, and whether the earlier token still works`,
    level: 'INFO',
    spec: '§5.2, §5.6',
    mintsTokens: true,
    async run(ctx) {
      const c = ctx.config.app;
      const mint = async (): Promise<string | undefined> => {
        const s = successData(await ctx.send(authRequest(c)));
        return s.ok ? issuedToken(s.data) : undefined;
      };
      const first = await mint();
      const second = first === undefined ? undefined : await mint();
      // Read once its /auth calls were let through: by then every check that used the run's tokens has ended.
      const renewals = ctx.api.tokenEvents.length ? `; during the run: ${ctx.api.tokenEvents.join('; ')}` : '';
      if (first === undefined || second === undefined)
        return ctx.observe(`a ${AUTH_PATH} call carried no ${TOKEN_FIELD}${renewals}`);
      // Tokens are never shown, only whether they are equal and still accepted.
      if (second === first) return ctx.observe(`the same token on every ${AUTH_PATH} call${renewals}`);
      const old = await ctx.send({ path: '/merchant', token: first });
      const fate = successData(old).ok
        ? 'the earlier token still works'
        : refusesToken(old)
          ? 'the earlier token is refused (401) once a new one is issued'
          : `the earlier token then gets ${describeReply(old)}`;
      ctx.observe(`a new token on every ${AUTH_PATH} call; ${fate}${renewals}`);
    },
  },
]);
