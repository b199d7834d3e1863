import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Mutant } from './types.js';
import { eachRecord, onPath, pathIs, withData } from '../kit.js';
import { route, type ApiRequest } from '../server.js';

/**
 * Proof per way (#27) for the data checks: one mutant for each failure branch of the consistency, isolation and
 * transport checks that no mutant reached, each breaking the rule that one way only, so the run against it fails
 * that check alone.
 */

/** Merchant 2's token ("B", other_app): the isolation mutants below break B's side only, so ISO-03 alone sees them. */
const merchant2 = (req: ApiRequest): boolean => req.merchant?.id === 2;

/** The record of merchant 1 ("A") whose detail merchant 2's token asks for, if that is what the request is. */
function merchant1Detail<T extends { user_id: number }>(
  req: ApiRequest,
  pattern: '/dishes/:id' | '/seats/:id',
  records: ReadonlyMap<number, T>,
): T | undefined {
  if (!merchant2(req) || !pathIs(req, pattern)) return undefined;
  const rec = records.get(Number(decodeURIComponent(req.path.split('/')[2] ?? '')));
  return rec?.user_id === 1 ? rec : undefined;
}

/**
 * Requests that came over plain HTTP, by their header object (the same object the API request carries): the raw hook
 * sees the socket, the handle hook does not.
 */
const overPlainHttp = new WeakSet<IncomingMessage['headers']>();

/** A mutant that changes order 5001 of GET /orders only (a copy: the world's data is never touched). */
function order5001(name: string, description: string, kill: string, change: (order: any) => void): Mutant {
  const changed = onPath(name, description, ['/orders'], (r) =>
    withData(r, (d) =>
      eachRecord(d, (o) => {
        if (o.id === 5001) change(o);
      }),
    ),
  );
  return { ...changed, kills: [kill] };
}

/** Mutants of the data checks' failure branches that had none, each caught by exactly its `kills`. */
export const dataWayMutants: Mutant[] = [
  // CONS-07's "seat_id 0 (no seat) but a seat" branch (cons-order-seat-id breaks the other: two seat ids).
  order5001('cons-order-seat-id-zero', 'order 5001 has seat_id 0 (no seat) yet embeds its seat 11', 'CONS-07', (o) => {
    o.seat_id = 0;
  }),
  // CONS-09's pivot.dish_id branch (cons-pivot-order-id breaks order_id). Each pivot names a dish of the merchant's
  // list, so no reference resolves nowhere (CONS-12): only the pivot and its line disagree.
  order5001(
    'cons-pivot-dish-id-swapped',
    "order 5001's two lines carry each other's pivot.dish_id (dish 101's names 103, dish 103's names 101)",
    'CONS-09',
    (o) => {
      const ids = o.dishes.map((x: { pivot: { dish_id: number } }) => x.pivot.dish_id);
      o.dishes.forEach((x: { pivot: { dish_id: number } }, i: number) => {
        x.pivot.dish_id = ids[(i + 1) % ids.length];
      });
    },
  ),
  {
    // ISO-01/03's "an error that carries the other's record" branch: the record is looked up before the owner check,
    // and the refusal sends it along.
    name: 'iso-dish-refusal-carries-record-b',
    description: "with merchant 2's token, merchant 1's dishes are refused with 404 whose data is the dish itself",
    kills: ['ISO-03'],
    handle: (req, next, world) => {
      const dish = merchant1Detail(req, '/dishes/:id', world.dishes);
      if (!dish) return next();
      const refusal = world.render.error(404, 'Record not found');
      return { ...refusal, body: { ...refusal.body, data: world.render.dish(dish) } };
    },
  },
  {
    // ISO-01/03's "not 400 or 404" branch: a refusal with a code §7 does not have.
    name: 'iso-refusal-403-b',
    description:
      "with merchant 2's token, merchant 1's dishes and seats are refused with code 403 (Forbidden), not 400 or 404",
    kills: ['ISO-03'],
    handle: (req, next, world) =>
      merchant1Detail(req, '/dishes/:id', world.dishes) || merchant1Detail(req, '/seats/:id', world.seats)
        ? world.render.error(403, 'Forbidden: a record of another merchant')
        : next(),
  },
  {
    // TRANS-03's "without a token" branch (plain-http-same-port serves data over plain HTTP with the token only).
    name: 'plain-http-serves-without-token',
    description:
      "the HTTPS port also answers plain HTTP, and there serves the first merchant's data without a token (a listener meant to sit behind the TLS proxy, trusting every caller)",
    kills: ['TRANS-03'],
    plainAndTls: true,
    raw: (req) => {
      if (!(req.socket as TLSSocket).encrypted) overPlainHttp.add(req.headers);
      return false;
    },
    handle: (req, next, world) => {
      if (!overPlainHttp.has(req.headers) || tokenOfRequest(req.headers) !== undefined) return next();
      const app = world.fixtures.apps[0]!;
      return route({ ...req, app, merchant: world.merchants.get(app.merchant)! }, world);
    },
  },
];
