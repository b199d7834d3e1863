import { SPEC_FIELDS } from '../support/compare.js';
import {
  at,
  by,
  notApplicable,
  notProbed,
  probed,
  probedWhen,
  unproven,
  WHY,
  type App,
  type Latitude,
  type Outcome,
  type Place,
  type Proof,
  type Rule,
  type Way,
  type WaySpec,
} from './model.js';
import { AUTH, get, member } from './places.js';

/**
 * Every row of §2's field tables is a rule at MUST (a field table is normative): the field is there, of its type,
 * and where the spec's words fix a value or a syntax, of that value. The shape checks judge a field wherever it is
 * answered (a list, a detail, embedded in an order, /auth's merchant), for each application whose answers they read.
 */

/** Where a table's records are answered, and which check judges their shape there for each application. */
interface Carrier {
  place: Place;
  /** The shape check for each application (`how` it judges, when not by the table's schema), or why none does. */
  shape: Record<'app' | 'other_app', { check: string; how?: string } | { why: string }>;
}

/** A field's mutants: the way, the check that catches it, and for which application the mutant breaks it. */
interface FieldMutant {
  way: Way;
  check: string;
  mutants: string[];
  app?: App;
}

/** A row of a field table, and what the spec's words fix beyond its type. */
interface Field {
  name: string;
  type: string;
  /** Absent is allowed (the field appears in samples only): the reading, and the field table's words (§2.5) that say so. */
  optional?: Latitude & { quote: string };
  /** Who judges the field absent, when not the shape checks (the sample's device members: ORD-02). */
  absentAt?: WaySpec['at'];
  /** A syntax or value set the spec's words fix, judged by the shape checks' schema. */
  syntax?: string;
  /** Extra ways, with their own outcomes (a value only another answer can tell wrong). */
  ways?: WaySpec[];
  mutants?: FieldMutant[];
  latitude?: Latitude[];
  level?: 'MUST' | 'SHOULD';
}

/** A field table of §2. */
interface Table {
  group: string;
  prefix: string;
  carriers: Carrier[];
  fields: Field[];
  /** Which check compares the copies of a record (list, detail, embedded), when the table's records have copies. */
  copies?: { fields: readonly string[]; at: (field: string) => WaySpec['at'] };
}

/** The comparison of a record's copies: proven by the mutants that make this field differ, else said unproven. */
function copyProof(check: string, field: string, provenBy: Record<string, string[]>): Proof {
  const mutants = provenBy[field];
  if (mutants) return by(check, ...mutants);
  const [other, ms] = Object.entries(provenBy)[0]!;
  return unproven(
    check,
    `no mutant makes this field differ between copies (${ms.join(', ')} proves the comparison on ${other})`,
  );
}

const both = (check: string): Carrier['shape'] => ({ app: { check }, other_app: { check } });
const APPS: readonly App[] = ['app', 'other_app'];

/** The shape check's outcome for a field broken one way, at each carrier, for each application. */
function shapeOutcomes(t: Table, f: Field, way: Way, what: string): WaySpec['at'] {
  return t.carriers.flatMap((c) =>
    APPS.map((app) => {
      const s = c.shape[app as 'app' | 'other_app'];
      if ('why' in s) return at([c.place], [app], notProbed(s.why));
      const mutants = (f.mutants ?? [])
        .filter((m) => m.way === way && m.check === s.check && (m.app ?? 'app') === app)
        .flatMap((m) => m.mutants);
      const proof: Proof = mutants.length
        ? by(s.check, ...mutants)
        : unproven(
            s.check,
            `no mutant ${what} this field here; ${s.how ?? "the check's schema judges every field of the table alike"}`,
          );
      return at([c.place], [app], probed(proof));
    }),
  );
}

function fieldRule(t: Table, f: Field): Rule {
  const ways: WaySpec[] = [];
  ways.push(
    f.optional
      ? {
          way: 'absent',
          how: `${f.name} left out`,
          at: [
            at(
              undefined,
              undefined,
              notApplicable(
                '§2.5',
                f.optional.quote,
                `absent is allowed: ${f.optional.reading}, so the field table does not require every merchant to carry it, and a merchant without it breaks no rule (a present value is judged by its type)`,
              ),
            ),
          ],
        }
      : { way: 'absent', how: `${f.name} left out`, at: f.absentAt ?? shapeOutcomes(t, f, 'absent', 'leaves out') },
  );
  ways.push({ way: 'wrong type', how: `${f.name} not ${f.type}`, at: shapeOutcomes(t, f, 'wrong type', 'mistypes') });
  if (f.syntax)
    ways.push({ way: 'wrong value', how: f.syntax, at: shapeOutcomes(t, f, 'wrong value', 'breaks the syntax of') });
  ways.push(...(f.ways ?? []));
  if (t.copies?.fields.includes(f.name))
    ways.push({
      way: 'stale value',
      how: `one copy of the record has another ${f.name} than the others`,
      at: t.copies.at(f.name),
    });
  return {
    id: `${t.prefix}${f.name}`,
    group: t.group,
    text: f.type,
    level: f.level ?? 'MUST',
    places: t.carriers.map((c) => c.place),
    apps: APPS,
    appsNote: `disabled_app: ${WHY.noRecords}`,
    ways,
    latitude: [
      ...(f.optional ? [{ reading: f.optional.reading, variants: f.optional.variants }] : []),
      ...(f.latitude ?? []),
    ],
  };
}

const DISHES = get('/dishes');
const DISH = get('/dishes/:id');
const SEATS = get('/seats');
const SEAT = get('/seats/:id');
const ORDERS = get('/orders');
const EMBEDDED_DISH = member('/orders', 'dishes[]');
const EMBEDDED_SEAT = member('/orders', 'seat');
const MERCHANT = get('/merchant');
const AUTH_MERCHANT = member('/auth', 'merchant');

const MINUTE = 'not of the format YYYY-MM-DD HH:MM';
const ISO_UTC = 'not ISO 8601 UTC with fractional seconds';
const NUMERIC_STRING: Latitude = {
  reading: 'typed string in the field table, a number in the sample: either, and the same value in every copy',
  variants: ['numeric-strings', 'numbers-not-strings', 'mixed-number-renderings'],
};
const BIG_IDS: Latitude = { reading: 'ids past 2^53, written as exact digits', variants: ['snowflake-ids'] };

/** A value only another answer can tell wrong: probed by these checks where given, else not. */
function byReference(
  way: Way,
  how: string,
  ...args: [entries: Entries] | [places: readonly Place[], entries: Entries]
): WaySpec {
  const [places, entries] = args.length === 1 ? [undefined, args[0]] : args;
  return { way, how, ...(places ? { places } : {}), at: entries.map(([p, a, o]) => at(p, a, o)) };
}

type Entries = Array<[places: readonly Place[] | undefined, apps: readonly App[] | undefined, outcome: Outcome]>;

/**
 * The owner fields: the merchant's own id (user_id) or account (merchant_id), never another merchant's. The check
 * compares every copy the run reads (list, detail, order) with the application's own /merchant (#35), for app and
 * other_app; `mutants` prove it in app's lists, in app's details and orders, and in other_app's answers.
 */
function ownerWays(
  field: 'user_id' | 'merchant_id',
  lists: readonly Place[],
  consCheck: string,
  mutants: { lists: string[]; copies: string[]; other: string[] },
): WaySpec[] {
  return [
    byReference(
      'wrong value',
      `${field} not the merchant's (/merchant's ${field === 'user_id' ? 'id' : 'merchant_id'})`,
      [
        [lists, ['app'], probed(by(consCheck, ...mutants.lists))],
        [undefined, ['app'], probed(by(consCheck, ...mutants.copies))],
        [undefined, ['other_app'], probedWhen('with other_app', by(consCheck, ...mutants.other))],
      ],
    ),
    byReference("another application's or merchant's value", `the other configured merchant's ${field}`, [
      [
        undefined,
        ['app'],
        probedWhen(
          'with other_app',
          unproven('ISO-02', `no mutant puts merchant B's ${field} here alone (the iso-* mutants move whole records)`),
        ),
      ],
      [
        undefined,
        ['other_app'],
        probedWhen(
          'with other_app',
          unproven('ISO-04', `no mutant puts merchant A's ${field} into merchant B's answers`),
        ),
      ],
    ]),
  ];
}

const DISH_TABLE: Table = {
  group: '§2.2 dish',
  prefix: 'dish.',
  carriers: [
    { place: DISHES, shape: both('DISH-01') },
    { place: DISH, shape: both('DISH-02') },
    { place: EMBEDDED_DISH, shape: both('ORD-01') },
  ],
  copies: {
    fields: SPEC_FIELDS.dish,
    at: (field) => [
      at([DISHES, DISH], ['app'], probed(copyProof('CONS-02', field, { price: ['cons-dish-detail-differs'] }))),
      at([EMBEDDED_DISH], ['app'], probed(copyProof('CONS-10', field, { price: ['cons-embedded-dish-price'] }))),
      at(
        [DISHES, DISH],
        ['other_app'],
        probedWhen(
          'with other_app',
          copyProof('CONS-02', field, { name: ['other-merchant-dish-detail-name-differs'] }),
        ),
      ),
      at(
        [EMBEDDED_DISH],
        ['other_app'],
        probedWhen('with other_app', copyProof('CONS-10', field, { stock: ['other-merchant-embedded-dish-stock'] })),
      ),
    ],
  },
  fields: [
    {
      name: 'id',
      type: 'int',
      latitude: [BIG_IDS],
      mutants: [],
      ways: [
        byReference(
          'wrong value',
          'the detail answers another id than the one asked for',
          [DISH],
          [
            [
              [DISH],
              ['app'],
              probed(
                by('CONS-01', 'cons-detail-id-off', 'cons-dish-101-detail-id-off'),
                by('FUZZ-01', 'cons-detail-id-off'),
              ),
            ],
            [[DISH], ['other_app'], probedWhen('with other_app', by('CONS-01', 'other-merchant-dish-detail-id-off'))],
          ],
        ),
      ],
    },
    { name: 'name', type: 'string' },
    {
      name: 'price',
      type: 'float',
      mutants: [
        { way: 'wrong type', check: 'DISH-01', mutants: ['dish-price-string'] },
        { way: 'wrong type', check: 'DISH-02', mutants: ['other-merchant-dish-detail-price-string'], app: 'other_app' },
      ],
      latitude: [{ reading: 'rendered as an integer when it has no fraction', variants: ['numbers-not-strings'] }],
    },
    { name: 'stock', type: 'int' },
    { name: 'unit', type: 'string or null', latitude: [{ reading: 'null', variants: ['extra-fields-and-nulls'] }] },
    { name: 'category_id', type: 'int' },
    {
      name: 'user_id',
      type: 'int',
      ways: ownerWays('user_id', [DISHES], 'CONS-05', {
        lists: ['iso-dishes-list-leak-a'],
        copies: ['dish-104-detail-and-lines-third-user-id'],
        other: ['other-merchant-dish-third-user-id'],
      }),
    },
    {
      name: 'created_at',
      type: 'string',
      syntax: MINUTE,
      mutants: [{ way: 'wrong value', check: 'DISH-02', mutants: ['dish-detail-time-iso'] }],
    },
    { name: 'updated_at', type: 'string', syntax: MINUTE },
  ],
};

const PIVOT_TABLE: Table = {
  group: '§2.2 pivot (a dish in an order)',
  prefix: 'order.dishes[].pivot.',
  carriers: [{ place: member('/orders', 'dishes[].pivot'), shape: both('ORD-01') }],
  fields: [
    {
      name: 'order_id',
      type: 'int',
      ways: [
        byReference('wrong value', 'not the id of the order it is in', [
          [undefined, ['app'], probed(by('CONS-09', 'cons-pivot-order-id'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('CONS-09', 'other-merchant-pivot-order-id'))],
        ]),
      ],
    },
    {
      name: 'dish_id',
      type: 'int',
      ways: [
        byReference('wrong value', 'not the id of the dish it is in', [
          [undefined, ['app'], probed(by('CONS-09', 'cons-pivot-dish-id-swapped'))],
          [
            undefined,
            ['other_app'],
            probedWhen('with other_app', unproven('CONS-09', "no mutant breaks pivot.dish_id in other_app's orders")),
          ],
        ]),
      ],
    },
    { name: 'price', type: 'number (or a numeric string)', latitude: [NUMERIC_STRING] },
    { name: 'count', type: 'number (or a numeric string)', latitude: [NUMERIC_STRING] },
  ],
};

const SEAT_TABLE: Table = {
  group: '§2.3 seat (and §3 seat status)',
  prefix: 'seat.',
  carriers: [
    { place: SEATS, shape: both('SEAT-01') },
    { place: SEAT, shape: both('SEAT-02') },
    { place: EMBEDDED_SEAT, shape: both('ORD-01') },
  ],
  copies: {
    fields: SPEC_FIELDS.seat,
    at: (field) => [
      at([SEATS, SEAT], ['app'], probed(copyProof('CONS-03', field, { remark: ['cons-seat-detail-differs'] }))),
      at([EMBEDDED_SEAT], ['app'], probed(copyProof('CONS-08', field, { remark: ['cons-order-seat-differs'] }))),
      at(
        [SEATS, SEAT],
        ['other_app'],
        probedWhen(
          'with other_app',
          copyProof('CONS-03', field, { remark: ['other-merchant-seat-detail-remark-differs'] }),
        ),
      ),
      at(
        [EMBEDDED_SEAT],
        ['other_app'],
        probedWhen('with other_app', copyProof('CONS-08', field, { remark: ['other-merchant-order-seat-differs'] })),
      ),
    ],
  },
  fields: [
    {
      name: 'id',
      type: 'int',
      latitude: [BIG_IDS],
      mutants: [{ way: 'wrong type', check: 'SEAT-02', mutants: ['seat-detail-id-string'] }],
      ways: [
        byReference(
          'wrong value',
          'a detail or an order answers another seat than the one asked for or named',
          [SEAT, EMBEDDED_SEAT],
          [
            [
              [SEAT],
              ['app'],
              probed(
                unproven('CONS-01', 'no mutant answers a seat under another id (cons-detail-id-off moves dishes)'),
                unproven('FUZZ-01', 'no mutant answers a seat under another id'),
              ),
            ],
            [
              [SEAT],
              ['other_app'],
              probedWhen('with other_app', unproven('CONS-01', "no mutant answers other_app's seat under another id")),
            ],
            [[EMBEDDED_SEAT], ['app'], probed(by('CONS-07', 'cons-order-seat-id'))],
            [
              [EMBEDDED_SEAT],
              ['other_app'],
              probedWhen('with other_app', by('CONS-07', 'other-merchant-order-seat-id-zero')),
            ],
          ],
        ),
      ],
    },
    { name: 'table_number', type: 'string (or a number)', latitude: [NUMERIC_STRING] },
    { name: 'remark', type: 'string or null', latitude: [{ reading: 'null', variants: ['extra-fields-and-nulls'] }] },
    {
      name: 'status',
      type: 'string-typed code',
      syntax: 'not -1 or 0 (§3)',
      mutants: [
        { way: 'wrong value', check: 'SEAT-01', mutants: ['seat-status-out-of-range'] },
        { way: 'absent', check: 'SEAT-02', mutants: ['other-merchant-seat-detail-no-status'], app: 'other_app' },
      ],
      latitude: [NUMERIC_STRING],
    },
    {
      name: 'merchant_id',
      type: 'string',
      ways: ownerWays('merchant_id', [SEATS], 'CONS-06', {
        lists: ['cons-seat-merchant-id'],
        copies: ['seat-12-detail-and-order-third-merchant'],
        other: ['other-merchant-seat-third-merchant-id'],
      }),
    },
    {
      name: 'user_id',
      type: 'int',
      // cons-seat-user-id renders every seat, both merchants' and every copy, with user_id 999.
      ways: ownerWays('user_id', [SEATS], 'CONS-05', {
        lists: ['cons-seat-user-id'],
        copies: ['cons-seat-user-id'],
        other: ['cons-seat-user-id', 'iso-other-app-claims-merchant-1'],
      }),
    },
    { name: 'created_at', type: 'string', syntax: MINUTE },
    { name: 'updated_at', type: 'string', syntax: MINUTE },
  ],
};

const ORDER_TABLE: Table = {
  group: '§2.4 order',
  prefix: 'order.',
  carriers: [{ place: ORDERS, shape: both('ORD-01') }],
  fields: [
    { name: 'id', type: 'int', latitude: [BIG_IDS] },
    { name: 'order_number', type: 'string' },
    { name: 'remark', type: 'string or null' },
    { name: 'amount', type: 'int', mutants: [{ way: 'wrong type', check: 'ORD-01', mutants: ['order-amount-float'] }] },
    { name: 'status', type: 'int' },
    { name: 'waiter_id', type: 'int or null' },
    {
      name: 'order_table_number',
      type: 'int',
      ways: [
        byReference('wrong value', "not the table_number of the order's seat", [
          [
            undefined,
            undefined,
            notApplicable(
              '§2.4',
              '| order_table_number | int | Table number of the order |',
              'the table number of the order, recorded with it; no sentence ties it to the current table_number of its seat (§2.3), which may be renumbered after the order, so a difference breaks no rule: CONS-11 records it (INFO), and the conforming variant order-table-number-not-seat passes',
            ),
          ],
        ]),
      ],
      latitude: [{ reading: "another number than the seat's table_number", variants: ['order-table-number-not-seat'] }],
    },
    {
      name: 'merchant_id',
      type: 'string',
      latitude: [{ reading: 'an empty string', variants: [] }],
      ways: [
        byReference('wrong value', "neither empty nor the merchant's merchant_id", [
          [undefined, ['app'], probed(by('CONS-06', 'cons-order-merchant-id'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('CONS-06', 'iso-orders-list-leak-b'))],
        ]),
        byReference("another application's or merchant's value", "the other configured merchant's merchant_id", [
          [
            undefined,
            ['app'],
            probedWhen(
              'with other_app',
              unproven('ISO-02', "no mutant puts merchant B's merchant_id on an order alone"),
            ),
          ],
          [
            undefined,
            ['other_app'],
            probedWhen(
              'with other_app',
              unproven('ISO-04', "no mutant puts merchant A's merchant_id on an order alone"),
            ),
          ],
        ]),
      ],
    },
    {
      name: 'seat_id',
      type: 'int',
      ways: [
        byReference('wrong value', 'not the id of the embedded seat (0: no seat)', [
          [undefined, ['app'], probed(by('CONS-07', 'cons-order-seat-id', 'cons-order-seat-id-zero'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('CONS-07', 'other-merchant-order-seat-id-zero'))],
        ]),
        byReference('wrong value', 'a seat that GET /seats lacks', [
          [undefined, ['app'], probed(by('CONS-12', 'unlisted-records-in-old-orders'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('CONS-12', 'iso-orders-list-leak-b'))],
        ]),
      ],
    },
    { name: 'created_at', type: 'string', syntax: MINUTE },
    { name: 'updated_at', type: 'string', syntax: MINUTE },
    { name: 'device', type: 'object' },
    { name: 'seat', type: 'object (null when seat_id is 0)' },
    {
      name: 'dishes',
      type: 'dish[]',
      ways: [
        byReference('wrong value', 'a dish that GET /dishes lacks', [
          [undefined, ['app'], probed(by('CONS-12', 'unlisted-records-in-old-orders'))],
          [
            undefined,
            ['other_app'],
            probedWhen(
              'with other_app',
              by('CONS-12', 'other-merchant-dishes-list-lacks-202', 'iso-orders-list-leak-b'),
            ),
          ],
        ]),
      ],
    },
  ],
};

const DEVICE_TABLE: Table = {
  group: '§2.4 device (field table, MUST; sample members, SHOULD)',
  prefix: 'order.device.',
  carriers: [{ place: member('/orders', 'device'), shape: both('ORD-01') }],
  fields: [
    { name: 'id', type: 'int' },
    {
      name: 'uuid',
      type: 'string',
      mutants: [{ way: 'absent', check: 'ORD-01', mutants: ['device-no-uuid'] }],
      latitude: [{ reading: 'any string: a "device identification code" fixes no syntax', variants: [] }],
    },
    { name: 'name', type: 'string' },
    {
      name: 'ip',
      type: 'string',
      syntax: 'not an IP address (IPv4 dotted decimal or IPv6 text)',
      mutants: [{ way: 'wrong value', check: 'ORD-01', mutants: ['device-ip-out-of-range'] }],
      latitude: [{ reading: 'IPv6, and IPv4-mapped IPv6', variants: ['device-ipv6'] }],
    },
    { name: 'data', type: 'string' },
  ],
};

/** The sample's device members: absent is ORD-02's (SHOULD); present, their type is the schema's (ORD-01, MUST). */
const DEVICE_SAMPLE: Table = {
  group: '§2.4 device (field table, MUST; sample members, SHOULD)',
  prefix: 'order.device.',
  carriers: DEVICE_TABLE.carriers,
  fields: ['device_id', 'remark', 'status', 'created_at', 'updated_at', 'seat_id', 'version_name'].map(
    (name): Field => ({
      name,
      type:
        { device_id: 'int', remark: 'string', status: 'int', seat_id: 'int', version_name: 'string or null' }[name] ??
        'string',
      level: 'SHOULD',
      ...(name.endsWith('_at')
        ? {
            syntax: ISO_UTC,
            latitude: [{ reading: 'a comma as the fraction separator', variants: ['idn-email-and-utc-spellings'] }],
          }
        : {}),
      // Present, a member's type is the schema's at MUST (ORD-01); absent, a builder should still emit it (ORD-02).
      absentAt: [at(undefined, undefined, probed(by('ORD-02', 'device-field-table-only')))],
    }),
  ),
};

const MERCHANT_TABLE: Table = {
  group: '§2.5 merchant',
  prefix: 'merchant.',
  carriers: [
    { place: MERCHANT, shape: both('MER-01') },
    {
      place: AUTH_MERCHANT,
      shape: both('AUTH-02'),
    },
  ],
  copies: {
    fields: ['id', 'name', 'email', 'phone', 'merchant_id', 'email_verified_at', 'created_at', 'updated_at'],
    at: (field) => [
      at(undefined, ['app'], probed(copyProof('AUTH-04', field, { name: ['auth-merchant-differs'] }))),
      at(
        undefined,
        ['other_app'],
        probed(
          copyProof('AUTH-04', field, {
            id: ['auth-other-app-merchant-differs'],
            merchant_id: ['auth-other-app-merchant-differs'],
            name: ['auth-other-app-merchant-differs'],
          }),
        ),
      ),
    ],
  },
  fields: [
    { name: 'id', type: 'int' },
    { name: 'name', type: 'string' },
    {
      name: 'email',
      type: 'string',
      syntax: 'not an e-mail address (local@domain)',
      mutants: [
        { way: 'wrong value', check: 'MER-01', mutants: ['merchant-email-invalid'] },
        { way: 'wrong value', check: 'AUTH-02', mutants: ['merchant-email-invalid'] },
        { way: 'wrong value', check: 'MER-01', mutants: ['other-merchant-merchant-email-invalid'], app: 'other_app' },
        { way: 'wrong value', check: 'AUTH-02', mutants: ['other-merchant-merchant-email-invalid'], app: 'other_app' },
      ],
      latitude: [{ reading: 'an internationalized address (RFC 6531)', variants: ['idn-email-and-utc-spellings'] }],
    },
    {
      name: 'phone',
      type: 'string or null',
      optional: {
        reading: 'it appears in samples only',
        variants: ['extra-fields-and-nulls'],
        quote: 'Merchant phone. It appears in samples only, as null.',
      },
    },
    { name: 'merchant_id', type: 'string' },
    {
      name: 'email_verified_at',
      type: 'string or null',
      optional: {
        reading: 'it appears in samples only',
        variants: ['extra-fields-and-nulls'],
        quote: 'Appears in samples only; null when not verified',
      },
    },
    {
      name: 'created_at',
      type: 'string',
      syntax: ISO_UTC,
      latitude: [
        { reading: 'any number of fraction digits, the +00:00 offset', variants: ['idn-email-and-utc-spellings'] },
      ],
    },
    { name: 'updated_at', type: 'string', syntax: ISO_UTC },
  ],
};

const AUTH_TABLE: Table = {
  group: '§2.6 access credential result',
  prefix: 'auth.',
  carriers: [
    {
      place: AUTH,
      shape: both('AUTH-02'),
    },
  ],
  fields: [
    {
      name: 'app_name',
      type: 'string',
      mutants: [
        { way: 'wrong type', check: 'AUTH-02', mutants: ['auth-app-name-number'] },
        { way: 'wrong type', check: 'AUTH-02', mutants: ['auth-other-app-name-number'], app: 'other_app' },
      ],
    },
    {
      name: 'app_secret',
      type: 'string',
      ways: [
        byReference('wrong value', 'not the public key sent as secret (e.g. the pair swapped)', [
          [undefined, ['app'], probed(by('AUTH-03', 'auth-swapped-keys', 'auth-app-secret-echo-wrong'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('AUTH-03', 'auth-other-app-swapped-keys'))],
        ]),
      ],
    },
    {
      name: 'app_key',
      type: 'string',
      ways: [
        byReference('wrong value', 'not the secret key sent as key (e.g. the pair swapped)', [
          [undefined, ['app'], probed(by('AUTH-03', 'auth-swapped-keys', 'auth-app-key-echo-wrong'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('AUTH-03', 'auth-other-app-swapped-keys'))],
        ]),
      ],
    },
    {
      name: 'app_token',
      type: 'string',
      mutants: [{ way: 'absent', check: 'AUTH-02', mutants: ['auth-no-token'] }],
      ways: [
        byReference('wrong value', 'a token that does not open the data endpoints', [
          [undefined, ['app'], probed(by('AUTH-05', 'seats-rejects-token'))],
          [undefined, ['other_app'], probedWhen('with other_app', by('AUTH-05', 'other-app-token-refused-at-seat'))],
        ]),
        byReference(
          'whitespace or encoding',
          'a character no header value may carry (RFC 9110 §5.5), so no request can send it back',
          [
            [undefined, ['app'], probed(by('AUTH-01', 'auth-token-control-char'))],
            [undefined, ['other_app'], probedWhen('with other_app', by('AUTH-02', 'other-app-token-control-char'))],
          ],
        ),
      ],
    },
    { name: 'merchant', type: 'object (§2.5)' },
  ],
};

/** Every field-table row of §2 as a rule. */
export const FIELD_RULES: Rule[] = [
  DISH_TABLE,
  PIVOT_TABLE,
  SEAT_TABLE,
  ORDER_TABLE,
  DEVICE_TABLE,
  DEVICE_SAMPLE,
  MERCHANT_TABLE,
  AUTH_TABLE,
].flatMap((t) => t.fields.map((f) => fieldRule(t, f)));
