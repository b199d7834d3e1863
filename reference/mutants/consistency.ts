import type { Mutant } from './types.js';
import { eachRecord, onPath, withData } from '../kit.js';

/** Broken variants for the consistency checks (suites/consistency.ts): each breaks one rule of §2 between endpoints. */
export const consistencyMutants: Mutant[] = [
  {
    // Fuzzing asks for real ids too, and sees the record of another id.
    ...onPath('cons-detail-id-off', '/dishes/:id answers its dish under id + 1000', ['/dishes/:id'], (r) =>
      withData(r, (d) => {
        d.id += 1000;
      }),
    ),
    kills: ['CONS-01', 'FUZZ-01'],
  },
  {
    // Only dish 101, asked for by its plain path: the tests' fuzz seed (12345, 30 runs) never asks "101", so this is
    // CONS-01's alone (FUZZ-01 would also catch it at a seed that draws it).
    ...onPath('cons-dish-101-detail-id-off', '/dishes/101 answers dish 101 under id 1101', ['/dishes/101'], (r) =>
      withData(r, (d) => {
        d.id = 1101;
      }),
    ),
    kills: ['CONS-01'],
  },
  {
    ...onPath(
      'cons-dish-detail-differs',
      '/dishes/:id answers dish 101 with another price than /dishes',
      ['/dishes/:id'],
      (r) =>
        withData(r, (d) => {
          if (d.id === 101) d.price = 38;
        }),
    ),
    kills: ['CONS-02'],
  },
  {
    ...onPath(
      'cons-seat-detail-differs',
      '/seats/:id answers seat 12 with another remark than /seats',
      ['/seats/:id'],
      (r) =>
        withData(r, (d) => {
          if (d.id === 12) d.remark = 'Reserved';
        }),
    ),
    kills: ['CONS-03'],
  },
  {
    ...onPath('cons-duplicate-dish', '/dishes lists dish 102 twice', ['/dishes'], (r) =>
      withData(r, (d) => {
        // Merchant 1's list only: merchant 2 has no dish 102 (its list is judged too).
        const twice = d.find((x: { id: number }) => x.id === 102);
        return twice ? [...d, twice] : d;
      }),
    ),
    kills: ['CONS-04'],
  },
  {
    name: 'cons-seat-user-id',
    description: "every seat (list, detail, embedded) carries user_id 999 instead of its merchant's id",
    render: { seat: (s) => ({ ...s, user_id: 999 }) },
    kills: ['CONS-05'],
  },
  {
    name: 'cons-seat-merchant-id',
    description: "every seat carries a merchant_id that is not its merchant's",
    render: { seat: (s) => ({ ...s, merchant_id: `${s.merchant_id}-OLD` }) },
    kills: ['CONS-06'],
  },
  {
    ...onPath('cons-order-merchant-id', 'order 5001 carries another merchant_id than /merchant', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          if (o.id === 5001) o.merchant_id = 'MCH19990001';
        }),
      ),
    ),
    kills: ['CONS-06'],
  },
  {
    ...onPath('cons-order-seat-id', 'order 5001 has seat_id 12 but embeds seat 11', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          if (o.id === 5001) o.seat_id = 12;
        }),
      ),
    ),
    kills: ['CONS-07'],
  },
  {
    ...onPath(
      'cons-order-seat-differs',
      "order 5002's embedded seat has another remark than /seats/12",
      ['/orders'],
      (r) =>
        withData(r, (d) =>
          eachRecord(d, (o) => {
            if (o.id === 5002) o.seat.remark = 'Stale copy';
          }),
        ),
    ),
    kills: ['CONS-08'],
  },
  {
    ...onPath('cons-pivot-order-id', 'pivot.order_id of every order line names the next order', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          for (const x of o.dishes) x.pivot.order_id = o.id + 1;
        }),
      ),
    ),
    kills: ['CONS-09'],
  },
  {
    ...onPath(
      'cons-embedded-dish-price',
      'order 5001 embeds dish 101 with another price than /dishes/101',
      ['/orders'],
      (r) =>
        withData(r, (d) =>
          eachRecord(d, (o) => {
            if (o.id === 5001) for (const x of o.dishes) if (x.id === 101) x.price = 40;
          }),
        ),
    ),
    kills: ['CONS-10'],
  },
  {
    // Was a conforming variant until issue 11: §4 says /dishes and /seats answer all the merchant's dishes and seats,
    // so a dish an order names must be listed, and a reference no endpoint knows resolves nowhere.
    name: 'unlisted-records-in-old-orders',
    description:
      'dish 103 and seat 12 were deleted: /dishes and /seats omit them, their details answer 404, old orders 5001 and 5002 still embed them',
    kills: ['CONS-12'],
    handle: (req, next, world) => {
      if (req.path === '/dishes/103' || req.path === '/seats/12') return world.render.error(404, 'Record not found');
      const r = next();
      if (req.path === '/dishes') return withData(r, (d) => d.filter((x: { id: number }) => x.id !== 103));
      if (req.path === '/seats') return withData(r, (d) => d.filter((x: { id: number }) => x.id !== 12));
      return r;
    },
  },
  // #35: the other merchant's order lines are judged like app's (caught with other_app's token only).
  {
    name: 'other-merchant-pivot-order-id',
    description: "merchant 2's order lines carry a pivot.order_id naming the next order (merchant 1's are right)",
    kills: ['CONS-09'],
    handle: (req, next) => {
      const r = next();
      return req.path === '/orders' && req.merchant?.id === 2
        ? withData(r, (d) =>
            eachRecord(d, (o) => {
              for (const x of o.dishes) x.pivot.order_id = o.id + 1;
            }),
          )
        : r;
    },
  },
];
