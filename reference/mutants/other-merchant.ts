import type { Mutant } from './types.js';
import { eachRecord, isSuccess, withData } from '../kit.js';
import { route, type ApiReply, type ApiRequest } from '../server.js';

/**
 * Merchant B's answers broken where only the second application reads them (#35: other_app's lists, details and
 * order lines are judged like app's): its details (dish 201, 202; seat 21), its lists and its order 6001. Merchant
 * A's answers stay right, so each is caught only by judging other_app's answers, by exactly its `kills`.
 */

/** The answer to merchant B's application at one of these paths, changed; every other answer as it was. */
const toB =
  (paths: string[], change: (r: ApiReply) => ApiReply) =>
  (req: ApiRequest, next: () => ApiReply): ApiReply => {
    const r = next();
    return req.merchant?.id === 2 && paths.includes(req.path) && isSuccess(r) ? change(r) : r;
  };

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Merchant B's lists, details and order lines broken where only other_app reads them (#35), each caught by its kills. */
export const otherMerchantMutants: Mutant[] = [
  {
    name: 'other-merchant-dish-detail-id-off',
    description: "GET /dishes/201 answers merchant B's dish 201 under id 1201",
    kills: ['CONS-01'],
    handle: toB(['/dishes/201'], (r) =>
      withData(r, (d) => {
        d.id = 1201;
      }),
    ),
  },
  {
    name: 'other-merchant-dish-detail-price-string',
    description: 'GET /dishes/202 answers merchant B\'s dish with its price as a string ("18")',
    kills: ['DISH-02'],
    handle: toB(['/dishes/202'], (r) =>
      withData(r, (d) => {
        d.price = String(d.price);
      }),
    ),
  },
  {
    name: 'other-merchant-seat-detail-no-status',
    description: "GET /seats/21 answers merchant B's seat without its status",
    kills: ['SEAT-02'],
    handle: toB(['/seats/21'], (r) =>
      withData(r, (d) => {
        delete d.status;
      }),
    ),
  },
  {
    name: 'other-merchant-dish-detail-name-differs',
    description: "GET /dishes/201 answers merchant B's dish under another name than GET /dishes lists",
    kills: ['CONS-02'],
    handle: toB(['/dishes/201'], (r) =>
      withData(r, (d) => {
        d.name = 'Lotus root salad (old)';
      }),
    ),
  },
  {
    name: 'other-merchant-seat-detail-remark-differs',
    description: "GET /seats/21 answers merchant B's seat with another remark than GET /seats lists",
    kills: ['CONS-03'],
    handle: toB(['/seats/21'], (r) =>
      withData(r, (d) => {
        d.remark = 'Garden';
      }),
    ),
  },
  {
    name: 'other-merchant-duplicate-seat',
    description: "GET /seats lists merchant B's seat 21 twice",
    kills: ['CONS-04'],
    handle: toB(['/seats'], (r) => withData(r, (d: unknown[]) => [...d, d[0]])),
  },
  {
    // Dish 202 is still answered by its detail and named by order 6001: the list is not complete (§4 "all dishes").
    name: 'other-merchant-dishes-list-lacks-202',
    description: "GET /dishes leaves merchant B's dish 202 out, which its order 6001 names and GET /dishes/202 answers",
    kills: ['CONS-12'],
    handle: toB(['/dishes'], (r) => withData(r, (d: Array<{ id: number }>) => d.filter((x) => x.id !== 202))),
  },
  {
    name: 'other-merchant-order-seat-id-zero',
    description: "merchant B's order 6001 says seat_id 0 (no seat) but embeds seat 21",
    kills: ['CONS-07'],
    handle: toB(['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          o.seat_id = 0;
        }),
      ),
    ),
  },
  {
    name: 'other-merchant-order-seat-differs',
    description: "merchant B's order 6001 embeds seat 21 with another remark than GET /seats lists",
    kills: ['CONS-08'],
    handle: toB(['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          o.seat.remark = 'Stale copy';
        }),
      ),
    ),
  },
  {
    name: 'other-merchant-embedded-dish-stock',
    description: "merchant B's order 6001 embeds dish 201 with another stock than GET /dishes lists",
    kills: ['CONS-10'],
    handle: toB(['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o) => {
          for (const x of o.dishes) if (x.id === 201) x.stock += 1;
        }),
      ),
    ),
  },
  {
    // Every copy alike (list, detail, order line), so no comparison of copies differs: only the owner is wrong.
    name: 'other-merchant-dish-third-user-id',
    description:
      "merchant B's dish 202 carries user_id 3 (no configured merchant's) in its list, its detail and order 6001",
    kills: ['CONS-05'],
    render: { dish: (d) => ({ ...d, ...(d.id === 202 ? { user_id: 3 } : {}) }) },
  },
  {
    name: 'other-merchant-seat-third-merchant-id',
    description:
      "merchant B's seat 21 carries merchant_id MCH20249999 (no configured merchant's) in its list, its detail and order 6001",
    kills: ['CONS-06'],
    render: { seat: (s) => ({ ...s, ...(s.id === 21 ? { merchant_id: 'MCH20249999' } : {}) }) },
  },
  {
    // Merchant A's dish 104: its detail and the order line that embeds it, not the list.
    name: 'dish-104-detail-and-lines-third-user-id',
    description: 'GET /dishes/104 and order 5002 carry dish 104 with user_id 3 (GET /dishes lists it with user_id 1)',
    kills: ['CONS-02', 'CONS-05', 'CONS-10'],
    handle: (req, next) => {
      const r = next();
      if (req.merchant?.id !== 1 || !isSuccess(r)) return r;
      if (req.path === '/dishes/104')
        return withData(r, (d) => {
          d.user_id = 3;
        });
      if (req.path === '/orders')
        return withData(r, (d) =>
          eachRecord(d, (o) => {
            for (const x of o.dishes) if (x.id === 104) x.user_id = 3;
          }),
        );
      return r;
    },
  },
  {
    name: 'seat-12-detail-and-order-third-merchant',
    description:
      'GET /seats/12 and order 5002 carry seat 12 with merchant_id MCH20249999 (GET /seats lists it with MCH20240001)',
    kills: ['CONS-03', 'CONS-06', 'CONS-08'],
    handle: (req, next) => {
      const r = next();
      if (req.merchant?.id !== 1 || !isSuccess(r)) return r;
      if (req.path === '/seats/12')
        return withData(r, (d) => {
          d.merchant_id = 'MCH20249999';
        });
      if (req.path === '/orders')
        return withData(r, (d) =>
          eachRecord(d, (o) => {
            if (o.seat?.id === 12) o.seat.merchant_id = 'MCH20249999';
          }),
        );
      return r;
    },
  },
  {
    name: 'other-merchant-seat-detail-bom',
    description: "GET /seats/21 answers merchant B's application a body with a byte order mark before its JSON",
    kills: ['ENV-01'],
    handle: toB(['/seats/21'], (r) => ({ ...r, raw: Buffer.concat([BOM, Buffer.from(JSON.stringify(r.body))]) })),
  },
  {
    name: 'other-merchant-dish-detail-text-html',
    description: "GET /dishes/201 answers merchant B's application with Content-Type text/html",
    kills: ['TRANS-01'],
    handle: toB(['/dishes/201'], (r) => ({
      ...r,
      headers: { ...r.headers, 'content-type': 'text/html; charset=utf-8' },
    })),
  },
  {
    // A member the spec does not list (no comparison reads it), sent in Latin-1 bytes.
    name: 'other-merchant-dish-detail-latin1',
    description: "GET /dishes/201 answers merchant B's application an extra member in Latin-1 bytes (not UTF-8)",
    kills: ['TRANS-02'],
    handle: toB(['/dishes/201'], (r) => {
      const text = JSON.stringify({
        ...(r.body as object),
        data: { ...(r.body as { data: object }).data, note: 'Café' },
      });
      const [head, tail] = text.split('Café') as [string, string];
      return { ...r, raw: Buffer.concat([Buffer.from(head), Buffer.from('Café', 'latin1'), Buffer.from(tail)]) };
    }),
  },
  {
    name: 'other-merchant-seat-detail-carries-key',
    description: "GET /seats/21 answers merchant B's seat with a remark holding merchant B's application secret key",
    kills: ['SEC-01'],
    handle: (req, next, world) => {
      const r = next();
      const key = world.fixtures.apps.find((a) => a.merchant === 2)?.key;
      return req.merchant?.id === 2 && req.path === '/seats/21' && isSuccess(r) && key
        ? withData(r, (d) => {
            d.secret_note = key;
          })
        : r;
    },
  },
  {
    // ISO-04's own: merchant 1's order 5003 in merchant 2's list with nothing the owner checks read (merchant_id
    // emptied, as §2.4 allows; no dishes), only a user_id member of merchant 1 (an order's user_id is no field of
    // §2.4, so no check of the field tables reads it; ISO-04 knows merchant 1's marks).
    name: 'iso-orders-list-leak-b-order-number',
    description:
      "with merchant 2's token, /orders also lists merchant 1's order 5003 (user_id 1), its merchant_id emptied and its dishes dropped",
    kills: ['ISO-04'],
    handle: (req, next, world) => {
      const r = next();
      if (req.merchant?.id !== 2 || req.path !== '/orders' || !isSuccess(r)) return r;
      const leaked = (world.ordersOf(1) as Array<Record<string, unknown>>)
        .filter((o) => o.id === 5003)
        .map((o) => ({ ...o, user_id: 1, merchant_id: '', dishes: [] }));
      return withData(r, (d: unknown[]) => [...d, ...leaked]);
    },
  },
  {
    // FUZZ-01 asks merchant B's own ids followed by letters with other_app's token (#35): parseInt for B alone.
    name: 'other-merchant-dish-ids-by-leading-digits',
    description:
      'for merchant 2\'s application only, /dishes/:id reads the id by its leading digits ("201abc" answers dish 201)',
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      const m = /^\/dishes\/([0-9]+)[^0-9]/.exec(req.path);
      return req.merchant?.id === 2 && m ? route({ ...req, path: `/dishes/${m[1]}` }, world) : next();
    },
  },
  {
    name: 'other-merchant-seat-zero-placeholder',
    description:
      "for merchant 2's application only, GET /seats/0 answers a placeholder seat {id: 0} that no list holds",
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      if (req.merchant?.id !== 2 || req.path !== '/seats/0') return next();
      const r = route({ ...req, path: '/seats/21' }, world);
      return withData(r, (d) => {
        d.id = 0;
      });
    },
  },
];
