import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import type { Mutant } from './types.js';
import { unknownBigId } from './errors.js';
import { nearPublicKey, onPath, withBody } from '../kit.js';
import type { ApiReply, ApiRequest } from '../server.js';
import { AUTH_PATH } from '../../core/spec/endpoints.js';
import { RESOURCE_PATHS } from '../../core/spec/resources.js';

/**
 * Proof per way (#27) for the error checks (suites/errors.ts) and the error-expecting helper
 * (core/model/assertions.ts expectError): one mutant for each of their failure branches that had none, each breaking
 * the rule that one way only.
 */

/** A plain-text refusal, as a framework's default 401 page sends it: no JSON, so no envelope and no code (§1, §7). */
const textRefusal: ApiReply = {
  http: 401,
  body: undefined,
  raw: 'Unauthorized',
  headers: { 'content-type': 'text/plain; charset=utf-8' },
};

/** The first path segment of each interface of §4 (auth, merchant, dishes, seats, orders). */
export const INTERFACES = [AUTH_PATH, ...RESOURCE_PATHS].map((p) => p.slice(1));

/**
 * A GET with no token of a path that names none of the interfaces however a router might spell it (letter case,
 * percent-escapes, doubled or trailing slashes): only ERR-01's unknown interface, not the token checks' path variants.
 */
function unknownInterfaceWithoutToken(req: ApiRequest): boolean {
  if (req.method !== 'GET' || tokenOfRequest(req.headers) !== undefined) return false;
  let path = req.path;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape names no interface either way.
  }
  const first = path.toLowerCase().split('/').find(Boolean) ?? '';
  return !INTERFACES.includes(first);
}

/** Mutants that each break one failure branch of the error checks that had none of its own (issue #27). */
export const waysErrorMutants: Mutant[] = [
  {
    // ERR-02/03's "the error carries data" branch (unknownIdsAreErrors), at the seats: app's (merchant 1's), as other_app's
    // unknown ids are ERR-04's to judge for data (#35).
    name: 'unknown-seat-error-carries-data',
    description:
      'an unknown seat id of 7–9 digits asked by merchant 1 answers code 404 with data {"seat_id": <the id asked for>}',
    kills: ['ERR-03'],
    handle: (req, next, world) =>
      unknownBigId(req, world, 'seats') && req.merchant?.id === 1
        ? withBody(next(), (b) => {
            b.data = { seat_id: req.path.slice('/seats/'.length) };
          })
        : next(),
  },
  {
    // ERR-01's "the error carries data" branch (the unknown interface asked without a token).
    name: 'unknown-interface-no-token-carries-data',
    description:
      'an unknown interface asked without a token answers code 404 with data listing the interfaces that exist',
    kills: ['ERR-01'],
    handle: (req, next) =>
      unknownInterfaceWithoutToken(req)
        ? withBody(next(), (b) => {
            b.data = { interfaces: [AUTH_PATH, ...RESOURCE_PATHS] };
          })
        : next(),
  },
  {
    // expectError's "no JSON object" branch, through AUTH-08 alone: AUTH-07 (code only) sends no unknown public key
    // but its swapped pair, whose public key is app's secret key; ERR-04 sends /auth without parameters only.
    ...onPath(
      'auth-unknown-public-key-text-refusal',
      '/auth refuses an unknown public key with HTTP 401 and the plain-text body "Unauthorized" (no JSON)',
      [AUTH_PATH],
      (r, req, world) => {
        const secret = req.query.get('secret');
        const unknown =
          !!secret &&
          !!req.query.get('key') &&
          !nearPublicKey(world.fixtures.apps, secret) &&
          !world.fixtures.apps.some((a) => a.key === secret);
        return unknown ? textRefusal : r;
      },
    ),
    kills: ['AUTH-08'],
  },
  {
    // expectError's "not an error envelope" branch with the right code, through AUTH-09 alone (AUTH-07 and AUTH-10
    // judge a refusal by its code and data; ERR-04 sends no key pair).
    ...onPath(
      'auth-disabled-refusal-no-status',
      "/auth refuses the disabled application's key pair with {code: 401, msg} and no status",
      [AUTH_PATH],
      (r, req, world) =>
        world.fixtures.apps.some(
          (a) => a.disabled && a.secret === req.query.get('secret') && a.key === req.query.get('key'),
        )
          ? withBody(r, (b) => {
              delete b.status;
            })
          : r,
    ),
    kills: ['AUTH-09'],
  },
  {
    // ERR-04's "no JSON object" branch, with UNAUTH-ORDERS, whose refusals without an open-token header are these and
    // which judges their code (a body that is no JSON object has none). other-app-unknown-id-text-error proves the
    // branch alone (#35: other_app's unknown ids, whose code no other check judges).
    ...onPath(
      'orders-no-token-text-refusal',
      'GET /orders without an open-token header answers HTTP 401 with the plain-text body "Unauthorized" (no JSON)',
      ['/orders'],
      (r, req) => (tokenOfRequest(req.headers) === undefined ? textRefusal : r),
    ),
    kills: ['ERR-04', 'UNAUTH-ORDERS'],
  },
];
