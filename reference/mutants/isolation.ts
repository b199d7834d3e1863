import type { Mutant } from './types.js';
import { pathIs, withData } from '../kit.js';
import { ok, type ApiRequest } from '../server.js';
import { LATITUDE_VARIANTS } from '../variants.js';

/**
 * Broken variants for tenant isolation (suites/isolation.ts): a query that forgets the merchant filter, for one
 * merchant's token only, so each direction of the check is proven on its own. Merchant 1 is "A" (app), 2 is "B".
 */

const tokenOf = (req: ApiRequest, merchant: number): boolean => req.merchant?.id === merchant;
const idOf = (req: ApiRequest): number => Number(decodeURIComponent(req.path.split('/')[2] ?? ''));

/** The conforming variant whose id spaces iso-per-merchant-ids-detail-leak-a breaks isolation in. */
const perMerchantIds = LATITUDE_VARIANTS.find((v) => v.name === 'per-merchant-ids')!;

/** How often each server was asked /auth by merchant 2's application (the preflight asks first). */
const otherAuths = new WeakMap<object, number>();

/** Servers that let one merchant see another's data (§1), each caught by exactly its `kills`. */
export const isolationMutants: Mutant[] = [
  {
    // ISO-02's "/merchant answers the other merchant" branch (#27): without it, ISO-02 would drop out of this set
    // (AUTH-04 sees /auth and /merchant disagree, CONS-05/06 the records' merchant ids disagree with /merchant).
    name: 'iso-merchant-answers-other',
    description:
      "with merchant 1's token, /merchant answers merchant 2's record (its /auth and lists stay merchant 1's)",
    kills: ['AUTH-04', 'CONS-05', 'CONS-06', 'ISO-02'],
    handle: (req, next, world) =>
      req.path === '/merchant' && tokenOf(req, 1) ? ok(world.render.merchant(world.merchants.get(2)!)) : next(),
  },
  {
    // The server's word about identity must not turn the isolation checks off: they fail instead of skipping. (Told
    // so from the first /auth on, the preflight stops the run: a configuration that names one merchant twice.)
    name: 'iso-other-app-claims-merchant-1',
    description:
      "from its second /auth on, merchant 2's application is told it is merchant 1, by /auth and /merchant alike (its data stays merchant 2's)",
    // #35: merchant 2's records then carry another owner than its /merchant says (CONS-05, CONS-06 judge other_app too).
    kills: ['ISO-01', 'ISO-02', 'ISO-03', 'ISO-04', 'CONS-05', 'CONS-06'],
    handle: (req, next, world) => {
      const r = next();
      const isOther = req.path === '/auth' && req.query.get('secret') === world.fixtures.apps[1]!.secret;
      if (isOther) otherAuths.set(world, (otherAuths.get(world) ?? 0) + 1);
      if ((otherAuths.get(world) ?? 0) < 2) return r;
      if (isOther) return withData(r, (d) => ({ ...d, merchant: world.render.merchant(world.merchants.get(1)!) }));
      return req.path === '/merchant' && tokenOf(req, 2)
        ? withData(r, () => world.render.merchant(world.merchants.get(1)!))
        : r;
    },
  },
  {
    name: 'iso-dish-detail-leak-a',
    description: "with merchant 1's token, /dishes/:id answers merchant 2's dishes (no merchant filter on the detail)",
    // Fuzzing draws merchant B's ids as well and sees B's record.
    kills: ['ISO-01', 'FUZZ-01'],
    handle: (req, next, world) => {
      if (!tokenOf(req, 1) || !pathIs(req, '/dishes/:id')) return next();
      const d = world.dishes.get(idOf(req));
      return d && d.user_id !== 1 ? ok(world.render.dish(d)) : next();
    },
  },
  {
    name: 'iso-seat-detail-leak-a',
    description: "with merchant 1's token, /seats/21 answers merchant 2's seat 21 (no merchant filter on the detail)",
    // Merchant 2's seat 21 only: the tests' fuzz seed (12345, 30 runs) never asks for it, so this is ISO-01's alone
    // (FUZZ-01, which draws merchant B's ids too, would also catch it at a seed that does).
    kills: ['ISO-01'],
    handle: (req, next, world) =>
      tokenOf(req, 1) && req.path === '/seats/21' ? ok(world.render.seat(world.seats.get(21)!)) : next(),
  },
  {
    // Per-merchant ids (the conforming variant per-merchant-ids), and a detail that looks the id up in every
    // merchant's records: merchant 1's dish 101 is answered with merchant 2's dish 101. ISO-01 judges such an id from
    // merchant 1's own detail; ISO-02 sees merchant 2's owner in the same answer.
    name: 'iso-per-merchant-ids-detail-leak-a',
    description:
      "merchant 2's dishes and seats are numbered in its own id space, and with merchant 1's token /dishes/:id of an id both merchants have answers merchant 2's dish",
    kills: ['CONS-02', 'CONS-05', 'FUZZ-01', 'ISO-01', 'ISO-02'],
    handle: (req, next, world) => {
      if (tokenOf(req, 1) && pathIs(req, '/dishes/:id')) {
        const id = idOf(req);
        const theirs = world.dishes.get(id + 100);
        if (theirs && theirs.user_id === 2) return ok({ ...world.render.dish(theirs), id });
      }
      return perMerchantIds.handle!(req, next, world);
    },
  },
  {
    name: 'iso-seat-detail-leak-b',
    description: "with merchant 2's token, /seats/:id answers merchant 1's seats",
    kills: ['ISO-03'],
    handle: (req, next, world) => {
      if (!tokenOf(req, 2) || !pathIs(req, '/seats/:id')) return next();
      const s = world.seats.get(idOf(req));
      return s && s.user_id !== 2 ? ok(world.render.seat(s)) : next();
    },
  },
  {
    name: 'iso-dishes-list-leak-a',
    description: "with merchant 1's token, /dishes lists merchant 2's dishes too",
    // The leaked dishes carry user_id 2 (CONS-05) and their detail refuses merchant 1 (DISH-02).
    kills: ['ISO-02', 'CONS-05', 'DISH-02'],
    handle: (req, next, world) => {
      const r = next();
      return tokenOf(req, 1) && req.path === '/dishes' ? withData(r, (d) => [...d, ...world.dishesOf(2)]) : r;
    },
  },
  {
    name: 'iso-embedded-dish-leak-a',
    description:
      "with merchant 1's token, order 5002 also embeds merchant 2's dish 201 (a join without the merchant filter)",
    // Dish 201 is no dish of merchant 1's list either: the reference resolves nowhere for merchant 1 (CONS-12).
    // #35: CONS-05 reads the embedded dishes' user_id too.
    kills: ['ISO-02', 'CONS-05', 'CONS-12'],
    handle: (req, next, world) => {
      const r = next();
      if (!tokenOf(req, 1) || req.path !== '/orders') return r;
      return withData(r, (d) => {
        const o = d.find((x: { id: number }) => x.id === 5002);
        o.dishes.push({
          ...world.render.dish(world.dishes.get(201)!),
          pivot: { order_id: 5002, dish_id: 201, price: 22.5, count: 1 },
        });
      });
    },
  },
  {
    name: 'iso-embedded-dish-merchant-id-a',
    description:
      "with merchant 1's token, the dishes of order 5001 carry merchant 2's merchant_id (an extra column joined from the wrong merchant)",
    // merchant_id is no dish field of §2.2: the shape and consistency checks allow and ignore it; it names merchant B.
    kills: ['ISO-02'],
    handle: (req, next, world) => {
      const r = next();
      if (!tokenOf(req, 1) || req.path !== '/orders') return r;
      return withData(r, (d) => {
        for (const x of d.find((o: { id: number }) => o.id === 5001).dishes)
          x.merchant_id = world.merchants.get(2)!.merchant_id;
      });
    },
  },
  {
    name: 'iso-orders-list-leak-b',
    description: "with merchant 2's token, /orders lists merchant 1's orders too",
    // #35: merchant 2's orders are judged like merchant 1's: owners (CONS-05, CONS-06) and listed dishes (CONS-12).
    kills: ['ISO-04', 'CONS-05', 'CONS-06', 'CONS-12'],
    handle: (req, next, world) => {
      const r = next();
      return tokenOf(req, 2) && req.path === '/orders' ? withData(r, (d) => [...d, ...world.ordersOf(1)]) : r;
    },
  },
];
