/**
 * Deterministic data of the reference server: two merchants with an application each, a disabled application
 * holding a token issued before it was disabled, dishes, seats and orders. The `size` option adds generated
 * records to merchant 1 for the benchmark (a large merchant).
 */
export interface Merchant {
  id: number;
  name: string;
  email: string;
  phone: string | null;
  merchant_id: string;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}
/** An application of the fixtures: its key pair, its merchant, and whether the merchant disabled it. */
export interface App {
  name: string;
  secret: string;
  key: string;
  merchant: number;
  disabled: boolean;
  tokens: string[];
}
/** A dish as the reference server stores it (§2.2); renderers turn it into what the server answers. */
export interface Dish {
  id: number;
  name: string;
  price: number;
  stock: number;
  unit: string | null;
  category_id: number;
  user_id: number;
  created_at: string;
  updated_at: string;
}
/** A seat as the reference server stores it (§2.3). */
export interface Seat {
  id: number;
  table_number: string;
  remark: string | null;
  status: 0 | -1;
  merchant_id: string;
  user_id: number;
  created_at: string;
  updated_at: string;
}
/** The device an order was placed from (§2.4), with the members of both of the spec's lists. */
export interface Device {
  id: number;
  uuid: string;
  name: string;
  ip: string;
  data: string;
  device_id: number;
  remark: string;
  status: number;
  created_at: string;
  updated_at: string;
  seat_id: number;
  version_name: string | null;
}
/** One dish of an order, with the price and count its pivot carries (§2.2 pivot). */
export interface OrderLine {
  dish_id: number;
  price: number;
  count: number;
}
/** An order as the reference server stores it (§2.4); its dishes and seat are embedded when rendered. */
export interface Order {
  id: number;
  order_number: string;
  remark: string | null;
  amount: number;
  status: number;
  waiter_id: number | null;
  order_table_number: number;
  merchant_id: string;
  seat_id: number;
  created_at: string;
  updated_at: string;
  device: Device;
  user_id: number;
  lines: OrderLine[];
}
/** The whole data set a reference server answers from; variants may rewrite it before the server starts. */
export interface Fixtures {
  merchants: Merchant[];
  apps: App[];
  dishes: Dish[];
  seats: Seat[];
  orders: Order[];
}

/** How many records a generated merchant has (`--size large`, the bench's sizes). */
export interface Size {
  dishes: number;
  seats: number;
  orders: number;
  dishesPerOrder: number;
}
/** The bench's and the sandbox's large merchant: a 65 MB /orders body. */
export const LARGE: Size = { dishes: 20_000, seats: 2_000, orders: 50_000, dishesPerOrder: 3 };
/** Ten times LARGE: a /orders body of about 650 MB, past V8's longest string, so the server streams its lists. */
export const XLARGE: Size = { dishes: 200_000, seats: 20_000, orders: 500_000, dishesPerOrder: 3 };

/** The fixture's public test credentials: not secrets anywhere but here. */
export const CREDENTIALS = {
  app: { secret: 'pk_test_golden_dragon_7Qx2', key: 'sk_test_golden_dragon_Vb81mZ' },
  other_app: { secret: 'pk_test_blue_lotus_K3p9', key: 'sk_test_blue_lotus_Wq55rT' },
  disabled_app: {
    secret: 'pk_test_golden_dragon_old_T4',
    key: 'sk_test_golden_dragon_old_Hh20',
    token: 'tok_issued_before_disable_9f8e7d6c5b4a',
  },
} as const;

const iso = (d: string): string => `${d}.000000Z`;

/** The small data set every test and the sandbox start from: two merchants, their applications, a disabled one. */
export function baseFixtures(): Fixtures {
  const merchants: Merchant[] = [
    {
      id: 1,
      name: 'Golden Dragon 金龙酒家',
      email: 'owner@golden-dragon.example',
      phone: null,
      merchant_id: 'MCH20240001',
      email_verified_at: null,
      created_at: iso('2024-01-05T08:00:00'),
      updated_at: iso('2024-03-01T09:30:15'),
    },
    {
      id: 2,
      name: 'Blue Lotus Café',
      email: 'hello@blue-lotus.example',
      phone: null,
      merchant_id: 'MCH20240002',
      email_verified_at: iso('2024-02-01T10:00:00'),
      created_at: iso('2024-02-01T09:00:00'),
      updated_at: iso('2024-02-10T11:11:11'),
    },
  ];
  const apps: App[] = [
    { name: 'POS Connector', ...CREDENTIALS.app, merchant: 1, disabled: false, tokens: [] },
    { name: 'Lotus Reports', ...CREDENTIALS.other_app, merchant: 2, disabled: false, tokens: [] },
    {
      name: 'Old Kiosk',
      secret: CREDENTIALS.disabled_app.secret,
      key: CREDENTIALS.disabled_app.key,
      merchant: 1,
      disabled: true,
      tokens: [CREDENTIALS.disabled_app.token],
    },
  ];
  const dish = (
    id: number,
    user: number,
    name: string,
    price: number,
    unit: string | null,
    category: number,
    stock = 20,
  ): Dish => ({
    id,
    name,
    price,
    stock,
    unit,
    category_id: category,
    user_id: user,
    created_at: '2024-03-01 12:30',
    updated_at: '2024-03-02 18:05',
  });
  const dishes: Dish[] = [
    dish(101, 1, '麻婆豆腐 Mapo Tofu', 38.5, 'plate', 1),
    dish(102, 1, 'Crème brûlée', 30, 'piece', 2),
    dish(103, 1, 'Jasmine tea 茉莉花茶', 12.8, null, 3, 200),
    dish(104, 1, 'Peking duck (half)', 98, 'half', 1, 5),
    dish(201, 2, 'Lotus root salad', 22.5, 'bowl', 7),
    dish(202, 2, 'Café au lait', 18, null, 8),
  ];
  const seat = (id: number, user: number, mid: string, table: string, status: 0 | -1, remark: string | null): Seat => ({
    id,
    table_number: table,
    remark,
    status,
    merchant_id: mid,
    user_id: user,
    created_at: '2024-01-10 09:00',
    updated_at: '2024-01-10 09:00',
  });
  const seats: Seat[] = [
    seat(11, 1, 'MCH20240001', '1', 0, 'Window, 4 seats'),
    seat(12, 1, 'MCH20240001', '2', 0, null),
    seat(13, 1, 'MCH20240001', '8', -1, '维修中 under repair'),
    seat(21, 2, 'MCH20240002', '5', 0, 'Terrace'),
  ];
  const device = (id: number, seatId: number): Device => ({
    id,
    uuid: `a3f1c2d4-0000-4000-8000-${String(id).padStart(12, '0')}`,
    name: `Tablet ${id}`,
    ip: `10.0.0.${id}`,
    data: 'Android 14; app 3.2.1',
    device_id: 9000 + id,
    remark: '',
    status: 1,
    created_at: iso('2024-01-10T09:00:00'),
    updated_at: iso('2024-03-01T12:00:00'),
    seat_id: seatId,
    version_name: id % 2 ? '3.2.1' : null,
  });
  const order = (
    id: number,
    user: number,
    mid: string,
    seatId: number,
    table: number,
    lines: OrderLine[],
    extra: Partial<Order> = {},
  ): Order => ({
    id,
    order_number: `ON${20240301000 + id}`,
    remark: null,
    amount: Math.round(lines.reduce((s, l) => s + l.price * l.count, 0)),
    status: 1,
    waiter_id: 7,
    order_table_number: table,
    merchant_id: mid,
    seat_id: seatId,
    created_at: '2024-03-01 19:02',
    updated_at: '2024-03-01 19:45',
    device: device((id % 5) + 1, seatId),
    user_id: user,
    lines,
    ...extra,
  });
  const orders: Order[] = [
    order(
      5001,
      1,
      'MCH20240001',
      11,
      1,
      [
        { dish_id: 101, price: 38.5, count: 2 },
        { dish_id: 103, price: 12.8, count: 1 },
      ],
      { remark: '少辣 less spicy' },
    ),
    order(5002, 1, '', 12, 2, [{ dish_id: 104, price: 98, count: 1 }], { waiter_id: null, status: 2 }),
    order(5003, 1, 'MCH20240001', 0, 0, [{ dish_id: 102, price: 30, count: 3 }]),
    order(6001, 2, 'MCH20240002', 21, 5, [
      { dish_id: 201, price: 22.5, count: 1 },
      { dish_id: 202, price: 18, count: 2 },
    ]),
  ];
  return { merchants, apps, dishes, seats, orders };
}

/** A seeded generator, so every size is the same data on every machine. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Adds generated records to merchant 1 until it has the given size. */
export function grow(f: Fixtures, size: Size): Fixtures {
  const rnd = lcg(42);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const minute = (i: number): string => `2024-${pad(1 + (i % 12))}-${pad(1 + (i % 28))} ${pad(i % 24)}:${pad(i % 60)}`;
  const m1 = f.merchants[0]!;
  const mine = (xs: Array<{ user_id: number }>): number => xs.filter((x) => x.user_id === 1).length;
  for (let i = mine(f.dishes); i < size.dishes; i++) {
    const id = 100_000 + i;
    f.dishes.push({
      id,
      name: `Dish ${i} 菜`,
      price: Math.round(rnd() * 10000) / 100,
      stock: Math.floor(rnd() * 500),
      unit: i % 7 ? 'plate' : null,
      category_id: 1 + (i % 40),
      user_id: 1,
      created_at: minute(i),
      updated_at: minute(i + 1),
    });
  }
  for (let i = mine(f.seats); i < size.seats; i++) {
    f.seats.push({
      id: 100_000 + i,
      table_number: String(100 + i),
      remark: i % 3 ? null : `Seat ${i}`,
      status: i % 11 ? 0 : -1,
      merchant_id: m1.merchant_id,
      user_id: 1,
      created_at: minute(i),
      updated_at: minute(i),
    });
  }
  const myDishes = f.dishes.filter((d) => d.user_id === 1);
  const mySeats = f.seats.filter((s) => s.user_id === 1);
  const template = f.orders.find((o) => o.user_id === 1)!;
  for (let i = mine(f.orders); i < size.orders; i++) {
    const seat = mySeats[i % mySeats.length]!;
    const lines: OrderLine[] = [];
    for (let k = 0; k < size.dishesPerOrder; k++) {
      const d = myDishes[(i * size.dishesPerOrder + k) % myDishes.length]!;
      lines.push({ dish_id: d.id, price: d.price, count: 1 + (k % 3) });
    }
    f.orders.push({
      ...template,
      id: 1_000_000 + i,
      order_number: `ON${9_000_000 + i}`,
      remark: i % 5 ? null : 'Generated',
      status: i % 4,
      amount: Math.round(lines.reduce((s, l) => s + l.price * l.count, 0)),
      order_table_number: Number(seat.table_number),
      seat_id: seat.id,
      created_at: minute(i),
      updated_at: minute(i + 2),
      device: { ...template.device, seat_id: seat.id },
      lines,
    });
  }
  return f;
}

/** The three fixture applications as CONFORMANCE_* environment variables (how the README says to pass secrets). */
export const FIXTURE_ENV: Record<string, string> = {
  CONFORMANCE_SECRET: CREDENTIALS.app.secret,
  CONFORMANCE_KEY: CREDENTIALS.app.key,
  CONFORMANCE_OTHER_SECRET: CREDENTIALS.other_app.secret,
  CONFORMANCE_OTHER_KEY: CREDENTIALS.other_app.key,
  CONFORMANCE_DISABLED_SECRET: CREDENTIALS.disabled_app.secret,
  CONFORMANCE_DISABLED_KEY: CREDENTIALS.disabled_app.key,
  CONFORMANCE_DISABLED_TOKEN: CREDENTIALS.disabled_app.token,
};
