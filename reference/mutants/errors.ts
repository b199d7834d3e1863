import type { Mutant } from './types.js';
import { onPath, pathIs, withData } from '../kit.js';
import type { ApiReply, ApiRequest, World } from '../server.js';
import { AUTH_PATH } from '../../core/spec/endpoints.js';
import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import { DETAIL_RESOURCES, LIST_PATHS, RESOURCE_PATHS, RESOURCES, type Resource } from '../../core/spec/resources.js';

/** The interfaces of §4 (below the base path); anything else is an unknown interface (§7 code 404). */
const KNOWN = new RegExp(
  `^(?:${[AUTH_PATH, ...RESOURCE_PATHS].join('|')})$|^(?:${DETAIL_RESOURCES.map((r) => RESOURCES[r].path).join('|')})/[^/]+$`,
);

/**
 * An unknown id of 7 to 9 digits (the ids ERR-02/03 make up are the largest id plus a million). Narrow on
 * purpose: the fuzz checks draw other unknown ids, and each mutant must be caught by exactly its own checks.
 */
export function unknownBigId(req: ApiRequest, world: World, resource: Resource): boolean {
  if (req.method !== 'GET' || !req.merchant || !pathIs(req, `/${resource}/:id`)) return false;
  const raw = req.path.slice(resource.length + 2);
  if (!/^[1-9][0-9]{6,8}$/.test(raw)) return false;
  const rec = world[resource].get(Number(raw));
  return !rec || rec.user_id !== req.merchant.id;
}

/** Wrong error answers (§7, §4 rule 2), each caught by exactly its `kills`. */
export const errorMutants: Mutant[] = [
  {
    name: 'unknown-interface-400',
    description: 'an unknown interface answers code 400 instead of 404',
    kills: ['ERR-01'],
    handle: (req, next, world) =>
      req.method === 'GET' && !KNOWN.test(req.path) ? world.render.error(400, 'Parameter error') : next(),
  },
  {
    name: 'unknown-dish-success-null',
    description: 'an unknown dish id of 7–9 digits answers SUCCESS with data null',
    kills: ['ERR-02'],
    handle: (req, next, world): ApiReply =>
      unknownBigId(req, world, 'dishes') ? { http: 200, body: { status: 'SUCCESS', code: 200, data: null } } : next(),
  },
  {
    name: 'unknown-seat-500',
    description: 'an unknown seat id of 7–9 digits answers code 500 (an unhandled lookup failure)',
    kills: ['ERR-03'],
    handle: (req, next, world) =>
      unknownBigId(req, world, 'seats') ? world.render.error(500, 'System exception: seat not found') : next(),
  },
  {
    name: 'unauthorized-status-success',
    description: 'the 401 answers of the data endpoints carry status "SUCCESS" (code 401, no data)',
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      const body = r.body as { code?: unknown } | undefined;
      return req.path !== '/auth' && body?.code === 401 ? { ...r, body: { ...body, status: 'SUCCESS' } } : r;
    },
  },
  {
    ...onPath(
      'list-query-applied',
      'list endpoints apply limit/per_page: with ?limit=1 they answer SUCCESS with the first record only',
      LIST_PATHS,
      (r, req) => (req.query.has('limit') || req.query.has('per_page') ? withData(r, (d) => d.slice(0, 1)) : r),
    ),
    kills: ['ERR-06'],
  },
  {
    ...onPath('list-query-500', 'list endpoints answer code 500 to query parameters', LIST_PATHS, (r, req, world) =>
      [...req.query.keys()].length && req.method === 'GET'
        ? world.render.error(500, 'System exception: unexpected parameter')
        : r,
    ),
    kills: ['ERR-06'],
  },
  {
    // §4 rule 2: a list endpoint that filters by a parameter the suite sent beside paging (a `WHERE status = ?`).
    ...onPath(
      'list-query-status-filter',
      'GET /seats applies ?status=: only the seats of that status are listed',
      ['/seats'],
      (r, req) =>
        req.query.has('status')
          ? withData(r, (d: Array<{ status: unknown }>) =>
              d.filter((x) => String(x.status) === req.query.get('status')),
            )
          : r,
    ),
    kills: ['ERR-06'],
  },
  {
    // The token middleware's own refusal, apart from the router's: a number where §2.1 types status as a string.
    name: 'wrong-token-refusal-numeric-status',
    description:
      'a data endpoint refuses a token that is not valid (the header present) with {status: 401, code: 401}: status a number; a request without the header gets the usual refusal',
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      const body = r.body as { code?: unknown } | undefined;
      return presentButRefused(req, body) ? { ...r, body: { ...body, status: 401 } } : r;
    },
  },
  {
    name: 'wrong-token-refusal-text-html',
    description:
      'a data endpoint refuses a token that is not valid with its JSON envelope labelled Content-Type text/html (the body unchanged)',
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      return presentButRefused(req, r.body as { code?: unknown } | undefined)
        ? { ...r, headers: { ...r.headers, 'content-type': 'text/html; charset=utf-8' } }
        : r;
    },
  },
  {
    name: 'wrong-token-refusal-msg-latin1',
    description:
      'a data endpoint refuses a token that is not valid with a msg written in Latin-1 ("Jeton refusé": the é a lone byte 0xE9, not UTF-8)',
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      const body = r.body as { code?: unknown } | undefined;
      return presentButRefused(req, body)
        ? { ...r, raw: Buffer.from(JSON.stringify({ ...body, msg: 'Jeton refusé' }), 'latin1') }
        : r;
    },
  },
];

/**
 * A data endpoint's refusal of a request that carries a token as the auth scheme does (the open-token header present),
 * which names no valid application.
 */
function presentButRefused(req: ApiRequest, body: { code?: unknown } | undefined): body is { code: 401 } {
  return req.path !== '/auth' && tokenOfRequest(req.headers) !== undefined && !req.app && body?.code === 401;
}
