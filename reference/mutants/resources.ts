import type { Mutant } from './types.js';
import { eachRecord, onPath, withData } from '../kit.js';
import { CREDENTIALS } from '../fixtures.js';

/** Records of the wrong shape (§2.2–§2.5), each caught by exactly its `kills`. */
export const resourceMutants: Mutant[] = [
  {
    // §2.4 "Device IP" fixes a syntax as "e-mail" does: one rule for both (#27).
    ...onPath('device-ip-out-of-range', '/orders answers a device ip of 192.168.10.335', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (o, i) => {
          if (i === 0) o.device.ip = '192.168.10.335';
        }),
      ),
    ),
    kills: ['ORD-01'],
  },
  {
    // The second merchant's answers are judged like the first's: not only used as isolation data (#27).
    ...onPath(
      'other-merchant-dishes-as-object',
      "/dishes answers the second merchant's first dish as one object instead of a list",
      ['/dishes'],
      (r, req) => (req.merchant?.id === 2 ? withData(r, (d: unknown[]) => d[0]) : r),
    ),
    kills: ['DISH-01'],
  },
  {
    ...onPath(
      'other-merchant-merchant-email-invalid',
      "/merchant (and /auth's merchant) answer the second merchant's e-mail without @",
      ['/merchant', '/auth'],
      (r, req) =>
        req.merchant?.id === 2 || req.query.get('secret') === CREDENTIALS.other_app.secret
          ? withData(r, (d) => {
              (d.merchant ?? d).email = 'owner.lotus.example';
            })
          : r,
    ),
    // AUTH-02 judges other_app's /auth, merchant included (#27), as it judges app's.
    kills: ['MER-01', 'AUTH-02'],
  },
  {
    ...onPath('merchant-email-invalid', '/merchant answers an e-mail without @', ['/merchant', '/auth'], (r) =>
      withData(r, (d) => {
        (d.merchant ?? d).email = 'owner.golden-dragon.example';
      }),
    ),
    kills: ['MER-01', 'AUTH-02'],
  },
  {
    // /auth's merchant stays right (AUTH-02), so only MER-01 judges the text; AUTH-04 has no record to compare.
    ...onPath(
      'merchant-double-encoded',
      '/merchant answers its record JSON-encoded twice (data is a string)',
      ['/merchant'],
      (r) => withData(r, (d) => JSON.stringify(d)),
    ),
    kills: ['MER-01'],
  },
  {
    // An array holding the record is not the record (§4 endpoint 2 answers one merchant); AUTH-04 has none to compare.
    ...onPath('merchant-as-array', '/merchant answers data as an array holding its record', ['/merchant'], (r) =>
      withData(r, (d) => [d]),
    ),
    kills: ['MER-01'],
  },
  {
    ...onPath('dish-price-string', '/dishes renders price as a string', ['/dishes'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (x) => {
          x.price = String(x.price);
        }),
      ),
    ),
    kills: ['DISH-01'],
  },
  {
    ...onPath(
      'dish-detail-time-iso',
      '/dishes/:id renders created_at as ISO 8601 instead of YYYY-MM-DD HH:MM',
      ['/dishes/:id'],
      (r) =>
        withData(r, (d) => {
          d.created_at = '2024-03-01T12:30:00.000000Z';
        }),
    ),
    kills: ['DISH-02'],
  },
  {
    ...onPath('seat-status-out-of-range', '/seats answers a seat status of 1', ['/seats'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (x, i) => {
          if (i === 0) x.status = 1;
        }),
      ),
    ),
    kills: ['SEAT-01'],
  },
  {
    ...onPath('seat-detail-id-string', '/seats/:id renders id as a string', ['/seats/:id'], (r) =>
      withData(r, (d) => {
        d.id = String(d.id);
      }),
    ),
    kills: ['SEAT-02'],
  },
  {
    ...onPath('device-no-uuid', "/orders devices lack the field table's uuid", ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (x) => {
          delete x.device.uuid;
        }),
      ),
    ),
    kills: ['ORD-01'],
  },
  {
    ...onPath('order-amount-float', '/orders renders amount with a fraction', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (x) => {
          x.amount += 0.5;
        }),
      ),
    ),
    kills: ['ORD-01'],
  },
  {
    ...onPath('device-field-table-only', '/orders devices carry only the field-table members', ['/orders'], (r) =>
      withData(r, (d) =>
        eachRecord(d, (x) => {
          const { id, uuid, name, ip, data } = x.device;
          x.device = { id, uuid, name, ip, data };
        }),
      ),
    ),
    kills: ['ORD-02'],
  },
];
