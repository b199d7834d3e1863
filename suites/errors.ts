import { defineChecks, type CheckContext } from '../core/model/check.js';
import { Blocked, CheckFailure } from '../core/session/check-errors.js';
import { isRecord, successData } from '../core/session/api.js';
import { DETAIL_RESOURCES, LIST_PATHS, nounOf, type Resource, type Who } from '../core/spec/resources.js';
import type { Reply } from '../core/transport/exchange.js';
import { AUTH_PATH, DATA_ENDPOINTS, detailPath, type Endpoint } from '../core/spec/endpoints.js';
import { KEY_PAIR_QUERY } from '../core/spec/auth-scheme.js';
import { carriedData, carriesData, describeReply, envelopeCode, expectError } from '../core/model/assertions.js';
import { validate } from '../core/spec/schemas.js';
import { dataEndpointPaths } from './support/paths.js';
import { judgedApplications } from './support/tenants.js';
import { errorAnswerProblems } from './support/error-answers.js';
import { sameContent } from './support/compare.js';
import { Findings } from '../core/model/findings.js';
import { errorPhrase, grouped } from './support/observations.js';
import { askAgain } from './readonly.js';

/**
 * The error answers of §7 the suite provokes. Each is sent once per run through ctx.api.once, so the MUST checks
 * here, the SHOULD on HTTP statuses and the INFO profile (INFO-ERR-*, below) judge the same answers.
 */

export const UNKNOWN_INTERFACE = '/conformance-unknown-interface';
/** A non-numeric id: no int id (§2.2, §2.3) can be it. */
export const NON_NUMERIC_ID = 'conformance-unknown-id';
/** Added to the largest id of a list: far enough that it is no neighbour another check already used. */
const PAST_MAX = 1_000_000n;
/**
 * List-endpoint query parameters a server might be tempted to honour (§4 rule 2: none accepted): paging, the filters
 * a list of dishes, seats or orders is commonly given (status, dates, ids, a search), and sorting. All go in one
 * request per list: a server that applies any one of them answers other records (each filter's value matches no
 * record: status -99, the day 1970-01-01, id 0, a search for a word no record holds). Sorting alone changes only the
 * order, which is not content (the lists are compared as multisets).
 */
export const LIST_QUERY: Record<string, string> = {
  page: '2',
  limit: '1',
  per_page: '1',
  offset: '1',
  page_size: '1',
  size: '1',
  status: '-99',
  date: '1970-01-01',
  start_date: '1970-01-01',
  end_date: '1970-01-01',
  from: '1970-01-01',
  to: '1970-01-01',
  created_at: '1970-01-01',
  updated_at: '1970-01-01',
  id: '0',
  category_id: '0',
  seat_id: '0',
  user_id: '0',
  q: 'conformance-probe',
  search: 'conformance-probe',
  keyword: 'conformance-probe',
  name: 'conformance-probe',
  sort: 'id',
  order: 'desc',
  conformance_probe: '1',
};

/** key: the probe's fingerprint, stable across runs (no id that depends on the data). */
export interface ErrorProbe {
  kind: string;
  request: string;
  key: string;
  reply: Reply;
  /**
   * No other check reads this answer's data (another application's errors, #35): ERR-04 judges that it carries none
   * (§2.1 data, §5.4, §7). app's errors, the unknown interface's and the disabled token's refusals have their own.
   */
  judgeData?: true;
  /** A success is a right answer too (a list ignoring its query parameters): only an error is judged. */
  maySucceed?: true;
}

/**
 * The applications besides app whose errors the suite provokes as well (#35): other_app, with its token, and the
 * disabled application, with its earlier token (§5.5: refused with 401 wherever it goes).
 */
export type OtherApp = 'other_app' | 'disabled_app';

/** The other applications this run has: other_app when configured, the disabled application when it has a token. */
export function otherErrorApps(ctx: Pick<CheckContext, 'config'>): OtherApp[] {
  return [
    ...(ctx.config.other_app ? ['other_app' as const] : []),
    ...(ctx.config.disabled_app?.token ? ['disabled_app' as const] : []),
  ];
}

/** An application's token: app's and other_app's from their /auth, the disabled application's as configured. */
export async function tokenOf(ctx: CheckContext, who: Who | OtherApp): Promise<string> {
  if (who !== 'disabled_app') return ctx.api.token(who);
  const token = ctx.config.disabled_app?.token;
  if (token === undefined) throw new Blocked('no token of the disabled application is configured');
  return token;
}

/** How a request names the application whose token it carries: nothing for app. */
const withTokenOf = (who: Who | OtherApp): string => (who === 'app' ? '' : ` with ${who}'s token`);

/** The key of the unknown interface asked with the token: the one error the transport checks read. */
const TRANSPORT_SAMPLE = `GET ${UNKNOWN_INTERFACE}`;
/** The unknown interface's errors whose media type and bytes TRANS-01 and TRANS-02 judge: app's token's, and none's. */
const TRANSPORT_READS = [TRANSPORT_SAMPLE, `${TRANSPORT_SAMPLE} without a token`];

/** GET of an interface that does not exist, with the valid token (app's, or another application's) or with none. */
export async function unknownInterface(
  ctx: CheckContext,
  withToken: boolean,
  who: Who | OtherApp = 'app',
): Promise<ErrorProbe> {
  const token = withToken ? await tokenOf(ctx, who) : undefined;
  const reply = await ctx.api.once(`errors:unknown-interface:${withToken}${who === 'app' ? '' : `:${who}`}`, {
    path: UNKNOWN_INTERFACE,
    token,
  });
  const request = `GET ${UNKNOWN_INTERFACE}${withToken ? withTokenOf(who) : ' without a token'}`;
  const kind = withToken ? `unknown interface${withTokenOf(who)}` : 'unknown interface without a token';
  return { kind, request, key: request, reply };
}

/** Ids that cannot be in the list (app's, or other_app's): the largest integer id plus a large offset, and a non-numeric id. */
export async function unknownIds(ctx: CheckContext, resource: Resource, who: Who = 'app'): Promise<string[]> {
  const items = await ctx.api.list(`/${resource}`, who);
  let max = 0n;
  for (const { id } of items) {
    // Numeric strings count too: a server rendering ids as strings must not make a real id look unknown.
    const n =
      typeof id === 'bigint'
        ? id
        : Number.isSafeInteger(id)
          ? BigInt(id as number)
          : typeof id === 'string' && /^[0-9]{1,30}$/.test(id)
            ? BigInt(id)
            : undefined;
    if (n !== undefined && n > max) max = n;
  }
  return [String(max + PAST_MAX), NON_NUMERIC_ID];
}

/**
 * GET of a dish or seat by ids the merchant cannot have (past its largest id, not a number), sent once and shared by
 * ERR-02/03, the checks of every error answer and INFO-ERR-UNKNOWN-ID.
 */
export async function unknownIdProbes(
  ctx: CheckContext,
  resource: Resource,
  who: Who | OtherApp = 'app',
): Promise<ErrorProbe[]> {
  const token = await tokenOf(ctx, who);
  // other_app's ids past its own largest; the disabled application has no records: app's unknown ids serve.
  const ids = await unknownIds(ctx, resource, who === 'other_app' ? who : 'app');
  return Promise.all(
    ids.map(async (id) => {
      const path = detailPath(resource, encodeURIComponent(id));
      const key = `GET /${resource}/:${id === NON_NUMERIC_ID ? 'unknown-text-id' : 'unknown-number-id'}${withTokenOf(who)}`;
      return {
        kind: `unknown ${nounOf(resource)} id${withTokenOf(who)}`,
        request: `GET ${path}${withTokenOf(who)}`,
        key,
        reply: await ctx.api.once(`errors:unknown-id:${who === 'app' ? '' : `${who}:`}${path}`, { path, token }),
        // The disabled application's are AUTH-10's to judge for data (its token at a data endpoint).
        ...(who === 'other_app' ? { judgeData: true as const } : {}),
      };
    }),
  );
}

/** Data endpoints 2–7 without a token (§5.4: code 401). */
export async function noTokenProbes(ctx: CheckContext): Promise<ErrorProbe[]> {
  return Promise.all(
    (await dataEndpointPaths(ctx)).map(async ({ ep, path }) => ({
      kind: 'no token',
      request: `GET ${path} without a token`,
      key: `GET ${ep.path} without a token`,
      reply: await ctx.api.once(`errors:no-token:${path}`, { path }),
    })),
  );
}

/** The longest path of other_app's ids the errors are asked at (support/token-probes.ts keeps the same bound). */
const LONG_PATH = 2048;

/**
 * The detail endpoints without a token at other_app's ids (#35): a request without a token is no application's, but
 * the paths of merchant B's records are other_app's; the lists' paths are the same for every application (sent once,
 * by noTokenProbes).
 */
export async function otherNoTokenProbes(ctx: CheckContext): Promise<ErrorProbe[]> {
  const out: ErrorProbe[] = [];
  for (const ep of DATA_ENDPOINTS) {
    if (!ep.of) continue;
    const id = (await ctx.api.list(`/${ep.of}`, 'other_app'))[0]?.id;
    if (id === undefined) {
      ctx.note(`${ep.path} without a token at other_app's ids: not sent, GET /${ep.of} with its token is empty`);
      continue;
    }
    const path = ep.path.replace(':id', encodeURIComponent(String(id)));
    // An id of megabytes a hostile list gave is asked for by app's requests already: not a second time here.
    if (path.length > LONG_PATH) {
      ctx.note(`${ep.path} without a token at other_app's ids: not sent, the path has ${path.length} characters`);
      continue;
    }
    out.push({
      kind: "no token, at other_app's ids",
      request: `GET ${path} (other_app's) without a token`,
      key: `GET ${ep.path} without a token, at other_app's ids`,
      reply: await ctx.api.once(`errors:no-token:${path}`, { path }),
      judgeData: true,
    });
  }
  return out;
}

/**
 * Data endpoints 2–7 with the disabled application's earlier token (§5.5: refused with 401), each sent once: AUTH-10
 * judges their code and data, ERR-04 the same answers as envelopes, JSON and UTF-8 (#35).
 */
export async function disabledTokenReplies(
  ctx: CheckContext,
): Promise<Array<{ ep: Endpoint; path: string; reply: Reply }>> {
  const token = await tokenOf(ctx, 'disabled_app');
  return Promise.all(
    (await dataEndpointPaths(ctx)).map(async ({ ep, path }) => ({
      ep,
      path,
      reply: await ctx.api.once(`auth:disabled-token:${path}`, { path, token }),
    })),
  );
}

/** The disabled application's refusals as error answers (ERR-04). */
async function disabledTokenProbes(ctx: CheckContext): Promise<ErrorProbe[]> {
  return (await disabledTokenReplies(ctx)).map(({ ep, path, reply }) => ({
    kind: "the disabled application's token",
    request: `GET ${path} with the disabled application's earlier token`,
    key: `GET ${ep.path} with disabled_app's token`,
    reply,
  }));
}

/**
 * Data endpoints 2–7 with each judged application's token, its last character changed (§5.4: no valid credential,
 * refused with 401): refusals are judged like successes (their envelope, media type and encoding, ERR-04) at every
 * endpoint, for every configured application, not only the refusal of a request without a token.
 */
export async function wrongTokenProbes(ctx: CheckContext, who: Who): Promise<ErrorProbe[]> {
  const token = await ctx.api.token(who);
  const wrong = token.slice(0, -1) + (token.endsWith('~') ? '-' : '~');
  // app's is the report's "${OPEN_TOKEN%?}~"; another application's is a derived secret of its own.
  if (who === 'app') ctx.secret(wrong);
  else {
    // As an altered token is: the value and what it shares with the real one, so no echo of either shows.
    ctx.secret(wrong, 'derived-token');
    ctx.secret(wrong.slice(0, -1), 'derived-token');
  }
  return Promise.all(
    (await dataEndpointPaths(ctx)).map(async ({ ep, path }) => ({
      kind: 'wrong token',
      request: `GET ${path} with ${who}'s token, its last character changed`,
      key: `GET ${ep.path} with ${who}'s changed token`,
      reply: await ctx.api.once(`errors:wrong-token:${who}:${path}`, {
        path,
        token: wrong,
        ...(who === 'app' ? {} : { derived: 'token' as const }),
      }),
    })),
  );
}

/**
 * /auth with neither secret nor key (§4 endpoint 1: both required); for another application, with its token in the
 * token header instead (a token is no key pair: no token is issued for it, whatever error answers it).
 */
export async function authWithoutParams(ctx: CheckContext, who: Who | OtherApp = 'app'): Promise<ErrorProbe> {
  const token = who === 'app' ? undefined : await tokenOf(ctx, who);
  const request = `GET ${AUTH_PATH} without ${KEY_PAIR_QUERY.publicKey} and ${KEY_PAIR_QUERY.secretKey}${withTokenOf(who)}`;
  return {
    kind: `missing ${AUTH_PATH} parameters${withTokenOf(who)}`,
    request,
    key: request,
    reply: await ctx.api.once(`errors:auth-no-params${who === 'app' ? '' : `:${who}`}`, {
      path: AUTH_PATH,
      ...(token !== undefined ? { token } : {}),
    }),
    ...(who === 'app' ? {} : { judgeData: true as const }),
  };
}

/**
 * The lists with query parameters (§4 rule 2) and another application's token: an error among them is judged as
 * an envelope and for its data (ERR-04); a success is ERR-06's (app's) to compare.
 */
async function otherListQueryProbes(ctx: CheckContext, who: OtherApp): Promise<ErrorProbe[]> {
  const token = await tokenOf(ctx, who);
  return Promise.all(
    LIST_PATHS.map(async (path) => ({
      kind: `query parameters${withTokenOf(who)}`,
      request: `GET ${path}?${new URLSearchParams(LIST_QUERY).toString()}${withTokenOf(who)}`,
      key: `GET ${path}?query${withTokenOf(who)}`,
      reply: await listQueryReply(ctx, who, path, token),
      maySucceed: true as const,
      // The disabled application's are AUTH-10's to judge for data (its token at a data endpoint).
      ...(who === 'other_app' ? { judgeData: true as const } : {}),
    })),
  );
}

/**
 * The disabled application's earlier token at the data endpoints beside AUTH-10's own requests (#35): unknown ids
 * and the lists with query parameters, sent once and shared by AUTH-10 (refused, no data) and ERR-04 (the envelope).
 */
export async function disabledDataErrors(ctx: CheckContext): Promise<ErrorProbe[]> {
  const parts = await Promise.all([
    ...DETAIL_RESOURCES.map((resource) => unknownIdProbes(ctx, resource, 'disabled_app')),
    otherListQueryProbes(ctx, 'disabled_app'),
  ]);
  return parts.flat();
}

/** Whether a probe's answer is an error: where a success is right, one by its code (even malformed) is not. */
const isErrorAnswer = ({ maySucceed, reply }: ErrorProbe): boolean =>
  !(maySucceed && isRecord(reply.json) && Number(reply.json.code) === 200);

/** The errors of §7 provoked with another application's token (#35): the same requests as app's, and its refusals. */
function otherApplicationErrors(ctx: CheckContext, who: OtherApp): Array<Promise<ErrorProbe[]>> {
  return [
    unknownInterface(ctx, true, who).then((p) => [p]),
    authWithoutParams(ctx, who).then((p) => [p]),
    ...(who === 'other_app'
      ? [
          ...DETAIL_RESOURCES.map((resource) => unknownIdProbes(ctx, resource, who)),
          otherListQueryProbes(ctx, who),
          otherNoTokenProbes(ctx),
        ]
      : [disabledDataErrors(ctx), disabledTokenProbes(ctx)]),
  ];
}

/** Every error answer the errors area provokes; blocked prerequisites leave their probes out. */
export async function allErrorProbes(ctx: CheckContext): Promise<ErrorProbe[]> {
  const parts = await Promise.allSettled([
    unknownInterface(ctx, true).then((p) => [p]),
    unknownInterface(ctx, false).then((p) => [p]),
    ...DETAIL_RESOURCES.map((resource) => unknownIdProbes(ctx, resource)),
    noTokenProbes(ctx),
    ...judgedApplications(ctx).map(({ who }) => wrongTokenProbes(ctx, who)),
    authWithoutParams(ctx).then((p) => [p]),
    ...otherErrorApps(ctx).flatMap((who) => otherApplicationErrors(ctx, who)),
  ]);
  const out: ErrorProbe[] = [];
  for (const p of parts) {
    if (p.status === 'fulfilled') out.push(...p.value);
    // A missing prerequisite is reported by ERR-01/02/03; no response at all leaves the check incomplete (it must not
    // pass on fewer answers); anything else is a bug of ours.
    else if (p.reason instanceof Blocked) ctx.note(`some error answers not judged here: ${p.reason.message}`);
    else throw p.reason;
  }
  return out;
}

/** The first few problems and how many more: a broken server gets a readable message, not a wall. */
export const listed = (problems: string[], max = 5): string =>
  problems.length > max
    ? `${problems.slice(0, max).join('; ')} and ${problems.length - max} more`
    : problems.join('; ');

/** Runs a shared assertion; a failure it reports without a fingerprint gets this one (the probe that failed). */
function withFingerprint(key: string, assert: () => void): void {
  try {
    assert();
  } catch (e) {
    throw e instanceof CheckFailure && !e.fingerprints.length ? new CheckFailure(e.message, [key]) : e;
  }
}

/** The success envelope of §4 rule 1; every other answer is an error by its envelope. */
const isSuccessEnvelope = (r: Reply): boolean => successData(r).ok;

/**
 * GET of each list endpoint with query parameters (§4 rule 2). Each probe waits for the run's shared GET of its list:
 * a conforming server answers it the same list, and two copies of a large merchant's 70 MB /orders arriving at once
 * could not both be held while they arrive (core/transport/body-sink.ts): one would go to disk and back.
 */
export async function listQueryProbes(
  ctx: CheckContext,
  who: Who = 'app',
): Promise<Array<{ path: string; plain: Reply; query: Reply }>> {
  const token = await ctx.api.token(who);
  return Promise.all(
    LIST_PATHS.map(async (path) => {
      const plain = await ctx.api.get(path, who);
      return { path, plain, query: await listQueryReply(ctx, who, path, token) };
    }),
  );
}

/** One list with query parameters, asked once per application: ERR-04 and ERR-06 share the answer. */
function listQueryReply(ctx: CheckContext, who: Who | OtherApp, path: string, token: string): Promise<Reply> {
  const key = who === 'app' ? `errors:query:${path}` : `errors:query:${who}:${path}`;
  return ctx.api.once(key, { path, query: LIST_QUERY, token });
}

async function unknownIdsAreErrors(ctx: CheckContext, resource: Resource): Promise<void> {
  for (const { request, key, reply } of await unknownIdProbes(ctx, resource)) {
    const what = `${request} (an id that is not in /${resource})`;
    if (isSuccessEnvelope(reply))
      ctx.fail(
        `${what}: expected an error envelope with code 400 or 404, got SUCCESS with data ${carriedData(reply)}`,
        [key],
      );
    withFingerprint(key, () => expectError(ctx, reply, [400, 404], what));
    if (carriesData(reply)) ctx.fail(`${what}: the error carries data ${carriedData(reply)}`, [key]);
  }
}

/** The checks of error answers (§7) and of list endpoints given query parameters (§4 rule 2). */
export const errorChecks = defineChecks('errors', [
  {
    id: 'ERR-01',
    title: 'An unknown interface answers code 404',
    level: 'MUST',
    spec: '§7',
    async run(ctx) {
      const withToken = await unknownInterface(ctx, true);
      expectError(ctx, withToken.reply, [404], `${withToken.request} with a valid token`);
      // Without a token §5.4 applies as well: a server that authenticates before routing answers 401.
      const without = await unknownInterface(ctx, false);
      expectError(ctx, without.reply, [404, 401], without.request);
      if (carriesData(without.reply)) ctx.fail(`${without.request}: the error carries data`);
      // Every configured application's token (#35): other_app's is a valid one (404); the disabled application's is
      // refused (§5.5), before routing (401) or after (404).
      for (const who of otherErrorApps(ctx)) {
        let other: ErrorProbe;
        try {
          other = await unknownInterface(ctx, true, who);
        } catch (e) {
          if (!(e instanceof Blocked)) throw e;
          ctx.note(`${UNKNOWN_INTERFACE}${withTokenOf(who)}: not asked (${e.message})`);
          continue;
        }
        expectError(ctx, other.reply, who === 'other_app' ? [404] : [404, 401], other.request);
        if (carriesData(other.reply)) ctx.fail(`${other.request}: the error carries data`, [`${who}:data`]);
      }
    },
  },
  {
    id: 'ERR-02',
    title: 'Unknown dish ids answer an error envelope with code 400 or 404',
    level: 'MUST',
    spec: '§4 endpoint 4, §7',
    run: (ctx) => unknownIdsAreErrors(ctx, 'dishes'),
  },
  {
    id: 'ERR-03',
    title: 'Unknown seat ids answer an error envelope with code 400 or 404',
    level: 'MUST',
    spec: '§4 endpoint 6, §7',
    run: (ctx) => unknownIdsAreErrors(ctx, 'seats'),
  },
  {
    id: 'ERR-04',
    title:
      'Every error and refusal is a JSON envelope with an integer code and a string status other than SUCCESS, sent as JSON in UTF-8',
    level: 'MUST',
    spec: '§1, §2.1, §7',
    async run(ctx) {
      const found = new Findings();
      for (const probe of await allErrorProbes(ctx)) {
        const { request, key, reply, judgeData } = probe;
        // A success where an error was due is the failure of the check for that request, not of the error layout.
        if (isSuccessEnvelope(reply)) continue;
        // Where a success is right, one that is malformed (code "200", status "success") is ENV-01's, not an error.
        if (!isErrorAnswer(probe)) continue;
        // An error is an answer like a success (§1: all interfaces are JSON and UTF-8). The unknown interface asked
        // with app's token, or with none, is among the answers the transport checks read (TRANS-01, TRANS-02): its
        // media type and bytes are theirs to judge; asked with another application's token it is ERR-04's (#35).
        const problems = errorAnswerProblems(reply, !TRANSPORT_READS.includes(key));
        // Another application's error no other check reads carries no data (§2.1 data, §5.4, §7; #35).
        if (judgeData && carriesData(reply))
          problems.push({
            text: `the error carries data ${carriedData(reply)}`,
            suffix: ':data',
          });
        ctx.shows(reply, problems.length ? 'finding' : 'correct');
        for (const p of problems) found.add(`${request}: ${p.text}`, `${key}${p.suffix}`);
      }
      if (found.length)
        ctx.fail(
          `expected every error body to be an envelope {status: a string, not "SUCCESS", code: integer}, as JSON (a JSON Content-Type, UTF-8): ${listed(found.items)}`,
          found.fingerprints,
        );
    },
  },
  {
    id: 'ERR-05',
    title: 'An error sent with an HTTP status other than 200 uses the status of its envelope code',
    // The spec says nothing of HTTP statuses (§7 defines errors by the envelope's code): what a server does is
    // recorded, never warned about.
    level: 'INFO',
    spec: '§7',
    async run(ctx) {
      const found = new Findings();
      for (const { request, key, reply } of await allErrorProbes(ctx)) {
        const code = envelopeCode(reply);
        if (isSuccessEnvelope(reply) || typeof code !== 'number') continue;
        if (reply.status !== 200 && reply.status !== code)
          found.add(`${request}: HTTP ${reply.status} with envelope code ${code}`, key);
      }
      ctx.observe(
        found.length
          ? `HTTP statuses other than 200 and other than the envelope code: ${listed(found.items)}`
          : 'every error goes out over HTTP 200 or the HTTP status equal to its envelope code',
      );
    },
  },
  {
    id: 'ERR-06',
    title:
      'List endpoints given query parameters ignore them (the same data) or answer 400, never 500 and never other data',
    level: 'MUST',
    spec: '§4 rule 2, §7',
    async run(ctx) {
      const problems: Array<{ text: string; fingerprint: string }> = [];
      const q = new URLSearchParams(LIST_QUERY).toString();
      // Every configured application's lists, each with its own token (app's fingerprints as before #35).
      const asked = await Promise.all(
        judgedApplications(ctx).map(async ({ who, suffix }) => {
          try {
            return (await listQueryProbes(ctx, who)).map((p) => ({ ...p, who, suffix }));
          } catch (e) {
            if (!(e instanceof Blocked)) throw e;
            ctx.note(`${who}'s lists not asked with parameters: ${e.message}`);
            return [];
          }
        }),
      );
      let judged = 0;
      for (const { path, plain, query, who, suffix } of asked.flat()) {
        const mark = who === 'app' ? '' : `${who}:`;
        // Only what the parameters change is judged here: a list that fails without them is its own check's finding.
        if (!isSuccessEnvelope(plain)) {
          ctx.note(`GET ${path}${suffix} does not answer SUCCESS even without parameters; not judged here`);
          continue;
        }
        judged++;
        if (isSuccessEnvelope(query)) {
          if (
            sameContent(
              successData(plain).ok ? (plain.json as { data?: unknown }).data : undefined,
              (query.json as { data?: unknown }).data,
            )
          )
            continue;
          // Other data may also mean the list changes between requests: the same GET asked again (shared with RO-02,
          // which judges a list that changes by itself) tells which.
          const again = await askAgain(ctx, path, who);
          if (
            !isSuccessEnvelope(again) ||
            !sameContent((plain.json as { data?: unknown }).data, (again.json as { data?: unknown }).data)
          ) {
            ctx.note(
              `GET ${path}${suffix} answered other data when asked again without parameters, so what the parameters changed is not judged here (RO-02 judges a list that changes)`,
            );
            continue;
          }
          problems.push({
            text: `GET ${path}?${q}${suffix} answered SUCCESS with other records than GET ${path}, which answered the same records when asked again: the parameters were applied, and §4 rule 2 accepts none (ignoring them answers the same records, in any order)`,
            fingerprint: `${mark}GET ${path}?query:applied`,
          });
          continue;
        }
        const code = envelopeCode(query);
        if (code === 400 && validate('envelope.error', query.json).length === 0) {
          // A 400 is an error like any other: it carries no data (§2.1 data, §7).
          if (carriesData(query))
            problems.push({
              text: `GET ${path}?${q}${suffix}: the 400 carries data ${carriedData(query)}`,
              fingerprint: `${mark}GET ${path}?query:data`,
            });
          continue;
        }
        problems.push({
          text: `GET ${path}?${q}${suffix}: ${describeReply(query)}`,
          fingerprint: `${mark}GET ${path}?query`,
        });
      }
      if (problems.length)
        ctx.fail(
          `expected the same data as without parameters (ignored) or an error envelope with code 400, got ${listed(problems.map((p) => p.text))}`,
          problems.map((p) => p.fingerprint),
        );
      // Passed only on what it compared: no list that answered SUCCESS without parameters is nothing judged.
      if (!judged)
        throw new Blocked('no list answered SUCCESS without parameters to compare with (see DISH-01, SEAT-01, ORD-01)');
    },
  },
  // The implementation profile: what the server chose where the spec leaves it open (INFO, never fails).
  {
    id: 'INFO-ERR-STATUS',
    title: 'The HTTP status and envelope used for each kind of error',
    level: 'INFO',
    spec: '§7',
    async run(ctx) {
      const probes = (await allErrorProbes(ctx)).filter(isErrorAnswer);
      ctx.observe(grouped(probes.map((p) => ({ label: p.kind, phrase: errorPhrase(p.reply) }))));
    },
  },
  {
    id: 'INFO-ERR-UNKNOWN-ID',
    title: 'The error given for unknown dish and seat ids',
    level: 'INFO',
    spec: '§7, §4 endpoints 4 and 6',
    async run(ctx) {
      const probes = [...(await unknownIdProbes(ctx, 'dishes')), ...(await unknownIdProbes(ctx, 'seats'))];
      ctx.observe(grouped(probes.map((p) => ({ label: p.request, phrase: errorPhrase(p.reply, true) }))));
    },
  },
  {
    id: 'INFO-ERR-LIST-QUERY',
    title: 'What list endpoints do with query parameters (ignore them or answer 400)',
    level: 'INFO',
    spec: '§4 rule 2',
    async run(ctx) {
      const items = (await listQueryProbes(ctx)).map(({ path, plain, query }) => {
        const [p, q] = [successData(plain), successData(query)];
        let phrase: string;
        if (!q.ok) phrase = `refused (${errorPhrase(query)})`;
        else if (!p.ok) phrase = 'SUCCESS (the plain list did not succeed, so not compared)';
        else
          phrase = sameContent(p.data, q.data)
            ? 'ignored (the same data as without them)'
            : 'SUCCESS with other data than without them (applied or the data changed)';
        return { label: path, phrase };
      });
      ctx.observe(`with ?page=2&limit=1&per_page=1&…: ${grouped(items)}`);
    },
  },
]);
