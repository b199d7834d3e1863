import { counted } from '../core/base/counted.js';
import { defineChecks, type Check, type CheckContext, type CheckDeclaration } from '../core/model/check.js';
import { Blocked } from '../core/session/check-errors.js';
import { everyRecord, isRecord, type Rec } from '../core/session/api.js';
import {
  DETAIL_RESOURCES,
  LIST_PATHS,
  nounOf,
  RESOURCES,
  type ListPath,
  type Resource,
  type Who,
} from '../core/spec/resources.js';
import { judgedApplications } from './support/tenants.js';
import { show } from '../core/redact/quote.js';
import { detailPath } from '../core/spec/endpoints.js';
import { idKey, isIdLike, isIntegerValue } from '../core/base/exact-json.js';
import { NetworkError } from '../core/transport/exchange.js';
import {
  byId,
  compareRecords,
  sameJson,
  describeDiffs,
  detailRecord,
  recordIn,
  fieldValid,
  Findings,
  optionalList,
  recordKey,
  sameId,
  type Comparison,
  type FieldDiff,
} from './support/compare.js';

/**
 * §2, §4: the same record read through different endpoints is the same record. Each rule is its own check so a
 * broken rule fails one check; values the shape checks already reject are left to them (support/compare.ts).
 */

/** One fingerprint per differing field of a record (a non-empty list: the caller found at least one). */
const fieldKeys = (diffs: readonly FieldDiff[], key: (field: string) => string): [string, ...string[]] =>
  diffs.map((d) => key(d.field)) as [string, ...string[]];
/**
 * The applications whose answers the consistency checks judge (#35: the other merchant's lists, details and order
 * lines are judged like app's), each with how a finding names it and prefixes its fingerprint (app's keep theirs).
 */
function judges(ctx: CheckContext): Array<{ who: Who; label: string; key: string }> {
  return judgedApplications(ctx).map(({ who }) =>
    who === 'app' ? { who, label: '', key: '' } : { who, label: `${who}'s `, key: `${who}:` },
  );
}

/**
 * A list of an application: app's as each check has always read it, another application's optionally (its
 * refusal is AUTH-02's or AUTH-05's: that application's part is left unjudged, said in a note).
 */
function listFor(ctx: CheckContext, path: ListPath, who: Who): Promise<readonly Rec[] | undefined> {
  return who === 'app' ? ctx.api.list(path) : optionalList(ctx, path, who);
}

/** Most records outside a list (deleted dishes or seats an order still names) fetched by detail per check. */
const MAX_FALLBACK_DETAILS = 20;
/** An id whose detail is asked for: digits only (§4's ids are integers), never server text put into a path. */
const askable = (id: string): boolean => /^[0-9]+$/.test(id);

function sampledNote(
  ctx: CheckContext,
  resource: Resource,
  s: { ids: unknown[]; total: number; sampled: boolean },
): void {
  if (s.sampled)
    ctx.note(
      `compared a seeded sample of ${s.ids.length} of ${s.total} ${resource} (max_details, seed ${ctx.config.fuzz.seed}), the same sample as the detail checks`,
    );
}

/**
 * Collects what differed only within the spec's latitude, or in fields the spec does not list (never a failure),
 * and notes it once per check: the first example and how many records (a big merchant has thousands).
 */
class Remarks {
  private latitude: { n: number; first?: string } = { n: 0 };
  private extra: { n: number; first?: string } = { n: 0 };
  add(label: string, c: Comparison, sideA: string, sideB: string): void {
    if (c.latitude.length && this.latitude.n++ === 0)
      this.latitude.first = `${label}: ${describeDiffs(c.latitude, sideA, sideB)}`;
    if (c.extra.length && this.extra.n++ === 0)
      this.extra.first = `${label}: ${c.extra.join(', ')} differ between ${sideA} and ${sideB}`;
  }
  flush(ctx: CheckContext): void {
    const more = (n: number): string => (n > 1 ? ` (and ${n - 1} more record${n > 2 ? 's' : ''})` : '');
    if (this.latitude.first)
      ctx.note(
        `number vs numeric string, both allowed (issue 2 latitude): ${this.latitude.first}${more(this.latitude.n)}`,
      );
    if (this.extra.first)
      ctx.note(`fields the spec does not list are not compared: ${this.extra.first}${more(this.extra.n)}`);
  }
}

/**
 * What a check could not compare, by reason: no consistency check skips a record silently. Noted once per reason
 * with a count and the first few records ("2 embedded dishes not compared: no dish record answers them (see
 * CONS-12): order 5001's dish 103, …").
 */
class Skips {
  private readonly by = new Map<string, string[]>();
  add(reason: string, what: string): void {
    let l = this.by.get(reason);
    if (!l) this.by.set(reason, (l = []));
    l.push(what);
  }
  flush(ctx: CheckContext): void {
    for (const [reason, l] of this.by)
      ctx.note(
        `not compared, ${l.length}: ${reason}: ${l.slice(0, 5).join(', ')}${l.length > 5 ? ` and ${l.length - 5} more` : ''}`,
      );
  }
}

const CONS_01: CheckDeclaration = {
  id: 'CONS-01',
  level: 'MUST',
  spec: '§2.2, §2.3, §4 endpoints 4 and 6',
  reads: ['dishes:app', 'seats:app', 'dishes:other_app', 'seats:other_app'],
  title: 'GET /dishes/X and GET /seats/X answer the record with id X, for every configured application',
  run: detailIdsMatch,
};

/** CONS-01: GET /:resource/X answers the record with id X. */
async function detailIdsMatch(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  const skips = new Skips();
  let checked = 0;
  for (const { who, label, key } of judges(ctx))
    for (const resource of DETAIL_RESOURCES) {
      const details = await ctx.api.details(resource, who).catch((e: unknown) => {
        if (e instanceof NetworkError) throw e;
        ctx.note(`/${resource}${label ? ` (${who})` : ''}: ${(e as Error).message}`);
        return undefined;
      });
      if (!details) continue;
      sampledNote(ctx, resource, details);
      checked += details.ids.length;
      for await (const { id, reply } of details) {
        const d = recordIn(reply);
        const where = `${label}${detailPath(resource, id)}`;
        // No record, or a malformed id: the detail check's finding.
        if (!d) skips.add(`the detail answers no record (see ${RESOURCES[resource].detail.checks}-02)`, where);
        else if (!fieldValid(nounOf(resource), 'id', d.id))
          skips.add(`the detail's id is malformed (see ${RESOURCES[resource].detail.checks}-02)`, where);
        else if (!sameId(d.id, id))
          found.add(
            `${label}GET ${detailPath(resource, id)} answered ${nounOf(resource)} ${show(d.id)} instead of ${nounOf(resource)} ${id}`,
            `${key}${recordKey(nounOf(resource), id, 'id')}`,
          );
      }
    }
  if (!checked) throw new Blocked('no dish or seat ids to ask for (see DISH-01, SEAT-01)');
  skips.flush(ctx);
  if (found.length)
    ctx.fail(found.summary('details answer another id than the one asked for', checked), found.fingerprints);
}

const CONS_02: CheckDeclaration = {
  id: 'CONS-02',
  level: 'MUST',
  spec: '§2.2, §4 endpoints 3 and 4',
  reads: ['dishes:app', 'dishes:other_app'],
  title: 'Every dish of GET /dishes equals its GET /dishes/:id field by field, for every configured application',
  run: (ctx) => listEqualsDetail(ctx, 'dishes'),
};
const CONS_03: CheckDeclaration = {
  id: 'CONS-03',
  level: 'MUST',
  spec: '§2.3, §4 endpoints 5 and 6',
  reads: ['seats:app', 'seats:other_app'],
  title: 'Every seat of GET /seats equals its GET /seats/:id field by field, for every configured application',
  run: (ctx) => listEqualsDetail(ctx, 'seats'),
};

/** CONS-02/03: every listed record equals its detail in every spec field, for each application. */
async function listEqualsDetail(ctx: CheckContext, resource: Resource): Promise<void> {
  const kind = nounOf(resource);
  const found = new Findings();
  const remarks = new Remarks();
  const skips = new Skips();
  let compared = 0;
  for (const { who, label, key } of judges(ctx)) {
    const items = await listFor(ctx, `/${resource}`, who);
    if (!items) continue;
    const list = byId(items);
    const details = await ctx.api.details(resource, who);
    sampledNote(ctx, resource, details);
    compared += details.ids.length;
    for await (const { id, reply } of details) {
      const item = list.get(String(id));
      const d = recordIn(reply);
      const what = `${label}${kind} ${id}`;
      if (!item) skips.add('not a record in the list', what);
      else if (!d) skips.add(`the detail answers no record (see ${RESOURCES[resource].detail.checks}-02)`, what);
      else if (!sameId(d.id, id)) skips.add('the detail answers another id (see CONS-01)', what);
      else {
        const c = compareRecords(kind, item, d);
        if (c.diffs.length)
          found.add(
            `${what}: ${describeDiffs(c.diffs, 'list', 'detail')}`,
            ...fieldKeys(c.diffs, (f) => `${key}${recordKey(kind, id, f)}`),
          );
        remarks.add(what, c, `GET /${resource}`, `GET ${detailPath(resource, id)}`);
      }
    }
  }
  remarks.flush(ctx);
  skips.flush(ctx);
  if (found.length)
    ctx.fail(
      found.summary(`${resource} differ between GET /${resource} and GET /${resource}/:id`, compared),
      found.fingerprints,
    );
}

const CONS_04: CheckDeclaration = {
  id: 'CONS-04',
  level: 'MUST',
  spec: '§2.2–§2.4, §4 endpoints 3, 5, 7',
  title: 'No id appears twice in GET /dishes, GET /seats or GET /orders, for every configured application',
  run: noDuplicateIds,
};

/** CONS-04: ids are unique within each list. */
async function noDuplicateIds(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  let lists = 0;
  for (const { who, label, key } of judges(ctx))
    for (const path of LIST_PATHS) {
      const items = await optionalList(ctx, path, who);
      if (!items) continue;
      lists++;
      // A Set of every id and counts of the repeated ones only: 500,000 orders' ids as numbers, not a count each.
      const seen = new Set<number | string>();
      const repeated = new Map<number | string, number>();
      await everyRecord(items, (i) => {
        if (!isIdLike(i.id)) return;
        const k = idKey(i.id);
        if (seen.has(k)) repeated.set(k, (repeated.get(k) ?? 1) + 1);
        else seen.add(k);
      });
      for (const [id, n] of repeated)
        found.add(`${label}GET ${path} lists id ${id} ${n === 2 ? 'twice' : `${n} times`}`, `${key}GET ${path}:${id}`);
    }
  if (!lists) throw new Blocked('no list answered (see DISH-01, SEAT-01, ORD-01)');
  if (found.length)
    ctx.fail(found.summary(['id is repeated within a list', 'ids are repeated within a list']), found.fingerprints);
}

/** The merchant record (§2.5) of a token, with its two identifiers well-formed, or blocked (MER-01 reports). */
async function merchantIds(ctx: CheckContext, who: Who = 'app'): Promise<{ id: number | bigint; merchantId: string }> {
  const m = await ctx.api.merchant(who);
  const of = who === 'app' ? '/merchant' : `/merchant with ${who}'s token`;
  if (!isIntegerValue(m.id)) throw new Blocked(`${of} id is ${show(m.id)}, not an integer (see MER-01)`);
  if (typeof m.merchant_id !== 'string')
    throw new Blocked(`${of} merchant_id is ${show(m.merchant_id)}, not a string (see MER-01)`);
  return { id: m.id, merchantId: m.merchant_id };
}

/** app's merchant (what it lacks blocks the check), or another application's, undefined with a note when it lacks. */
async function merchantOf(
  ctx: CheckContext,
  who: Who,
): Promise<{ id: number | bigint; merchantId: string } | undefined> {
  if (who === 'app') return merchantIds(ctx);
  try {
    return await merchantIds(ctx, who);
  } catch (e) {
    if (e instanceof NetworkError) throw e;
    ctx.note(`${who}'s records not compared with its /merchant: ${(e as Error).message}`);
    return undefined;
  }
}

/** A copy of a dish or seat the run read: where (for a finding) and its fingerprint's stem (a field is appended). */
interface Copy {
  noun: 'dish' | 'seat';
  rec: Rec;
  where: string;
  key: string;
}

/**
 * Every copy of an application's dishes or seats the run reads (#35): the list's records, the details the run reads
 * (the same sample as the detail checks) and the records its orders embed (a dish in dishes[], the seat of an
 * order with a seat). Handed one at a time; returns how many.
 */
async function everyCopy(
  ctx: CheckContext,
  who: Who,
  resources: readonly ('dishes' | 'seats')[],
  orders: readonly Rec[] | undefined,
  each: (c: Copy) => void,
): Promise<number> {
  let n = 0;
  const take = (c: Copy): void => {
    n++;
    each(c);
  };
  for (const resource of resources) {
    const noun = RESOURCES[resource].noun as Copy['noun'];
    const items = await optionalList(ctx, `/${resource}`, who);
    // No list, no ids to ask for: the list's note says why.
    if (!items) continue;
    for (const rec of items) take({ noun, rec, where: `${noun} ${show(rec.id)}`, key: recordKey(noun, rec.id) });
    const details = await ctx.api.details(resource, who).catch((e: unknown) => {
      if (e instanceof NetworkError) throw e;
      ctx.note(`the details of /${resource}${who === 'app' ? '' : ` (${who})`} not read: ${(e as Error).message}`);
      return [];
    });
    for await (const { id, reply } of details) {
      const rec = recordIn(reply);
      if (rec) take({ noun, rec, where: `GET ${detailPath(resource, id)}`, key: `detail:${recordKey(noun, id)}` });
    }
  }
  await everyRecord(orders ?? [], (o) => {
    if (resources.includes('dishes'))
      for (const d of Array.isArray(o.dishes) ? o.dishes : [])
        if (isRecord(d))
          take({
            noun: 'dish',
            rec: d,
            where: `order ${show(o.id)}'s dish ${show(d.id)}`,
            key: `${recordKey('order', o.id)}:${recordKey('dish', d.id)}`,
          });
    if (resources.includes('seats') && isRecord(o.seat) && o.seat_id !== 0)
      take({ noun: 'seat', rec: o.seat, where: `order ${show(o.id)}'s seat`, key: `${recordKey('order', o.id)}:seat` });
  });
  return n;
}

const CONS_05: CheckDeclaration = {
  id: 'CONS-05',
  level: 'MUST',
  spec: '§2.2, §2.3, §2.5',
  reads: ['dishes:app', 'seats:app', 'dishes:other_app', 'seats:other_app'],
  title:
    "Every dish and seat (listed, by detail, or in an order) carries user_id equal to its merchant's id, for every configured application",
  run: userIdsAreMerchant,
};

/**
 * CONS-05: dish.user_id and seat.user_id are the merchant's id (§2.2, §2.3 "user_id: Merchant ID"), in every copy
 * of the record the run reads, for each application against its own /merchant.
 */
async function userIdsAreMerchant(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  const skips = new Skips();
  const ids: string[] = [];
  let n = 0;
  for (const { who, label, key } of judges(ctx)) {
    const merchant = await merchantOf(ctx, who);
    if (!merchant) continue;
    const { id } = merchant;
    ids.push(`${label ? `${who}'s ` : ''}${id}`);
    n += await everyCopy(ctx, who, DETAIL_RESOURCES, await optionalList(ctx, '/orders', who), (c) => {
      if (!fieldValid(c.noun, 'user_id', c.rec.user_id)) {
        const checks = c.noun === 'dish' ? 'DISH' : 'SEAT';
        skips.add(`user_id is not an int (see ${checks}-01, ${checks}-02, ORD-01)`, `${label}${c.where}`);
        return;
      }
      if (c.rec.user_id !== id)
        found.add(`${label}${c.where} has user_id ${show(c.rec.user_id)}`, `${key}${c.key}:user_id`);
    });
  }
  skips.flush(ctx);
  if (found.length)
    ctx.fail(
      found.summary(`records do not carry the merchant's id (GET /merchant id is ${ids.join(', ')})`, n),
      found.fingerprints,
    );
}

const CONS_06: CheckDeclaration = {
  id: 'CONS-06',
  level: 'MUST',
  spec: '§2.3, §2.4, §2.5',
  reads: ['seats:app', 'seats:other_app'],
  title:
    "seat.merchant_id (listed, by detail, or in an order), and order.merchant_id when not empty, equal the merchant's merchant_id, for every configured application",
  run: merchantIdsMatch,
};

/** CONS-06: seat.merchant_id in every copy, and order.merchant_id unless empty, are the merchant's merchant_id. */
async function merchantIdsMatch(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  const skips = new Skips();
  const theirs: string[] = [];
  for (const { who, label, key } of judges(ctx)) {
    const merchant = await merchantOf(ctx, who);
    if (!merchant) continue;
    const { merchantId } = merchant;
    theirs.push(`${label ? `${who}'s ` : ''}${show(merchantId)}`);
    const orders = await optionalList(ctx, '/orders', who);
    await everyCopy(ctx, who, ['seats'], orders, (c) => {
      if (!fieldValid('seat', 'merchant_id', c.rec.merchant_id)) {
        skips.add('merchant_id is not a string (see SEAT-01, SEAT-02, ORD-01)', `${label}${c.where}`);
        return;
      }
      if (c.rec.merchant_id !== merchantId)
        found.add(`${label}${c.where} has merchant_id ${show(c.rec.merchant_id)}`, `${key}${c.key}:merchant_id`);
    });
    // §2.4: order.merchant_id "can be an empty string".
    await everyRecord(orders ?? [], (o) => {
      if (!fieldValid('order', 'merchant_id', o.merchant_id)) {
        skips.add('merchant_id is not a string (see ORD-01)', `${label}order ${show(o.id)}`);
        return;
      }
      if (o.merchant_id !== '' && o.merchant_id !== merchantId)
        found.add(
          `${label}order ${show(o.id)} has merchant_id ${show(o.merchant_id)}`,
          `${key}${recordKey('order', o.id, 'merchant_id')}`,
        );
    });
  }
  skips.flush(ctx);
  if (found.length)
    ctx.fail(
      found.summary([
        `record carries another merchant_id than GET /merchant (${theirs.join(', ')})`,
        `records carry another merchant_id than GET /merchant (${theirs.join(', ')})`,
      ]),
      found.fingerprints,
    );
}

async function orders(ctx: CheckContext): Promise<readonly Rec[]> {
  return ctx.api.list('/orders');
}

/** The orders of an application, or undefined with a note for another one whose list is unavailable. */
async function ordersOf(ctx: CheckContext, who: Who): Promise<readonly Rec[] | undefined> {
  return who === 'app' ? orders(ctx) : optionalList(ctx, '/orders', who);
}

/** The seat an order names: seat_id when it is a well-formed non-zero int, else undefined (0: no seat applies). */
const seatIdOf = (o: Rec): number | undefined =>
  fieldValid('order', 'seat_id', o.seat_id) && o.seat_id !== 0 ? (o.seat_id as number) : undefined;

const CONS_07: CheckDeclaration = {
  id: 'CONS-07',
  level: 'MUST',
  spec: '§2.4',
  title: 'order.seat_id equals order.seat.id (seat_id 0: no seat), for every configured application',
  run: orderSeatIds,
};

/** CONS-07: order.seat_id equals order.seat.id; seat_id 0 means no seat (seat may be null then). */
async function orderSeatIds(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  const skips = new Skips();
  let noSeatObject = 0;
  let count = 0;
  for (const { who, label, key } of judges(ctx)) {
    const all = await ordersOf(ctx, who);
    if (!all) continue;
    count += all.length;
    await everyRecord(all, (o) => {
      if (!fieldValid('order', 'seat_id', o.seat_id)) {
        skips.add('seat_id is not an int (see ORD-01)', `${label}order ${show(o.id)}`);
        return;
      }
      const seat = o.seat;
      const seatId = isRecord(seat) && fieldValid('seat', 'id', seat.id) ? seat.id : undefined;
      if (o.seat_id === 0) {
        if (seatId !== undefined && seatId !== 0)
          found.add(
            `${label}order ${show(o.id)} has seat_id 0 (no seat) but its seat is seat ${show(seatId)}`,
            `${key}${recordKey('order', o.id, 'seat_id')}`,
          );
      } else if (!isRecord(seat)) {
        noSeatObject++;
      } else if (seatId !== undefined && seatId !== o.seat_id) {
        found.add(
          `${label}order ${show(o.id)} has seat_id ${show(o.seat_id)} but seat.id ${show(seatId)}`,
          `${key}${recordKey('order', o.id, 'seat_id')}`,
        );
      }
    });
  }
  if (noSeatObject)
    ctx.note(
      `${counted(noSeatObject, 'order')} ${noSeatObject === 1 ? 'names' : 'name'} a seat_id but ${noSeatObject === 1 ? 'carries' : 'carry'} no seat object: nothing to compare`,
    );
  skips.flush(ctx);
  if (found.length) ctx.fail(found.summary('orders disagree with their own seat', count), found.fingerprints);
}

/**
 * The details of ids the list lacks, for the first MAX_FALLBACK_DETAILS of them: an id the list lacks is CONS-12's
 * finding; here it is only what cannot be compared, unless its detail answers it.
 */
async function fallbackDetails(
  ctx: CheckContext,
  resource: Resource,
  unlisted: Set<string>,
  who: Who,
): Promise<Map<string, Rec>> {
  const details = new Map<string, Rec>();
  const asked = [...unlisted].slice(0, MAX_FALLBACK_DETAILS);
  await Promise.all(
    asked.map(async (id) => {
      const d = askable(id) ? await detailRecord(ctx, resource, id, who) : undefined;
      if (d && sameId(d.id, id)) details.set(id, d);
    }),
  );
  return details;
}

/** A record embedded in an order, and its id: the key of its own record in the list (or its detail). */
interface Embedded {
  o: Rec;
  rec: Rec;
  id: string;
}

/**
 * The embedded records of the orders, handed one at a time, afresh at each call (`first`: the first call). Never
 * gathered into one array: each would keep its order, and a list read from disk (core/transport/disk-list.ts) would be held
 * whole after all.
 */
type EmbeddedRecords = (each: (e: Embedded) => void, first: boolean) => Promise<void>;

/**
 * CONS-08 and CONS-10: each embedded record equals its own record in the list (its detail where the list lacks it)
 * in the fields of its kind, for each application's orders against its own list. `embeddedOf` hands an
 * application's orders' embedded records (`first`: the first pass); `fieldKey` is the fingerprint of one differing
 * field; differences the spec allows (renderings, extra fields of the list) are noted too.
 */
async function embeddedEqualRecords(
  ctx: CheckContext,
  resource: 'dishes' | 'seats',
  embeddedOf: (orders: readonly Rec[], skips: Skips, label: string) => EmbeddedRecords,
  fieldKey: (e: Embedded, field: string) => string,
): Promise<void> {
  const { noun } = RESOURCES[resource];
  const found = new Findings();
  const remarks = new Remarks();
  const skips = new Skips();
  let count = 0;
  for (const { who, label, key } of judges(ctx)) {
    // The list's shared index (200,000 dishes: never copied), read before the orders so each embedded record is
    // compared in the one pass over the orders the checks share; only those the list lacks need a second pass.
    const items = await listFor(ctx, `/${resource}`, who);
    const all = items && (await ordersOf(ctx, who));
    if (!items || !all) continue;
    const listed = byId(items);
    const embedded = embeddedOf(all, skips, label);
    const listSource = `GET /${resource}`;
    // Worded only when said: a large merchant has hundreds of thousands of embedded records.
    const what = (e: Embedded): string => `${label}order ${show(e.o.id)}'s ${noun} ${e.id}`;
    const compare = (e: Embedded, rec: Rec, source: string): void => {
      const c = compareRecords(noun, e.rec, rec);
      if (c.diffs.length)
        found.add(
          `${what(e)}: ${describeDiffs(c.diffs, 'the order', source)}`,
          ...fieldKeys(c.diffs, (f) => `${key}${fieldKey(e, f)}`),
        );
      if (c.latitude.length) remarks.add(what(e), { ...c, extra: [] }, 'the order', source);
    };
    const unlisted = new Set<string>();
    await embedded((e) => {
      count++;
      const rec = listed.get(e.id);
      if (rec) compare(e, rec, listSource);
      else unlisted.add(e.id);
    }, true);
    if (unlisted.size) {
      const details = await fallbackDetails(ctx, resource, unlisted, who);
      await embedded((e) => {
        if (listed.has(e.id)) return;
        const d = details.get(e.id);
        if (d) compare(e, d, `GET ${detailPath(resource, e.id)}`);
        else
          skips.add(`neither GET /${resource} nor the first details asked answer the ${noun} (see CONS-12)`, what(e));
      }, false);
    }
  }
  remarks.flush(ctx);
  skips.flush(ctx);
  if (found.length)
    ctx.fail(found.summary(`embedded ${resource} differ from the ${noun} record`, count), found.fingerprints);
}

const CONS_08: CheckDeclaration = {
  id: 'CONS-08',
  level: 'MUST',
  spec: '§2.3, §2.4, §4 endpoint 6',
  title:
    'The seat embedded in an order equals its record in GET /seats (or GET /seats/:id where the list lacks it) in its seat fields, for every configured application',
  run: orderSeatEqualsSeat,
};

/** CONS-08: the seat embedded in an order equals its record in GET /seats (its detail where the list lacks it). */
async function orderSeatEqualsSeat(ctx: CheckContext): Promise<void> {
  await embeddedEqualRecords(
    ctx,
    'seats',
    (all) => (each) =>
      everyRecord(all, (o) => {
        const seat = o.seat;
        // Paired by the embedded seat's own id: whether it matches seat_id is CONS-07's finding.
        if (seatIdOf(o) !== undefined && isRecord(seat) && isIdLike(seat.id))
          each({ o, rec: seat, id: String(seat.id) });
      }),
    (e, f) => `${recordKey('order', e.o.id)}:seat.${f}`,
  );
}

const CONS_09: CheckDeclaration = {
  id: 'CONS-09',
  level: 'MUST',
  spec: '§2.2 (pivot)',
  title: "pivot.order_id is the order's id and pivot.dish_id the dish's id",
  run: pivotIds,
};

/** CONS-09: pivot.order_id is the order's id, pivot.dish_id the embedded dish's id. */
async function pivotIds(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  const skips = new Skips();
  let lines = 0;
  for (const { who, label, key } of judges(ctx)) {
    const all = await ordersOf(ctx, who);
    if (!all) continue;
    await everyRecord(all, (o) => {
      if (!Array.isArray(o.dishes)) {
        skips.add('dishes is not an array (see ORD-01)', `${label}order ${show(o.id)}`);
        return;
      }
      for (const d of o.dishes) {
        if (!isRecord(d) || !isRecord(d.pivot)) {
          skips.add('an order line without a dish object or pivot (see ORD-01)', `${label}order ${show(o.id)}`);
          continue;
        }
        lines++;
        const p = d.pivot;
        if (fieldValid('pivot', 'order_id', p.order_id) && !sameId(o.id, p.order_id))
          found.add(
            `${label}order ${show(o.id)}, dish ${show(d.id)}: pivot.order_id is ${show(p.order_id)}`,
            `${key}${recordKey('order', o.id)}:${recordKey('dish', d.id)}:pivot.order_id`,
          );
        if (fieldValid('pivot', 'dish_id', p.dish_id) && !sameId(d.id, p.dish_id))
          found.add(
            `${label}order ${show(o.id)}, dish ${show(d.id)}: pivot.dish_id is ${show(p.dish_id)}`,
            `${key}${recordKey('order', o.id)}:${recordKey('dish', d.id)}:pivot.dish_id`,
          );
      }
    });
  }
  skips.flush(ctx);
  if (found.length)
    ctx.fail(found.summary('order lines have a pivot that names another order or dish', lines), found.fingerprints);
}

const CONS_10: CheckDeclaration = {
  id: 'CONS-10',
  level: 'MUST',
  spec: '§2.2, §2.4, §4 endpoint 4',
  title:
    'Each dish embedded in an order equals its record in GET /dishes (or GET /dishes/:id where the list lacks it) in its dish fields, for every configured application',
  run: orderDishesEqualDishes,
};

/** CONS-10: each dish embedded in an order equals its record in GET /dishes (its detail where the list lacks it). */
async function orderDishesEqualDishes(ctx: CheckContext): Promise<void> {
  // The lines that cannot be compared are said once, on the first pass.
  await embeddedEqualRecords(
    ctx,
    'dishes',
    (all, skips, label) => (each, first) =>
      everyRecord(all, (o) => {
        if (!Array.isArray(o.dishes)) {
          if (first) skips.add('dishes is not an array (see ORD-01)', `${label}order ${show(o.id)}`);
          return;
        }
        for (const d of o.dishes) {
          if (isRecord(d) && isIdLike(d.id)) each({ o, rec: d, id: String(d.id) });
          else if (first) skips.add('an order line without a dish id (see ORD-01)', `${label}order ${show(o.id)}`);
        }
      }),
    (e, f) => `${recordKey('order', e.o.id)}:${recordKey('dish', e.id)}:${f}`,
  );
}

const CONS_12: CheckDeclaration = {
  id: 'CONS-12',
  level: 'MUST',
  spec: '§4 endpoints 3 and 5 ("all dishes", "all seats"), §2.2, §2.4',
  title:
    'Every dish and seat an order names (embedded, pivot.dish_id, seat_id) is in GET /dishes or GET /seats, for every configured application',
  run: referencesAreListed,
};

/** Where an order names an id its list lacks, and the record it embeds there, if any: what a CONS-12 finding says. */
interface Ref {
  where: string;
  rec?: Rec;
}

/**
 * CONS-12: §4 endpoints 3 and 5 answer *all* the merchant's dishes and seats. Every dish and seat an order names
 * (an embedded dish, pivot.dish_id, seat_id, the embedded seat) must be in the list: one the list lacks but its
 * detail answers is a list that is not complete; one that no endpoint knows is a reference that resolves nowhere.
 */
async function referencesAreListed(ctx: CheckContext): Promise<void> {
  const found = new Findings();
  let named = 0;
  for (const judge of judges(ctx)) named += await referencesListedOf(ctx, judge, found);
  if (found.length)
    ctx.fail(
      found.summary(
        [
          'dish or seat an order names is missing from its list',
          'dishes and seats that orders name are missing from their lists',
        ],
        named,
      ),
      found.fingerprints,
    );
}

/** CONS-12 for one application's orders and lists: adds what its lists lack to `found`, returns how many it named. */
async function referencesListedOf(
  ctx: CheckContext,
  { who, label, key }: { who: Who; label: string; key: string },
  found: Findings,
): Promise<number> {
  const all = await ordersOf(ctx, who);
  if (!all) return 0;
  const merchant = await ctx.api.merchant(who).catch((e: unknown) => {
    if (e instanceof NetworkError) throw e;
    return undefined;
  });
  let named = 0;
  // Both lists first, then one pass over the orders for both (a disk list's pass takes seconds).
  const sides: Array<{
    resource: Resource;
    refs: Map<string, Ref | undefined>;
    ref: (id: unknown, where: () => string, rec?: Rec) => void;
  }> = [];
  for (const resource of DETAIL_RESOURCES) {
    const items = await optionalList(ctx, `/${resource}`, who);
    if (!items) continue;
    const listed = byId(items);
    // The first order and field that names each id, and the embedded record when there is one: kept for the ids
    // the list lacks only (what a finding says), so the orders' records are not held (a disk list's included).
    const refs = new Map<string, Ref | undefined>();
    // `where` is worded only for an id the list lacks (what a finding says): orders name hundreds of thousands.
    const ref = (id: unknown, where: () => string, rec?: Rec): void => {
      if (!isIdLike(id) || refs.has(String(id))) return;
      refs.set(String(id), listed.has(String(id)) ? undefined : { where: where(), ...(rec ? { rec } : {}) });
    };
    sides.push({ resource, refs, ref });
  }
  await everyRecord(all, (o) => {
    for (const { resource, ref } of sides) {
      if (resource === 'dishes') {
        for (const d of Array.isArray(o.dishes) ? o.dishes : []) {
          if (!isRecord(d)) continue;
          ref(d.id, () => `${label}order ${show(o.id)}'s dishes[]`, d);
          if (isRecord(d.pivot)) ref(d.pivot.dish_id, () => `${label}order ${show(o.id)}'s pivot.dish_id`);
        }
      } else {
        const sid = seatIdOf(o);
        if (sid !== undefined) ref(sid, () => `${label}order ${show(o.id)}'s seat_id`);
        if (isRecord(o.seat) && o.seat_id !== 0) ref(o.seat.id, () => `${label}order ${show(o.id)}'s seat`, o.seat);
      }
    }
  });
  for (const { resource, refs } of sides) {
    const kind = nounOf(resource);
    named += refs.size;
    // An id the list holds is kept without a Ref (only counted).
    const missing = [...refs].filter((e): e is [string, Ref] => e[1] !== undefined);
    const asked = missing.slice(0, MAX_FALLBACK_DETAILS);
    const details = await Promise.all(
      asked.map(async ([id]) => (askable(id) ? detailRecord(ctx, resource, id, who) : undefined)),
    );
    missing.forEach(([id, { where, rec }], i) => {
      const owner =
        rec && merchant && rec.user_id !== undefined && !sameJson(rec.user_id, merchant.id)
          ? ` (it carries user_id ${show(rec.user_id)}, not the merchant's ${show(merchant.id)})`
          : '';
      const d = details[i];
      const text =
        d && sameId(d.id, id)
          ? `GET /${resource} lacks ${kind} ${id}, which ${where} names and GET ${detailPath(resource, id)} answers`
          : i < asked.length && askable(id)
            ? `${where} names ${kind} ${id}${owner}, which no endpoint knows (not in GET /${resource}; GET ${detailPath(resource, id)} answers no such ${kind})`
            : `${where} names ${kind} ${id}${owner}, which GET /${resource} lacks (its detail not asked: ${askable(id) ? `the first ${MAX_FALLBACK_DETAILS} only` : 'not an integer id'})`;
      found.add(text, `${key}${recordKey(kind, id, 'unlisted')}`);
    });
  }
  return named;
}

const CONS_11: CheckDeclaration = {
  id: 'CONS-11',
  level: 'INFO',
  spec: '§2.3, §2.4',
  title: "order_table_number agrees with the table_number of the order's seat",
  run: orderTableNumbers,
};

/** CONS-11: order_table_number is the table number of the order's seat (compared as numbers: "5" is 5). */
async function orderTableNumbers(ctx: CheckContext): Promise<void> {
  const all = await orders(ctx);
  const seats = byId((await optionalList(ctx, '/seats')) ?? []);
  const found = new Findings();
  let compared = 0;
  let nonNumeric = 0;
  await everyRecord(all, (o) => {
    const sid = seatIdOf(o);
    if (sid === undefined || !fieldValid('order', 'order_table_number', o.order_table_number)) return;
    // An embedded seat of another id is CONS-07's finding; without an embedded seat, the listed one is used.
    if (isRecord(o.seat) && !sameId(o.seat.id, sid)) return;
    const seat = isRecord(o.seat) ? o.seat : seats.get(String(sid));
    if (!seat) return;
    const tn = seat.table_number;
    const n =
      typeof tn === 'number' ? tn : typeof tn === 'string' && /^\s*-?[0-9]+\s*$/.test(tn) ? Number(tn) : undefined;
    if (n === undefined) {
      nonNumeric++;
      return;
    }
    compared++;
    if (n !== o.order_table_number)
      found.add(
        `order ${show(o.id)} has order_table_number ${show(o.order_table_number)}, its seat ${sid} has table_number ${show(tn)}`,
        recordKey('order', o.id, 'order_table_number'),
      );
  });
  if (nonNumeric)
    ctx.note(
      `${counted(nonNumeric, 'order')} ${nonNumeric === 1 ? 'sits' : 'sit'} at seats whose table_number is not a number: not compared with the int order_table_number`,
    );
  // INFO: the spec names both fields but never says they agree (a seat may be renumbered after the order).
  ctx.observe(
    found.length
      ? found.summary("orders whose table number is not their seat's", compared)
      : `order_table_number agrees with the seat's table_number in all ${compared} orders compared`,
  );
}

/** The checks that compare answers with each other: lists with details, orders with what they embed. */
export const consistencyChecks: Check[] = defineChecks('consistency', [
  CONS_01,
  CONS_02,
  CONS_03,
  CONS_04,
  CONS_05,
  CONS_06,
  CONS_07,
  CONS_08,
  CONS_09,
  CONS_10,
  CONS_11,
  CONS_12,
]);
