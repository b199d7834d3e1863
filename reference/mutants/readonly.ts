import type { Mutant } from './types.js';
import { pathIs, withData } from '../kit.js';
import { ok, type World } from '../server.js';

/** Dishes deleted per server (a soft delete: orders keep the dishes they embed, as order history would). */
const deleted = new WeakMap<World, Set<string>>();
const goneOf = (world: World): Set<string> => {
  let s = deleted.get(world);
  if (!s) deleted.set(world, (s = new Set()));
  return s;
};

/** Servers whose unsafe methods change data (§1, §3), each caught by exactly its `kills`. */
export const readonlyMutants: Mutant[] = [
  {
    name: 'delete-removes-dish',
    description: 'DELETE /dishes/:id with a valid token deletes the dish: it leaves /dishes and its detail answers 404',
    kills: ['RO-01'],
    handle: (req, next, world) => {
      const gone = goneOf(world);
      const id = pathIs(req, '/dishes/:id') ? decodeURIComponent(req.path.slice('/dishes/'.length)) : undefined;
      if (req.method === 'DELETE' && id !== undefined && req.merchant) {
        const d = world.dishes.get(Number(id));
        if (d && d.user_id === req.merchant.id) {
          gone.add(String(d.id));
          return ok(null);
        }
      }
      if (req.method !== 'GET' || !req.merchant) return next();
      if (id !== undefined && gone.has(id)) return world.render.error(404, 'Record not found');
      if (req.path === '/dishes')
        return withData(next(), (list: Array<{ id: unknown }>) => list.filter((x) => !gone.has(String(x.id))));
      return next();
    },
  },
];
