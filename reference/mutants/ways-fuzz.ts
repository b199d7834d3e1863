import type { Mutant } from './types.js';
import { pathIs, withBody } from '../kit.js';
import { ok, type ApiReply, type ApiRequest, type World } from '../server.js';
import type { Dish } from '../fixtures.js';
import { isDetail, segment } from './fuzz.js';
import { INTERFACES } from './ways-errors.js';

/**
 * Proof per way (#27) for FUZZ-01's verdicts (suites/fuzz.ts) and TRANS-01's charset: one mutant for each failure
 * branch no mutant reached. The FUZZ-01 mutants break only id spellings no other check sends (the others ask for
 * listed ids, ERR-02/03 for the largest id plus 1,000,000 and "conformance-unknown-id", ISO-01/03 for the other
 * merchant's listed ids, all written canonically): leading zeros, dots, exponents and percent-escapes, and id 0.
 * Each is caught at the tests' seed (12345, 30 runs), which draws such ids for the endpoint it breaks.
 */

/** The raw (still percent-encoded) id segment of a detail request. */
const rawSegment = (req: ApiRequest): string => req.path.split('/')[2] ?? '';

/** A detail id written with leading zeros before a non-zero id ("0201"): a spelling only FUZZ-01 sends. */
const leadingZeroId = (req: ApiRequest): number | undefined => {
  const m = /^0+([1-9][0-9]{0,14})$/.exec(segment(req));
  return m ? Number(m[1]) : undefined;
};

/** Merchant B's dish asked for by merchant A's token with leading zeros, when that is what the request is. */
function otherMerchantsDish(req: ApiRequest, world: World): Dish | undefined {
  if (!req.merchant || !pathIs(req, '/dishes/:id')) return undefined;
  const id = leadingZeroId(req);
  const d = id === undefined ? undefined : world.dishes.get(id);
  return d && d.user_id !== req.merchant.id ? d : undefined;
}

/** A mutant that answers merchant B's dish, asked for by A's token with leading zeros, as `answer` says (rendered). */
function otherMerchantsDishMutant(
  name: string,
  description: string,
  answer: (dish: Record<string, unknown>, world: World) => ApiReply,
): Mutant {
  return {
    name,
    description,
    kills: ['FUZZ-01'],
    handle: (req, next, world) => {
      const theirs = otherMerchantsDish(req, world);
      return theirs ? answer(world.render.dish(theirs), world) : next();
    },
  };
}

/** The system's placeholder dish (id 0): a row of no merchant, which no list holds. */
const PLACEHOLDER_DISH: Dish = {
  id: 0,
  name: '',
  price: 0,
  stock: 0,
  unit: null,
  category_id: 0,
  user_id: 0,
  created_at: '2024-01-01 00:00',
  updated_at: '2024-01-01 00:00',
};

/** Mutants of FUZZ-01's and TRANS-01's failure branches that had none, each caught by exactly its `kills`. */
export const fuzzWayMutants: Mutant[] = [
  {
    // FUZZ-01's "not a JSON envelope" branch: Apache's AllowEncodedSlashes Off answers before the API sees the path.
    name: 'fuzz-encoded-slash-proxy-html',
    description: "a dish or seat id holding %2F gets the front proxy's HTML 404 page, not the API's answer",
    kills: ['FUZZ-01'],
    handle: (req, next) =>
      isDetail(req) && /%2f/i.test(rawSegment(req))
        ? {
            http: 404,
            body: undefined,
            raw: '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>',
            headers: { 'content-type': 'text/html; charset=iso-8859-1' },
          }
        : next(),
  },
  {
    // FUZZ-01's "neither a success nor an error envelope" branch.
    name: 'fuzz-decimal-id-status-success',
    description:
      'a dish or seat id written as a decimal or with an exponent (101.0, 101e0) is refused with {status: "SUCCESS", code: 400}',
    kills: ['FUZZ-01'],
    handle: (req, next) =>
      req.app &&
      isDetail(req) &&
      /^[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?$/.test(segment(req)) &&
      /[.eE]/.test(segment(req))
        ? { http: 400, body: { status: 'SUCCESS', code: 400, msg: 'Parameter error: the id is not an integer' } }
        : next(),
  },
  {
    // FUZZ-01's "not among this merchant's list" branch: a record of no configured merchant.
    name: 'fuzz-dish-zero-placeholder',
    description:
      "GET /dishes/0 (00, 000 …) answers the system's placeholder dish {id: 0, user_id: 0}, which no list holds",
    kills: ['FUZZ-01'],
    handle: (req, next, world) =>
      req.app && pathIs(req, '/dishes/:id') && /^0+$/.test(segment(req))
        ? ok(world.render.dish(PLACEHOLDER_DISH))
        : next(),
  },
  {
    // FUZZ-01's "an error body that is not an error envelope" branch.
    name: 'fuzz-id-validator-no-status',
    description:
      'a dish or seat id with a character other than a letter, digit, - or _ (a %-escape, a dot) is refused with {code: 400, error: …}: no status',
    kills: ['FUZZ-01'],
    handle: (req, next) =>
      req.app && isDetail(req) && !/^[A-Za-z0-9_-]+$/.test(rawSegment(req))
        ? { http: 400, body: { code: 400, error: 'invalid id' } }
        : next(),
  },
  // FUZZ-01's "answered merchant B's record" branch, which ISO-01 cannot see: it asks for B's ids as listed.
  otherMerchantsDishMutant(
    'fuzz-leading-zeros-any-merchant',
    "GET /dishes/:id with leading zeros (0201) looks the dish up without the merchant filter: merchant A's token gets merchant B's dish 201",
    (dish) => ok(dish),
  ),
  // FUZZ-01's "an error that carries merchant B's record" branch.
  otherMerchantsDishMutant(
    'fuzz-leading-zeros-refusal-carries-record',
    "GET /dishes/:id with leading zeros (0201) of merchant B's dish refuses merchant A's token with code 404 and B's dish as data",
    (dish, world) =>
      withBody(world.render.error(404, 'Record not found'), (b) => {
        b.data = dish;
      }),
  ),
  {
    // TRANS-01's "charset not UTF-8" branch: the body stays ASCII, so TRANS-02 (the bytes) has nothing to see.
    name: 'unknown-interface-latin1-charset',
    description:
      "the framework's catch-all 404 of an unknown interface asked with a valid token labels its JSON Content-Type charset=iso-8859-1",
    kills: ['TRANS-01'],
    handle: (req, next) => {
      const r = next();
      // A 404 to a path whose first segment names no interface is the catch-all's, not one of the API's own 404s.
      const first = req.path.split('/').find(Boolean) ?? '';
      // With app's token only: the one the transport checks read (ERR-04 judges the one without a token, and the
      // one with another application's token).
      return r.http !== 404 || !req.app || req.app.merchant !== 1 || INTERFACES.includes(first)
        ? r
        : { ...r, headers: { ...r.headers, 'content-type': 'application/json; charset=iso-8859-1' } };
    },
  },
];
