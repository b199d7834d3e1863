import type { Mutant } from './types.js';
import { eachRecord, isSuccess, pathIs, withData } from '../kit.js';
import { ok, type ApiReply, type ApiRequest, type World } from '../server.js';

/** Dishes deleted per server (a soft delete: orders keep the dishes they embed, as order history would). */
const deleted = new WeakMap<World, Set<string>>();
const goneOf = (world: World): Set<string> => {
  let s = deleted.get(world);
  if (!s) deleted.set(world, (s = new Set()));
  return s;
};

/** Per server: how many times each merchant's orders were read through GET /orders. */
const reads = new WeakMap<World, Map<number, number>>();
const readsOf = (world: World): Map<number, number> => {
  let m = reads.get(world);
  if (!m) reads.set(world, (m = new Map()));
  return m;
};
/** Per server: the seat detail paths already read (the one-time view). */
const readPaths = new WeakMap<World, Set<string>>();
const readPathsOf = (world: World): Set<string> => {
  let s = readPaths.get(world);
  if (!s) readPaths.set(world, (s = new Set()));
  return s;
};

/** The id of a dish detail path, decoded, or undefined. */
export const dishIdOf = (req: ApiRequest): string | undefined =>
  pathIs(req, '/dishes/:id') ? decodeURIComponent(req.path.slice('/dishes/'.length)) : undefined;

/**
 * A merchant's reads once the dishes in `gone` were deleted (`id`: the dish a detail path names): their details
 * answer 404 and /dishes leaves them out.
 */
export function readWithout(
  gone: ReadonlySet<string>,
  id: string | undefined,
  req: ApiRequest,
  next: () => ApiReply,
  world: World,
): ApiReply {
  if (req.method !== 'GET' || !req.merchant) return next();
  if (id !== undefined && gone.has(id)) return world.render.error(404, 'Record not found');
  if (req.path === '/dishes')
    return withData(next(), (list: Array<{ id: unknown }>) => list.filter((x) => !gone.has(String(x.id))));
  return next();
}

/** Servers whose requests change state (§1, §3: unsafe methods, a GET, an /auth), each caught by exactly its `kills`. */
export const readonlyMutants: Mutant[] = [
  {
    name: 'delete-removes-dish',
    description: 'DELETE /dishes/:id with a valid token deletes the dish: it leaves /dishes and its detail answers 404',
    kills: ['RO-01'],
    handle: (req, next, world) => {
      const gone = goneOf(world);
      const id = dishIdOf(req);
      if (req.method === 'DELETE' && id !== undefined && req.merchant) {
        const d = world.dishes.get(Number(id));
        if (d && d.user_id === req.merchant.id) {
          gone.add(String(d.id));
          return ok(null);
        }
      }
      return readWithout(gone, id, req, next, world);
    },
  },
  {
    // §3: a read that writes (orders marked as seen, their updated_at set, by every GET of the list).
    name: 'get-orders-marks-seen',
    description:
      "every GET /orders marks the merchant's orders as seen: the next GET /orders answers them with a later updated_at",
    kills: ['RO-02'],
    handle: (req, next, world) => {
      const r = next();
      if (req.method !== 'GET' || req.path !== '/orders' || !req.merchant || !isSuccess(r)) return r;
      const seen = readsOf(world);
      const n = seen.get(req.merchant.id) ?? 0;
      seen.set(req.merchant.id, n + 1);
      const at = `2030-01-${String(1 + (Math.floor(n / 60) % 28)).padStart(2, '0')} 00:${String(n % 60).padStart(2, '0')}`;
      return n === 0 ? r : withData(r, (d) => eachRecord(d, (o) => void (o.updated_at = at)));
    },
  },
  {
    // §3: a read that consumes (a one-time view: the record is archived once read).
    name: 'get-seat-detail-read-once',
    description:
      'GET /seats/:id archives the seat once it has been read: asked again with the same path, it answers 404',
    kills: ['RO-02'],
    handle: (req, next, world) => {
      const r = next();
      if (req.method !== 'GET' || !req.merchant || !pathIs(req, '/seats/:id') || !isSuccess(r)) return r;
      const read = readPathsOf(world);
      if (read.has(req.path)) return world.render.error(404, 'Record not found');
      read.add(req.path);
      return r;
    },
  },
];
