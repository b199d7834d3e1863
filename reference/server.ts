import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { AUTH_SCHEME } from '../core/spec/auth-scheme.js';
import { testTls } from './tls.js';
import {
  baseFixtures,
  grow,
  type App,
  type Dish,
  type Fixtures,
  type Merchant,
  type Order,
  type Seat,
  type Size,
} from './fixtures.js';

/** A request as the API sees it, after the base path is stripped. */
export interface ApiRequest {
  method: string;
  /** Path below the base path, e.g. /dishes/101 (still percent-encoded). */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** The application the request's token (as the auth scheme carries it) belongs to, when it is valid and enabled. */
  app?: App;
  merchant?: Merchant;
  /** The request body as text, read only for a variant that says it reads one (Variant.readsBody). */
  body?: string;
}

/** The server's answer before serialization: HTTP status, extra headers and a JSON body (or raw text). */
export interface ApiReply {
  http: number;
  body: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** How records are turned into JSON; variants override single renderers to use the spec's latitude or break it. */
export interface Renderers {
  merchant(m: Merchant): Record<string, unknown>;
  dish(d: Dish): Record<string, unknown>;
  seat(s: Seat): Record<string, unknown>;
  order(o: Order, world: World): Record<string, unknown>;
  error(code: number, msg: string): { http: number; body: Record<string, unknown> };
}

/**
 * A variant of the reference server: a mutant that breaks one rule, a conforming variant that uses the spec's
 * latitude, or a hostile server. Each hook is optional.
 */
export interface Variant {
  name: string;
  description: string;
  fixtures?(f: Fixtures): void;
  render?: Partial<Renderers>;
  /** Wraps routing: call next() for the conforming answer and change it, or answer alone. Clone before changing data. */
  handle?(req: ApiRequest, next: () => ApiReply, world: World): ApiReply;
  /** Takes over the raw HTTP exchange (hostile servers); return true when it answered. */
  raw?(req: IncomingMessage, res: ServerResponse, world: World): boolean;
  /** Serve plain HTTP and HTTPS on the same port (a transport mutant; see ServerOptions.plainAndTls). */
  plainAndTls?: boolean;
  /**
   * The variant reads request bodies (ApiRequest.body, at most READ_BODY_BYTES): the server waits for the body
   * before it answers. The conforming server reads none (§4: "The request has no body.").
   */
  readsBody?: boolean;
  /** Milliseconds to hold the answer back (the sandbox's latency fault); the answers of all variants wait the sum. */
  delayMs?(req: ApiRequest): number;
}

/** How to start a reference server: where, over what, at which size, with which variants. */
export interface ServerOptions {
  port?: number;
  host?: string;
  https?: boolean;
  basePath?: string;
  size?: Size;
  variants?: Variant[];
  /** With https: another key and certificate (PEM) than the test CA's (reference/tls.ts), e.g. the self-signed pair. */
  tls?: { key: string; cert: string };
  /** With https: also answer plain HTTP on the same port (the first byte tells a TLS handshake from HTTP). */
  plainAndTls?: boolean;
  /** Lists of more records than this are streamed (StreamedList); default STREAM_RECORDS. */
  streamRecords?: number;
}

/** A started reference server: its addresses, its data and how to stop it. */
export interface RunningServer {
  url: string;
  baseUrl: string;
  /**
   * With https: the PEM file of the test CA that signed the server's certificate (reference/tls.ts), what a client
   * trusts. A plain-HTTP server makes no TLS material (about 0.3 s once per process).
   */
  caFile?: string;
  world: World;
  server: Server;
  close(): Promise<void>;
}

const isNumericId = (s: string): boolean => /^[0-9]+$/.test(s) && s.length < 16;

/** How the conforming server renders each kind of record; mutants and variants replace one renderer. */
export const conformingRenderers: Renderers = {
  merchant: (m) => ({ ...m }),
  dish: (d) => ({ ...d }),
  seat: (s) => ({ ...s }),
  order(o, world) {
    const seat = world.seats.get(o.seat_id);
    const { lines, user_id: _user, ...fields } = o;
    return {
      ...fields,
      device: { ...o.device },
      seat: seat ? world.render.seat(seat) : null,
      dishes: lines.map((l) => ({
        ...world.render.dish(world.dishes.get(l.dish_id)!),
        pivot: { order_id: o.id, dish_id: l.dish_id, price: l.price, count: l.count },
      })),
    };
  },
  error: (code, msg) => ({ http: code, body: { status: 'ERROR', code, msg } }),
};

/**
 * Lists of more records than this are served streamed by default: ten times the large merchant lists 500,000 orders,
 * whose JSON (650 MB) is longer than V8's longest string (about 512 MiB) and whose rendered objects would take
 * gigabytes. The large merchant (50,000 orders at most) stays under it and is served as before.
 */
export const STREAM_RECORDS = 100_000;

/**
 * A list served in chunks (see send): its records are rendered and serialized a batch at a time, so neither its
 * JSON text nor all its rendered objects exist at once. The bytes on the wire are JSON.stringify's of the rendered
 * array. A variant cannot rewrite such a list: serializing it any other way throws, saying so.
 */
export class StreamedList {
  constructor(
    readonly length: number,
    /** The i-th record as rendered (a new object each call). */
    readonly renderAt: (i: number) => unknown,
  ) {}
  toJSON(): never {
    throw new Error(`a list of ${this.length} records is served streamed (StreamedList) and has no JSON text`);
  }
}

type ListKind = 'dishes' | 'seats' | 'orders';

/** The data, indexed, and the rendered lists cached per merchant (large merchants render once). */
export class World {
  readonly merchants = new Map<number, Merchant>();
  readonly dishes = new Map<number, Dish>();
  readonly seats = new Map<number, Seat>();
  readonly tokens = new Map<string, App>();
  readonly render: Renderers;
  private readonly cache = new Map<string, unknown>();

  constructor(
    readonly fixtures: Fixtures,
    variants: Variant[],
    /** Lists of more records than this are served streamed (StreamedList). */
    private readonly streamRecords = STREAM_RECORDS,
  ) {
    const render = { ...conformingRenderers };
    for (const v of variants) Object.assign(render, v.render ?? {});
    this.render = render;
    for (const m of fixtures.merchants) this.merchants.set(m.id, m);
    for (const d of fixtures.dishes) this.dishes.set(d.id, d);
    for (const s of fixtures.seats) this.seats.set(s.id, s);
    for (const a of fixtures.apps) for (const t of a.tokens) this.tokens.set(t, a);
  }

  issueToken(app: App): string {
    const t = `tok_${randomBytes(18).toString('base64url')}`;
    this.tokens.set(t, app);
    return t;
  }

  cached<T>(key: string, make: () => T): T {
    if (!this.cache.has(key)) {
      const v = make();
      if (typeof v === 'object' && v !== null) stable.add(v);
      this.cache.set(key, v);
    }
    return this.cache.get(key) as T;
  }

  dishesOf(user: number): Array<Record<string, unknown>> {
    return this.cached(`dishes:${user}`, () =>
      this.fixtures.dishes.filter((d) => d.user_id === user).map((d) => this.render.dish(d)),
    );
  }
  seatsOf(user: number): Array<Record<string, unknown>> {
    return this.cached(`seats:${user}`, () =>
      this.fixtures.seats.filter((s) => s.user_id === user).map((s) => this.render.seat(s)),
    );
  }
  ordersOf(user: number): Array<Record<string, unknown>> {
    return this.cached(`orders:${user}`, () =>
      this.fixtures.orders.filter((o) => o.user_id === user).map((o) => this.render.order(o, this)),
    );
  }

  /** A merchant's list as GET /dishes, /seats or /orders answers it: rendered and cached, or streamed when long. */
  listOf(kind: ListKind, user: number): Array<Record<string, unknown>> | StreamedList {
    const streamed = this.cached(`streamed:${kind}:${user}`, () => {
      const mine = (this.fixtures[kind] as Array<Dish | Seat | Order>).filter((x) => x.user_id === user);
      if (mine.length <= this.streamRecords) return null;
      const render = this.render;
      const at: Record<ListKind, (i: number) => unknown> = {
        dishes: (i) => render.dish(mine[i] as Dish),
        seats: (i) => render.seat(mine[i] as Seat),
        orders: (i) => render.order(mine[i] as Order, this),
      };
      return new StreamedList(mine.length, at[kind]);
    });
    if (streamed) return streamed;
    return kind === 'dishes' ? this.dishesOf(user) : kind === 'seats' ? this.seatsOf(user) : this.ordersOf(user);
  }
}

/** A success envelope with HTTP 200 (§2.1). */
export const ok = (data: unknown): ApiReply => ({ http: 200, body: { status: 'SUCCESS', code: 200, data } });

/** The conforming behaviour of §4, §5 and §7. */
export function route(req: ApiRequest, world: World): ApiReply {
  const err = (code: number, msg: string): ApiReply => world.render.error(code, msg);
  if (req.method !== 'GET' && req.method !== 'HEAD') return err(404, 'Interface error: only GET interfaces exist');
  const { obtain } = AUTH_SCHEME;
  if (req.path === obtain.path) {
    const secret = req.query.get(obtain.query.publicKey);
    const key = req.query.get(obtain.query.secretKey);
    if (!secret || !key) return err(400, 'Parameter error: secret and key are required');
    const app = world.fixtures.apps.find((a) => a.secret === secret);
    if (!app || app.key !== key) return err(401, 'Application authentication error');
    if (app.disabled) return err(401, 'The merchant has disabled the application');
    const merchant = world.merchants.get(app.merchant)!;
    return ok({
      app_name: app.name,
      app_secret: app.secret,
      app_key: app.key,
      [obtain.tokenField]: world.issueToken(app),
      [obtain.merchantField]: world.render.merchant(merchant),
    });
  }
  const seg = req.path.split('/').filter(Boolean);
  const known = ['merchant', 'dishes', 'seats', 'orders'];
  const shapeOk =
    seg.length >= 1 &&
    known.includes(seg[0]!) &&
    (seg.length === 1 || (seg.length === 2 && (seg[0] === 'dishes' || seg[0] === 'seats')));
  if (!shapeOk) return err(404, 'Interface error: unknown interface');
  if (!req.app || !req.merchant) return err(401, 'Application not authenticated');
  const user = req.merchant.id;
  if (seg.length === 1) {
    switch (seg[0]) {
      case 'merchant':
        return ok(world.render.merchant(req.merchant));
      case 'dishes':
        return ok(world.listOf('dishes', user));
      case 'seats':
        return ok(world.listOf('seats', user));
      default:
        return ok(world.listOf('orders', user));
    }
  }
  const raw = decodedSegment(seg[1]!);
  // A bad percent-escape (%ff%fe is no UTF-8) is the request's fault, not the server's: 400, never 500.
  if (raw === undefined) return err(400, 'Parameter error: the path holds a malformed percent-escape');
  if (!isNumericId(raw)) return err(404, 'Record not found');
  const id = Number(raw);
  if (seg[0] === 'dishes') {
    const d = world.dishes.get(id);
    return d && d.user_id === user ? ok(world.render.dish(d)) : err(404, 'Record not found');
  }
  const s = world.seats.get(id);
  return s && s.user_id === user ? ok(world.render.seat(s)) : err(404, 'Record not found');
}

/** A path segment with its percent-escapes decoded, or undefined when they do not decode (not UTF-8, cut short). */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function resolveApp(world: World, headers: IncomingMessage['headers']): { app?: App; merchant?: Merchant } {
  const token = AUTH_SCHEME.tokenOf(headers);
  if (!token) return {};
  const app = world.tokens.get(token);
  if (!app || app.disabled) return {};
  return { app, merchant: world.merchants.get(app.merchant)! };
}

/**
 * Data the World cached (the rendered lists), which nothing mutates (variants clone before changing): their success
 * envelope is serialized once and the bytes reused, so a 65 MB /orders list does not cost a JSON.stringify per
 * request and the server does not dominate a benchmark.
 */
const stable = new WeakSet<object>();
const envelopeBytes = new WeakMap<object, Buffer>();

function serialized(reply: ApiReply): string | Buffer {
  if (reply.raw !== undefined) return reply.raw;
  const b = reply.body as Record<string, unknown> | undefined;
  const data = b?.data;
  const plain =
    b &&
    typeof data === 'object' &&
    data !== null &&
    stable.has(data) &&
    b.status === 'SUCCESS' &&
    b.code === 200 &&
    Object.keys(b).length === 3;
  if (!plain) return JSON.stringify(reply.body);
  let bytes = envelopeBytes.get(data);
  if (!bytes) {
    bytes = Buffer.from(JSON.stringify(reply.body));
    envelopeBytes.set(data, bytes);
  }
  return bytes;
}

/** Records serialized per chunk of a streamed list (about 1.3 MB of orders). */
const STREAM_BATCH = 1000;
const streamedBytes = new WeakMap<StreamedList, Promise<Buffer[]>>();

/**
 * The success envelope of a streamed list as chunks of bytes, made once per list (a batch at a time, letting other
 * requests be answered between batches) and kept: the bytes of JSON.stringify({status, code, data}) of the array.
 */
function streamedEnvelope(list: StreamedList): Promise<Buffer[]> {
  let made = streamedBytes.get(list);
  if (!made) {
    made = (async () => {
      const chunks = [Buffer.from('{"status":"SUCCESS","code":200,"data":[')];
      for (let from = 0; from < list.length; from += STREAM_BATCH) {
        const parts: string[] = [];
        for (let i = from; i < Math.min(list.length, from + STREAM_BATCH); i++)
          parts.push(JSON.stringify(list.renderAt(i)) ?? 'null');
        chunks.push(Buffer.from(`${from ? ',' : ''}${parts.join(',')}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
      chunks.push(Buffer.from(']}'));
      return chunks;
    })();
    streamedBytes.set(list, made);
  }
  return made;
}

/**
 * Serializes the streamed lists of every merchant now (a benchmark does it before its clock runs: 500,000 orders
 * take the server tens of seconds once). Lists served whole are cached on their first request, as before.
 */
export async function warmLists(world: World): Promise<void> {
  for (const m of world.merchants.values())
    for (const kind of ['dishes', 'seats', 'orders'] as const) {
      const list = world.listOf(kind, m.id);
      if (list instanceof StreamedList) await streamedEnvelope(list);
    }
}

/** Resolves once the response can take more bytes (or is gone). */
const drained = (res: ServerResponse): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });

/** A streamed list's envelope, chunk by chunk with backpressure (never one string: see StreamedList). */
async function sendStreamed(res: ServerResponse, reply: ApiReply, list: StreamedList, head: boolean): Promise<void> {
  const chunks = await streamedEnvelope(list);
  if (res.destroyed) return;
  res.writeHead(reply.http, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': chunks.reduce((n, c) => n + c.length, 0),
    ...reply.headers,
  });
  if (!head)
    for (const c of chunks) {
      if (res.destroyed) return;
      if (!res.write(c)) await drained(res);
    }
  res.end();
}

/** The plain success envelope {status, code, data} of a streamed list, which send streams. */
function streamedData(reply: ApiReply): StreamedList | undefined {
  if (reply.raw !== undefined || reply.http !== 200) return undefined;
  const b = reply.body as Record<string, unknown> | undefined;
  if (!b || !(b.data instanceof StreamedList) || b.status !== 'SUCCESS' || b.code !== 200) return undefined;
  return Object.keys(b).join() === 'status,code,data' ? b.data : undefined;
}

/** Writes a reply, streaming a list too long to hold as one string; `head` sends the headers only. */
export function send(res: ServerResponse, reply: ApiReply, head = false): void {
  const list = streamedData(reply);
  if (list) {
    sendStreamed(res, reply, list, head).catch((e: unknown) => res.destroy(e as Error));
    return;
  }
  const body = serialized(reply);
  res.writeHead(reply.http, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...reply.headers,
  });
  res.end(head ? undefined : body);
}

/** The most of a request body a variant that reads bodies is given (Variant.readsBody). */
const READ_BODY_BYTES = 64 * 1024;

/** Starts the reference server on a free port (unless told one), with the given variants applied. */
export async function startReferenceServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const variants = opts.variants ?? [];
  const fixtures = opts.size ? grow(baseFixtures(), opts.size) : baseFixtures();
  for (const v of variants) v.fixtures?.(fixtures);
  const world = new World(fixtures, variants, opts.streamRecords);
  const basePath = opts.basePath ?? '/open';

  const readsBody = variants.some((v) => v.readsBody);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!readsBody) req.resume();
    for (const v of variants) if (v.raw?.(req, res, world)) return;
    if (!readsBody) return answer(req, res);
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      if (bytes < READ_BODY_BYTES) chunks.push(c.subarray(0, READ_BODY_BYTES - bytes));
      bytes += c.length;
    });
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => res.destroy());
  };
  const answer = (req: IncomingMessage, res: ServerResponse, body?: string): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const inBase = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
    const apiReq: ApiRequest = {
      method: req.method ?? 'GET',
      path: inBase ? url.pathname.slice(basePath.length) || '/' : url.pathname,
      query: url.searchParams,
      headers: req.headers,
      ...resolveApp(world, req.headers),
      ...(body ? { body } : {}),
    };
    let reply: () => ApiReply = () =>
      inBase ? route(apiReq, world) : world.render.error(404, 'Interface error: unknown interface');
    for (const v of variants) {
      if (!v.handle) continue;
      const next = reply;
      const h = v.handle;
      reply = () => h(apiReq, next, world);
    }
    let answer: ApiReply;
    try {
      answer = reply();
    } catch (e) {
      answer = world.render.error(500, `System exception: ${(e as Error).message}`);
    }
    const delay = variants.reduce((sum, v) => sum + (v.delayMs?.(apiReq) ?? 0), 0);
    if (delay > 0)
      setTimeout(() => {
        if (!res.destroyed) send(res, answer, req.method === 'HEAD');
      }, delay);
    else send(res, answer, req.method === 'HEAD');
  };

  const tls = opts.https ? await testTls() : undefined;
  const server = tls ? createHttpsServer(opts.tls ?? tls.server, handler) : createHttpServer(handler);
  server.keepAliveTimeout = 5000;
  const host = opts.host ?? '127.0.0.1';
  // A broken deployment: one port that speaks TLS to TLS clients and plain HTTP to the rest.
  const dual =
    opts.https && (opts.plainAndTls ?? variants.some((v) => v.plainAndTls)) ? createHttpServer(handler) : undefined;
  const sockets = new Set<Socket>();
  const listener = dual
    ? createNetServer((socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.once('data', (first) => {
          socket.pause();
          socket.unshift(first);
          (first[0] === 0x16 ? server : dual).emit('connection', socket);
          process.nextTick(() => socket.resume());
        });
      })
    : server;
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (listener.address() as AddressInfo).port;
  const url = `${opts.https ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    baseUrl: `${url}${basePath}`,
    ...(tls ? { caFile: tls.ca.certFile } : {}),
    world,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        for (const s of sockets) s.destroy();
        listener.close(() => resolve());
      }),
  };
}
