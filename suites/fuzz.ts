import fc from 'fast-check';
import { defineChecks, type Check, type CheckContext } from '../core/model/check.js';
import { Blocked } from '../core/session/check-errors.js';
import { isRecord, successData, type Rec } from '../core/session/api.js';
import { nounOf, type Resource } from '../core/spec/resources.js';
import { describeReply } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { NetworkError } from '../core/transport/exchange.js';
import { decodedSegment, isExactlyThatId, namedId, segmentArbitrary } from './support/fuzz-ids.js';
import { ownerMark, tenantOf, type Tenant } from './support/tenants.js';
import { isIdLike } from '../core/base/exact-json.js';
import type { RecordId } from '../core/spec/endpoints.js';
import type { Reply, RequestSpec } from '../core/transport/exchange.js';

/**
 * Fuzzed dish_id and seat_id (issue 3 "Fuzzing with fast-check", §4 endpoints 4 and 6, §7). Property: every answer
 * is a JSON envelope, and either the record with exactly the id asked for (support/fuzz-ids.ts namedId says what
 * "exactly" means) belonging to this merchant, or an error with code 400 or 404 — never 500, never another id's
 * record, never another merchant's record.
 *
 * One property draws a dish_id and a seat_id per run (config fuzz.runs runs: that many ids per endpoint), so one
 * seed and one path replay a failure exactly (`--seed N --fuzz-path P`). fc.check, not @fast-check/vitest: the
 * seed comes from config and the result goes into the report. Requests go through ctx.send (concurrency cap).
 */

/** The property's verdict on one answer: thrown so fast-check shrinks towards the smallest failing ids. */
class FuzzFinding extends Error {}

interface Target {
  resource: Resource;
  /** Ids of this merchant's own records (its list): a record outside it is not "belonging to this merchant". */
  mine: Set<string>;
  /** The other merchant's identity, when other_app is configured. */
  theirs?: Tenant;
  /** Whose token asks (merchant A's: app; merchant B's: other_app) and whose records the other's are. */
  me?: 'A' | 'B';
}

/** Merchant A (app) or B (other_app) as a finding names them: the token's, and the other one. */
const sides = (t: Target): { mine: string; theirs: string } =>
  t.me === 'B' ? { mine: 'merchant B', theirs: 'merchant A' } : { mine: 'merchant A', theirs: 'merchant B' };

/** The request for one fuzzed id: the raw path segment, with the run's token. */
const requestFor = (t: Target, raw: string, token: string): RequestSpec => ({ path: `/${t.resource}/${raw}`, token });

/** The verdict on one answer; undefined when it is one the spec allows. */
function verdict(t: Target, raw: string, r: Reply): string | undefined {
  const noun = nounOf(t.resource);
  const path = `/${t.resource}/${raw}`;
  const asked = `${JSON.stringify(decodedSegment(raw))}${namedId(raw) === undefined ? ' (names no id)' : ''}`;
  const expected =
    namedId(raw) === undefined
      ? 'expected an error with code 400 or 404'
      : `expected ${noun} ${namedId(raw)} or an error with code 400 or 404`;
  if (!isRecord(r.json))
    return `GET ${path} for ${noun} id ${asked} answered ${describeReply(r)}: not a JSON envelope; ${expected}`;
  const j = r.json;
  if (j.status === 'SUCCESS' || j.code === 200) {
    const s = successData(r);
    if (!s.ok)
      return `GET ${path} for ${noun} id ${asked} answered ${describeReply(r)}: neither a success nor an error envelope; ${expected}`;
    const d = s.data;
    if (!isRecord(d))
      return `GET ${path} for ${noun} id ${asked} answered SUCCESS with data ${show(d, 60)}; ${expected}`;
    if (!isExactlyThatId(raw, d.id))
      return `GET ${path} for ${noun} id ${asked} answered ${noun} ${show(d.id)}; ${expected}`;
    const mark = t.theirs && ownerMark(d, t.theirs);
    if (mark)
      return `GET ${path} answered ${sides(t).theirs}'s ${noun} ${show(d.id)} (${mark}) to ${sides(t).mine}'s token; expected an error with code 400 or 404`;
    if (!t.mine.has(String(d.id)))
      return `GET ${path}${t.me === 'B' ? " with other_app's token" : ''} answered ${noun} ${show(d.id)}, which is not among this merchant's GET /${t.resource}; expected an error with code 400 or 404`;
    return undefined;
  }
  if (j.code !== 400 && j.code !== 404)
    return `GET ${path} for ${noun} id ${asked} answered ${describeReply(r)}; ${expected}`;
  const errors = validate('envelope.error', j);
  if (errors.length)
    return `GET ${path} for ${noun} id ${asked} answered an error body that is not an error envelope (§7): ${formatErrors(errors, 3)}`;
  const mark = t.theirs && isRecord(j.data) ? ownerMark(j.data as Rec, t.theirs) : undefined;
  if (mark) return `GET ${path} answered an error that carries ${sides(t).theirs}'s ${noun} (${mark})`;
  return undefined;
}

async function target(
  ctx: CheckContext,
  resource: Resource,
  theirs: Tenant | undefined,
): Promise<{ t: Target; mine: RecordId[]; other: RecordId[]; otherAll: RecordId[] }> {
  const ids = (items: readonly Rec[]): RecordId[] => items.map((i) => i.id).filter(isIdLike);
  const mine = ids(await ctx.api.list(`/${resource}`));
  const mineSet = new Set(mine.map(String));
  let other: RecordId[] = [];
  let otherAll: RecordId[] = [];
  if (ctx.config.other_app) {
    try {
      otherAll = ids(await ctx.api.list(`/${resource}`, 'other_app'));
      other = otherAll.filter((id) => !mineSet.has(String(id)));
    } catch (e) {
      if (e instanceof NetworkError) throw e;
      ctx.note(`merchant B's ${resource} not fuzzed: ${(e as Error).message}`);
    }
  }
  return { t: { resource, mine: mineSet, ...(theirs ? { theirs } : {}) }, mine, other, otherAll };
}

/**
 * The ways of §7 and §1 a detail id can break, sent with other_app's token too (#35: every configured
 * application), one deterministic id each per endpoint beside the generated ones of app's: a real id of merchant B
 * followed by letters (read by its leading digits), a percent-encoded id routed elsewhere, and 0 (a placeholder
 * record outside the list).
 */
const FIXED_WAYS: ReadonlyArray<(real: RecordId) => string> = [(r) => `${r}abc`, () => '..%2Fmerchant', () => '0'];

/**
 * Merchant B's answers to FIXED_WAYS, built on its first own id of each resource (one that is not also merchant A's:
 * an id both lists hold is ISO-01's to judge), judged as app's fuzzed ids are. Nothing when its list gave no id
 * (target notes why).
 */
async function otherAppsFixedIds(
  ctx: CheckContext,
  a: Tenant | undefined,
  targets: ReadonlyArray<{ t: Target; other: RecordId[]; otherAll: RecordId[] }>,
): Promise<string[]> {
  const asks: Array<[Target, string]> = [];
  for (const { t, other, otherAll } of targets) {
    const b: Target = {
      resource: t.resource,
      mine: new Set(otherAll.map(String)),
      ...(a ? { theirs: a } : {}),
      me: 'B',
    };
    if (other[0] !== undefined) for (const way of FIXED_WAYS) asks.push([b, way(other[0])]);
  }
  if (!asks.length) return [];
  let token: string;
  try {
    token = await ctx.api.token('other_app');
  } catch (e) {
    if (!(e instanceof Blocked)) throw e;
    ctx.note(`merchant B's detail ids not asked: ${e.message}`);
    return [];
  }
  const found: string[] = [];
  for await (const { item, reply } of ctx.api.ask(asks, ([t, raw]) => requestFor(t, raw, token))) {
    const problem = verdict(...item, reply);
    ctx.shows(reply, problem ? 'finding' : 'correct');
    if (problem) found.push(problem);
  }
  return found;
}

async function fuzzIds(ctx: CheckContext): Promise<void> {
  const token = await ctx.api.token();
  let theirs: Tenant | undefined;
  if (ctx.config.other_app) {
    try {
      const [me, other] = await Promise.all([tenantOf(ctx, 'app'), tenantOf(ctx, 'other_app')]);
      // other_app of the same merchant (a configuration slip) would make every own record "merchant B's".
      if (me.id === other.id)
        ctx.note("other_app belongs to the same merchant as app: its ids are not fuzzed as another merchant's");
      else theirs = other;
    } catch (e) {
      if (e instanceof NetworkError) throw e;
      ctx.note(`merchant B not used: ${(e as Error).message}`);
    }
  }
  const [dishes, seats] = await Promise.all([target(ctx, 'dishes', theirs), target(ctx, 'seats', theirs)]);
  // Merchant B's fixed ids, judged against merchant A's marks (when A is known to be another merchant); a replayed
  // path replays the generated case alone.
  const merchantA = theirs ? await tenantOf(ctx, 'app') : undefined;
  const fromB = ctx.config.fuzz.path ? [] : await otherAppsFixedIds(ctx, merchantA, [dishes, seats]);
  const bSays = fromB.length ? `; with other_app's token: ${fromB.slice(0, 3).join('; ')}` : '';
  const arb = fc.record({
    dish_id: segmentArbitrary(dishes.mine, dishes.other),
    seat_id: segmentArbitrary(seats.mine, seats.other),
  });
  // Each id is judged once: the property and its shrinks share the verdicts.
  const verdicts = new Map<string, string | undefined>();
  const keyOf = (t: Target, raw: string): string => `${t.resource}/${raw}`;
  const judged = async (t: Target, raw: string): Promise<string | undefined> => {
    const key = keyOf(t, raw);
    // No response is no evidence: the NetworkError ends the property, and the check is incomplete.
    if (!verdicts.has(key)) {
      const reply = await ctx.send(requestFor(t, raw, token));
      const problem = verdict(t, raw, reply);
      ctx.shows(reply, problem ? 'finding' : 'correct');
      verdicts.set(key, problem);
    }
    return verdicts.get(key);
  };
  const property = fc.asyncProperty(arb, async ({ dish_id, seat_id }) => {
    const [d, s] = await Promise.all([judged(dishes.t, dish_id), judged(seats.t, seat_id)]);
    if (d ?? s) throw new FuzzFinding([d, s].filter(Boolean).join('; '));
  });
  const { seed, runs, path } = ctx.config.fuzz;
  // The cases of a seed are known in advance (fc.sample draws exactly what fc.check will): their ids are asked for
  // first, all at once within the client's cap, and fc.check judges from the answers (far from the server, one case
  // after another is one round trip per case); only shrinking, after a failure, asks for new ids.
  if (!path) {
    const asked = new Map<string, [Target, string]>();
    for (const c of fc.sample(arb, { seed, numRuns: runs })) {
      asked.set(keyOf(dishes.t, c.dish_id), [dishes.t, c.dish_id]);
      asked.set(keyOf(seats.t, c.seat_id), [seats.t, c.seat_id]);
    }
    for await (const { item, reply } of ctx.api.ask([...asked.values()], ([t, raw]) => requestFor(t, raw, token))) {
      const problem = verdict(...item, reply);
      ctx.shows(reply, problem ? 'finding' : 'correct');
      verdicts.set(keyOf(...item), problem);
    }
  }
  const details = await fc.check(property, { seed, numRuns: runs, ...(path ? { path } : {}) });
  if (path) ctx.note(`replayed fuzz path ${path} (seed ${seed})`);
  // A path that does not exist for the seed replays no case, and fast-check calls that a success.
  if (path && details.numRuns === 0) throw new Blocked(`the fuzz path ${path} does not exist for seed ${seed}`);
  if (!details.failed) {
    ctx.note(
      `${details.numRuns} generated dish_id/seat_id pairs (seed ${seed}): every answer was the record asked for or an error 400/404`,
    );
    if (fromB.length)
      ctx.fail(
        `${fromB.length} of merchant B's detail ids (${FIXED_WAYS.length} ways per endpoint) asked for with other_app's token: ${fromB.slice(0, 3).join('; ')}`,
      );
    return;
  }
  // fast-check 4 fails without a counterexample only for too many skipped runs (`fc.pre`, never called here) or an
  // interrupted run (no time limit is set): a failure here always has one.
  const err = details.errorInstance;
  if (!(err instanceof FuzzFinding)) throw err; // no response (incomplete) or a defect of the suite: not a finding
  const [value] = details.counterexample!;
  const counterexample = fc.stringify(value);
  const replayPath = details.counterexamplePath!;
  const replay = `--seed ${details.seed} --fuzz-path ${replayPath}`;
  ctx.setFuzz({
    seed: details.seed,
    path: replayPath,
    counterexample,
    shrinks: details.numShrinks,
    replay,
  });
  // The replay flags are the record's (fuzz.replay), which every report prints once under the finding.
  ctx.fail(
    `${err.message} — counterexample ${counterexample} (run ${details.numRuns} of ${runs}, shrunk ${details.numShrinks} times)${bSays}`,
  );
}

/** The property-based check of the detail endpoints over generated ids. */
export const fuzzChecks: Check[] = defineChecks('fuzz', [
  {
    id: 'FUZZ-01',
    level: 'MUST',
    spec: '§2.2, §2.3, §4 endpoints 4 and 6, §7',
    requires: ['fuzz'],
    title:
      'Fuzzed dish_id and seat_id answer the record of exactly that id of this merchant, or an error 400/404 (never 500, never another record)',
    run: fuzzIds,
  },
]);
