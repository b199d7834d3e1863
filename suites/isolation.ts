import { defineChecks, type Check, type CheckContext, type CheckDeclaration } from '../core/model/check.js';
import { Blocked } from '../core/session/check-errors.js';
import { everyRecord, isRecord, successData, type Rec } from '../core/session/api.js';
import { DETAIL_RESOURCES, nounOf, type ListPath, type Noun, type Resource, type Who } from '../core/spec/resources.js';
import type { RecordId } from '../core/spec/endpoints.js';
import { ownerMark, tenantOf, type Tenant } from './support/tenants.js';
import { describeReply, envelopeCode } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { AUTH_PATH, detailPath } from '../core/spec/endpoints.js';
import { NetworkError } from '../core/transport/exchange.js';
import { isIdLike } from '../core/base/exact-json.js';
import { byId, recordIn, Findings, recordKey, sameId, sameJson, sameText, SPEC_FIELDS } from './support/compare.js';

/**
 * §1 "Every data endpoint returns data belonging to the merchant that owns the application credential": with
 * merchant A's token nothing of merchant B may be read, and the other way round. Needs other_app (an application
 * of a second merchant). Messages name the exact record that leaked, since this is the finding vendors most need.
 */

interface Side {
  who: Who;
  label: string;
}
const A: Side = { who: 'app', label: 'merchant A' };
const B: Side = { who: 'other_app', label: 'merchant B' };

async function tenants(ctx: CheckContext, me: Side, other: Side): Promise<{ mine: Tenant; theirs: Tenant }> {
  const [mine, theirs] = await Promise.all([tenantOf(ctx, me.who), tenantOf(ctx, other.who)]);
  if (
    sameJson(mine.id, theirs.id) ||
    (typeof mine.merchantId === 'string' && mine.merchantId !== '' && mine.merchantId === theirs.merchantId)
  ) {
    // The configuration, not the server, says who is who: other_app is an application of a second merchant. A server
    // that names one merchant for both would otherwise turn every isolation check off by its own word.
    ctx.fail(
      `${AUTH_PATH} names the same merchant (id ${show(mine.id)}, merchant_id ${show(mine.merchantId)}) for app and for other_app, which is configured as an application of a second merchant: the server answers one application with the other's merchant, so nothing can be kept apart (§1). Judgement: the configuration is trusted; if both applications really belong to one merchant, configure other_app with an application of another merchant`,
      ['tenants:same-merchant'],
    );
  }
  return { mine, theirs };
}

/** The same record: every spec field both carry is equal (5 and "5" alike); the name or table number at least. */
function sameSpecFields(kind: Noun, a: Rec, b: Rec): boolean {
  const fields = SPEC_FIELDS[kind].filter((f) => Object.hasOwn(a, f) && Object.hasOwn(b, f));
  return fields.length > 0 && fields.every((f) => sameJson(a[f], b[f]) || sameText(a[f], b[f]));
}

/** A record of mine that is really theirs: it carries their user_id/merchant_id, or equals their record of that id. */
function theirRecord(kind: Noun, rec: Rec, theirList: ReadonlyMap<string, Rec>, theirs: Tenant): string | undefined {
  const mark = ownerMark(rec, theirs);
  if (mark) return mark;
  const same = theirList.get(String(rec.id));
  return same && sameSpecFields(kind, rec, same) ? 'the same record as theirs' : undefined;
}

/**
 * The owner an order shows: its merchant_id, else its seat's or a dish's user_id (an order has no user_id, and its
 * merchant_id may be "", §2.4).
 */
function orderMark(o: Rec, tenant: Tenant): string | undefined {
  const mark = ownerMark(o, tenant) ?? (isRecord(o.seat) ? ownerMark(o.seat, tenant) : undefined);
  if (mark) return mark;
  for (const d of Array.isArray(o.dishes) ? o.dishes : [])
    if (isRecord(d)) {
      const m = ownerMark(d, tenant);
      if (m) return m;
    }
  return undefined;
}

/**
 * Their records by id, without those that carry my own user_id or merchant_id: a record of mine leaked into their
 * list is mine (the other direction's check reports that leak), not theirs.
 */
function theirRecords(
  items: readonly Rec[] | undefined,
  mine: Tenant,
  mark: (r: Rec, t: Tenant) => string | undefined = ownerMark,
): ReadonlyMap<string, Rec> {
  const list = items ?? [];
  // Usually nothing of mine is there: then it is the list's own index, which other checks share.
  return byId(list.some((i) => mark(i, mine)) ? list.filter((i) => !mark(i, mine)) : list);
}

/**
 * Their orders' order_number by id, as theirRecords would pair them (the first record of an id, mine left out):
 * only the number is compared, so a list read from disk (core/transport/disk-list.ts) is not held whole. Only my orders' ids
 * are looked up: when I have fewer orders, theirs are kept for those ids only (500,000 of theirs against a few).
 */
async function theirOrderNumbers(
  items: readonly Rec[] | undefined,
  mine: Tenant,
  myOrders: readonly Rec[] | undefined,
): Promise<Map<string, unknown>> {
  const m = new Map<string, unknown>();
  let wanted: Set<string> | undefined;
  if (items && myOrders && myOrders.length < items.length) {
    const ids = (wanted = new Set<string>());
    // Every key theirsInOrder looks up (String(o.id), whatever the id), so the verdict does not depend on which list
    // is longer.
    await everyRecord(myOrders, (o) => {
      ids.add(String(o.id));
    });
  }
  await everyRecord(items ?? [], (o) => {
    if (orderMark(o, mine)) return;
    const k = isIdLike(o.id) ? String(o.id) : undefined;
    if (k !== undefined && !m.has(k) && (!wanted || wanted.has(k))) m.set(k, o.order_number);
  });
  return m;
}

async function listOf(ctx: CheckContext, path: ListPath, side: Side): Promise<readonly Rec[] | undefined> {
  try {
    return await ctx.api.list(path, side.who);
  } catch (e) {
    if (e instanceof NetworkError) throw e;
    ctx.note(`GET ${path} with ${side.label}'s token not used: ${(e as Error).message}`);
    return undefined;
  }
}

const ISO_01: CheckDeclaration = {
  id: 'ISO-01',
  level: 'MUST',
  spec: '§1, §4 endpoints 4 and 6',
  requires: ['other_app'],
  // An id of B that is also an id of A's own records (per-merchant ids) is A's detail: judged from A's sweep.
  reads: ['dishes:app', 'seats:app'],
  title:
    "With merchant A's token, none of merchant B's dish or seat ids resolves by detail (an error 400/404, never SUCCESS)",
  run: (ctx) => theirIdsDoNotResolve(ctx, A, B),
};
const ISO_03: CheckDeclaration = {
  id: 'ISO-03',
  level: 'MUST',
  spec: '§1, §4 endpoints 4 and 6',
  requires: ['other_app'],
  reads: ['dishes:other_app', 'seats:other_app'],
  title:
    "With merchant B's token, none of merchant A's dish or seat ids resolves by detail (an error 400/404, never SUCCESS)",
  run: (ctx) => theirIdsDoNotResolve(ctx, B, A),
};

/** ISO-01/03: none of the other merchant's dish or seat ids resolves by detail with my token. */
async function theirIdsDoNotResolve(ctx: CheckContext, me: Side, other: Side): Promise<void> {
  const { mine: myTenant, theirs } = await tenants(ctx, me, other);
  const found = new Findings();
  // Which ids to ask for, every resource's, then one request of my own for each.
  const asked: Array<{ resource: Resource; noun: Noun; id: RecordId }> = [];
  const notAsked: string[] = [];
  let sharedJudged = 0;
  // Their listed ids of which the source holds no detail (a capture of ordinary traffic never asks for another
  // merchant's record with my token): a skip names what the recording lacks.
  const unheld: string[] = [];
  for (const resource of DETAIL_RESOURCES) {
    const noun = nounOf(resource);
    const theirList = await listOf(ctx, `/${resource}`, other);
    if (!theirList) continue;
    const theirById = theirRecords(theirList, myTenant);
    const mine = byId((await listOf(ctx, `/${resource}`, me)) ?? []);
    const { ids, total, sampled } = await ctx.api.detailIds(resource, other.who);
    const theirIds = [...theirById.values()].map((r) => r.id).filter(isIdLike);
    // Live, every listed id is asked for: none held is a recording's gap.
    if (!total && theirIds.length)
      unheld.push(
        `${noun} ids (${theirIds
          .slice(0, 5)
          .map((id) => show(id, 24))
          .join(', ')}${theirIds.length > 5 ? ', …' : ''})`,
      );
    if (sampled) ctx.note(`asked for a seeded sample of ${ids.length} of ${other.label}'s ${total} ${resource}`);
    // Ids may be per merchant: an id that is also one of my own records (and not their record leaked into my list)
    // is mine to read. My detail of it (my own sweep's answer: no request of this check's) must be my record, never
    // theirs: that is this rule's cell at such an id.
    const shared = new Map<string, Rec>();
    for (const id of ids) {
      if (!theirById.has(String(id))) continue;
      const own = mine.get(String(id));
      if (own && !theirRecord(noun, own, theirById, theirs)) shared.set(String(id), own);
      else asked.push({ resource, noun, id });
    }
    if (shared.size) {
      for await (const { id, reply } of await ctx.api.details(resource, me.who)) {
        const own = shared.get(String(id));
        if (!own) continue;
        sharedJudged++;
        const d = recordIn(reply);
        const why = d && theirRecord(noun, d, theirById, theirs);
        if (why && !sameSpecFields(noun, d, own))
          found.add(
            `GET ${detailPath(resource, id)} with ${me.label}'s token answered ${other.label}'s ${noun} ${id} (${why}), not ${me.label}'s own ${noun} of that id`,
            recordKey(noun, id),
          );
      }
      notAsked.push(
        `${shared.size} of ${other.label}'s ${noun} ids are also ids of ${me.label}'s own ${resource} (per-merchant ids): judged from ${me.label}'s own detail of each (it must be ${me.label}'s record)`,
      );
    }
  }
  // Each of these requests is sent once in a run, by this check alone: not kept for others to reuse. No response is
  // no evidence either way (and not a refusal): it ends the check as incomplete.
  const token = asked.length ? await ctx.api.token(me.who) : '';
  const answers = ctx.api.ask(asked, ({ resource, id }) => ({ path: detailPath(resource, id), token }));
  for await (const { item, reply } of answers) {
    const { resource, noun, id } = item;
    const head = `GET ${detailPath(resource, id)} with ${me.label}'s token`;
    const s = successData(reply);
    const data = s.ok ? s.data : isRecord(reply.json) ? reply.json.data : undefined;
    const mark = isRecord(data) ? ownerMark(data, theirs) : undefined;
    if (s.ok)
      found.add(
        isRecord(data) && sameId(data.id, id)
          ? `${head} answered ${other.label}'s ${noun} ${id}${mark ? ` (${mark})` : ''}`
          : `${head} answered SUCCESS (data ${show(data, 60)}) for ${other.label}'s ${noun} ${id}; expected an error with code 400 or 404`,
        recordKey(noun, id),
      );
    else if (mark)
      found.add(`${head} answered an error that carries ${other.label}'s ${noun} ${id} (${mark})`, recordKey(noun, id));
    else if (![400, 404].includes(envelopeCode(reply) as number))
      found.add(
        `${head} (${other.label}'s ${noun} ${id}): expected an error with code 400 or 404, got ${describeReply(reply)}`,
        recordKey(noun, id),
      );
  }
  for (const text of notAsked) ctx.note(text);
  const probed = asked.length + sharedJudged;
  if (!probed)
    throw new Blocked(
      unheld.length
        ? `the recording holds no detail answer (GET /${DETAIL_RESOURCES.join('/{id}, GET /')}/{id}) for ${other.label}'s ${unheld.join(' or ')}, which ${me.label}'s token must ask for: a live run asks, a capture of ordinary traffic does not`
        : `${other.label} has no dish or seat id that is not also an id of ${me.label}'s own records (per-merchant ids, or no records): nothing to ask for`,
    );
  if (found.length)
    ctx.fail(
      `${found.length} of the ${probed} dish and seat ids of ${other.label} (${other.who}) asked for with the token of ${me.label} (${me.who}) resolved where they must not: ${found.list()}`,
      found.fingerprints,
    );
}

const ISO_02: CheckDeclaration = {
  id: 'ISO-02',
  level: 'MUST',
  spec: '§1, §4 endpoints 2–7',
  requires: ['other_app'],
  reads: ['dishes:app', 'seats:app'],
  title: "Merchant A's responses carry none of merchant B's records, user_id or merchant_id",
  run: (ctx) => myResponsesCarryNothingOfTheirs(ctx, A, B),
};
const ISO_04: CheckDeclaration = {
  id: 'ISO-04',
  level: 'MUST',
  spec: '§1, §4 endpoints 2–7',
  requires: ['other_app'],
  reads: ['dishes:other_app', 'seats:other_app'],
  title: "Merchant B's responses carry none of merchant A's records, user_id or merchant_id",
  run: (ctx) => myResponsesCarryNothingOfTheirs(ctx, B, A),
};

/** What is known of the other merchant: who it is, and its records by id. */
interface TheirData extends Record<Noun, ReadonlyMap<string, Rec>> {
  tenant: Tenant;
  /** Their order_number by id (theirOrderNumbers). */
  orders: ReadonlyMap<string, unknown>;
}

/** One of my orders, looked into: is it theirs, or does it sit at their seat or embed their dish? */
function theirsInOrder(
  o: Rec,
  t: TheirData,
  other: Side,
  says: (path: string, text: string, key: string) => void,
): void {
  const leaked =
    ownerMark(o, t.tenant) ??
    (t.orders.has(String(o.id)) && sameJson(o.order_number, t.orders.get(String(o.id)))
      ? 'the same order_number as theirs'
      : undefined);
  // A leaked order: its seat and dishes come with it.
  if (leaked)
    return says('/orders', `lists ${other.label}'s order ${show(o.id)} (${leaked})`, recordKey('order', o.id));
  const seat = o.seat;
  const seatWhy = isRecord(seat) ? theirRecord('seat', seat, t.seat, t.tenant) : undefined;
  if (isRecord(seat) && seatWhy)
    says(
      '/orders',
      `: order ${show(o.id)} sits at ${other.label}'s seat ${show(seat.id)} (${seatWhy})`,
      `${recordKey('order', o.id)}:${recordKey('seat', seat.id)}`,
    );
  for (const d of Array.isArray(o.dishes) ? o.dishes : []) {
    const why = isRecord(d) ? theirRecord('dish', d, t.dish, t.tenant) : undefined;
    if (isRecord(d) && why)
      says(
        '/orders',
        `: order ${show(o.id)} embeds ${other.label}'s dish ${show(d.id)} (${why})`,
        `${recordKey('order', o.id)}:${recordKey('dish', d.id)}`,
      );
  }
}

/** ISO-02/04: nothing in my responses is the other merchant's record or carries its user_id or merchant_id. */
async function myResponsesCarryNothingOfTheirs(ctx: CheckContext, me: Side, other: Side): Promise<void> {
  const { mine, theirs } = await tenants(ctx, me, other);
  const theirLists: Record<Noun, ReadonlyMap<string, Rec>> = {
    dish: theirRecords(await listOf(ctx, '/dishes', other), mine),
    seat: theirRecords(await listOf(ctx, '/seats', other), mine),
  };
  const found = new Findings();
  const says = (path: string, text: string, key: string): void =>
    found.add(`GET ${path} with ${me.label}'s token${text.startsWith(':') ? '' : ' '}${text}`, `GET ${path}:${key}`);
  let looked = 0;

  try {
    const m = await ctx.api.merchant(me.who);
    looked++;
    if (sameJson(m.id, theirs.id) || (typeof theirs.merchantId === 'string' && m.merchant_id === theirs.merchantId))
      says(
        '/merchant',
        `answered ${other.label}'s merchant record (id ${show(m.id)}, merchant_id ${show(m.merchant_id)})`,
        'merchant',
      );
  } catch (e) {
    if (e instanceof NetworkError) throw e;
    ctx.note(`GET /merchant with ${me.label}'s token not used: ${(e as Error).message}`);
  }

  for (const resource of DETAIL_RESOURCES) {
    const noun = nounOf(resource);
    const items = await listOf(ctx, `/${resource}`, me);
    if (!items) continue;
    looked++;
    for (const i of items) {
      const why = theirRecord(noun, i, theirLists[noun], theirs);
      if (why) says(`/${resource}`, `lists ${other.label}'s ${noun} ${show(i.id)} (${why})`, recordKey(noun, i.id));
    }
    // The details of the run (the same sample as DISH-02/SEAT-02): each must be mine too.
    for await (const { id, reply } of await ctx.api.details(resource, me.who)) {
      const d = recordIn(reply);
      const mark = d && ownerMark(d, theirs);
      if (mark) says(`/${resource}/:id`, `answered a ${noun} of ${other.label} (${mark})`, recordKey(noun, id));
    }
  }

  const myOrders = await listOf(ctx, '/orders', me);
  if (myOrders) {
    looked++;
    const theirOrders = await theirOrderNumbers(await listOf(ctx, '/orders', other), mine, myOrders);
    await everyRecord(myOrders, (o) =>
      theirsInOrder(o, { ...theirLists, tenant: theirs, orders: theirOrders }, other, says),
    );
  }

  if (!looked) throw new Blocked(`no response of ${me.label} to look into`);
  if (found.length)
    ctx.fail(
      `The responses of ${me.label} (${me.who}) carry data of ${other.label} (${other.who}: user_id ${show(theirs.id)}, merchant_id ${show(theirs.merchantId)}) in ${found.length} place${found.length > 1 ? 's' : ''}: ${found.list()}`,
      found.fingerprints,
    );
}

/** The checks that one merchant's token reaches none of another merchant's data (§1); they need other_app. */
export const isolationChecks: Check[] = defineChecks('isolation', [ISO_01, ISO_02, ISO_03, ISO_04]);
