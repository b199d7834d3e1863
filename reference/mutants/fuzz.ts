import type { Mutant } from './types.js';
import { pathIs } from '../kit.js';
import { route, type ApiRequest, type World } from '../server.js';

/**
 * Broken variants only fuzzing finds (suites/fuzz.ts): id parsing that goes wrong on inputs no fixed check sends.
 * Each is caught at the tests' seed (12345, 30 runs: test/helpers/target.ts).
 */

/** The id segment of a detail request, percent-decoded. */
export const segment = (req: ApiRequest): string => decodeURIComponent(req.path.split('/')[2] ?? '');
/** The request is for a dish's or a seat's detail (§4 endpoints 4 and 6). */
export const isDetail = (req: ApiRequest): boolean => pathIs(req, '/dishes/:id') || pathIs(req, '/seats/:id');

/** Answers the detail of id as the conforming server would for a canonical id. */
function detailOf(req: ApiRequest, world: World, id: number | bigint): ReturnType<typeof route> {
  const resource = req.path.split('/')[1]!;
  return route({ ...req, path: `/${resource}/${id}` }, world);
}

/** Detail endpoints that break on generated ids, each caught by exactly its `kills` (FUZZ-01). */
export const fuzzMutants: Mutant[] = [
  {
    name: 'fuzz-big-id-500',
    description: 'dish and seat ids past 2^53 answer 500 (the id is parsed into a double and the lookup throws)',
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      const s = segment(req);
      return isDetail(req) && /^[0-9]+$/.test(s) && BigInt(s) > 2n ** 53n
        ? world.render.error(500, 'System exception: id out of range')
        : next();
    },
  },
  {
    name: 'fuzz-parseint-dish-ids',
    description: '/dishes/:id reads the id with parseInt, so "101abc", "101.5" and "101e0" answer dish 101',
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      if (!pathIs(req, '/dishes/:id')) return next();
      const n = Number.parseInt(segment(req), 10);
      return Number.isNaN(n) || n < 0 ? next() : detailOf(req, world, n);
    },
  },
  {
    name: 'fuzz-int32-wrap',
    description: 'dish and seat ids wrap modulo 2^32, so 4294967397 answers dish 101',
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      const s = segment(req);
      if (!isDetail(req) || !/^[0-9]+$/.test(s) || BigInt(s) < 2n ** 32n) return next();
      return detailOf(req, world, BigInt(s) % 2n ** 32n);
    },
  },
  {
    name: 'fuzz-negative-seat-500',
    description: '/seats/:id answers 500 for negative ids',
    kills: ['FUZZ-01'],
    handle: (req, next, world) =>
      pathIs(req, '/seats/:id') && /^-[0-9]+$/.test(segment(req))
        ? world.render.error(500, 'System exception')
        : next(),
  },
  {
    name: 'fuzz-encoded-slash-routes',
    description: 'the server decodes %2F before routing, so /dishes/..%2Fmerchant answers the merchant record',
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      if (!isDetail(req) || !/%2f/i.test(req.path)) return next();
      const resolved = new URL(decodeURIComponent(req.path), 'http://x').pathname;
      return route({ ...req, path: resolved }, world);
    },
  },
];
