import { tokenOfRequest } from '../../core/spec/auth-scheme.js';
import { AUTH_PATH } from '../../core/spec/endpoints.js';
import { LIST_PATHS } from '../../core/spec/resources.js';
import { onPath, pathIs, withBody } from '../kit.js';
import type { ApiReply, ApiRequest, World } from '../server.js';
import { unknownBigId } from './errors.js';
import type { Mutant } from './types.js';
import { INTERFACES } from './ways-errors.js';

/**
 * #35: the errors of every application, judged as answers. Each mutant breaks one failure branch the suite gained
 * when it began to provoke the errors of §7 with other_app's and the disabled application's tokens too, to judge
 * AUTH-07's refusals and the disabled application's as envelopes, and to look for a byte order mark in errors.
 */

/** The second merchant's application (other_app in the fixtures' configuration). */
const OTHER_MERCHANT = 2;

/** A request carrying a valid token of the second merchant's application. */
const byOtherApp = (req: ApiRequest): boolean => req.merchant?.id === OTHER_MERCHANT;

/** A request carrying the disabled application's earlier token. */
const disabledToken = (req: ApiRequest, world: World): boolean => {
  const token = tokenOfRequest(req.headers);
  return typeof token === 'string' && world.tokens.get(token)?.disabled === true;
};

/** A GET of a path that names none of the interfaces (as ERR-01's unknown interface). */
function unknownInterface(req: ApiRequest): boolean {
  const first = req.path.toLowerCase().split('/').find(Boolean) ?? '';
  return req.method === 'GET' && !INTERFACES.includes(first);
}

/** An unknown id of 7–9 digits asked for with other_app's token (ERR-04 makes them up past merchant B's largest). */
const otherAppUnknownId = (req: ApiRequest, world: World): boolean =>
  byOtherApp(req) && (unknownBigId(req, world, 'dishes') || unknownBigId(req, world, 'seats'));

/** The data endpoints' paths (§4 endpoints 2–7), as pathIs patterns. */
const DATA_PATHS = ['/merchant', '/dishes', '/dishes/:id', '/seats', '/seats/:id', '/orders'];

/** An error envelope (code not 200) of a data endpoint or an unknown interface. */
const isError = (r: ApiReply): boolean => {
  const code = (r.body as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code !== 200;
};

/** Mutants of the errors of every application (#35), each caught by exactly its `kills`. */
export const otherErrorMutants: Mutant[] = [
  {
    // ERR-04's byte order mark: the errors' serializer, not the successes' (ENV-01 looks in successes).
    name: 'error-bodies-bom',
    description:
      'every error of a data endpoint or an unknown interface starts with a byte order mark (U+FEFF) before its JSON',
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      return req.path !== AUTH_PATH && r.raw === undefined && isError(r)
        ? { ...r, raw: `\uFEFF${JSON.stringify(r.body)}` }
        : r;
    },
  },
  {
    // ERR-04 reads the errors of other_app's token: the envelope's status typed as a number there only.
    name: 'other-app-unknown-id-numeric-status',
    description:
      "an unknown dish or seat id of 7–9 digits asked for with other_app's token answers {status: 404, code: 404, msg}: status a number",
    kills: ['ERR-04'],
    handle: (req, next, world) =>
      otherAppUnknownId(req, world)
        ? withBody(next(), (b) => {
            b.status = 404;
          })
        : next(),
  },
  {
    // ERR-04's "no JSON object" branch alone: other_app's unknown ids, whose code no other check judges (#35).
    name: 'other-app-unknown-id-text-error',
    description:
      'an unknown dish or seat id of 7–9 digits asked for with other_app\'s token answers HTTP 404 with the plain-text body "Not Found" (no JSON)',
    kills: ['ERR-04'],
    handle: (req, next, world) =>
      otherAppUnknownId(req, world)
        ? { http: 404, body: undefined, raw: 'Not Found', headers: { 'content-type': 'text/plain; charset=utf-8' } }
        : next(),
  },
  {
    // ERR-04's media type of other_app's unknown interface (TRANS-01 reads app's and none's; #35).
    name: 'other-app-unknown-interface-text-html',
    description: "an unknown interface asked with other_app's token answers its JSON error as text/html",
    kills: ['ERR-04'],
    handle: (req, next) => {
      const r = next();
      return byOtherApp(req) && unknownInterface(req) && isError(r)
        ? { ...r, headers: { ...r.headers, 'content-type': 'text/html; charset=utf-8' } }
        : r;
    },
  },
  {
    // ENV-01's byte order mark branch alone: the successes' serializer (errors are ERR-04's, error-bodies-bom).
    name: 'success-bodies-bom',
    description: 'every success envelope starts with a byte order mark (U+FEFF) before its JSON; errors do not',
    kills: ['ENV-01'],
    handle: (req, next) => {
      const r = next();
      return r.raw === undefined && (r.body as { status?: unknown } | undefined)?.status === 'SUCCESS'
        ? { ...r, raw: `\uFEFF${JSON.stringify(r.body)}` }
        : r;
    },
  },
  {
    // ERR-04's data branch: another application's error no other check reads carries no data.
    name: 'other-app-unknown-id-error-carries-data',
    description:
      "an unknown dish or seat id of 7–9 digits asked for with other_app's token answers code 404 with data {id: <the id>}",
    kills: ['ERR-04'],
    handle: (req, next, world) =>
      otherAppUnknownId(req, world)
        ? withBody(next(), (b) => {
            b.data = { id: req.path.split('/')[2] };
          })
        : next(),
  },
  {
    // ERR-01 asks other_app's token too: the code of §7 for an unknown interface there.
    name: 'unknown-interface-other-app-400',
    description: "an unknown interface asked with other_app's token answers code 400 instead of 404",
    kills: ['ERR-01'],
    handle: (req, next, world) =>
      unknownInterface(req) && byOtherApp(req) ? world.render.error(400, 'Parameter error') : next(),
  },
  {
    // ERR-01's data branch for another application's token.
    name: 'unknown-interface-other-app-carries-data',
    description:
      "an unknown interface asked with other_app's token answers code 404 with data listing the interfaces that exist",
    kills: ['ERR-01'],
    handle: (req, next) =>
      unknownInterface(req) && byOtherApp(req)
        ? withBody(next(), (b) => {
            b.data = { interfaces: INTERFACES };
          })
        : next(),
  },
  {
    // ERR-06's data branch: a 400 to query parameters is an error, with no data (merchant 1's: app's, ERR-06's).
    ...onPath(
      'list-query-400-carries-data',
      "the lists refuse query parameters with code 400 carrying the unfiltered list as data (app's merchant)",
      LIST_PATHS,
      (r, req, world) =>
        [...req.query.keys()].length && req.merchant?.id === 1
          ? withBody(world.render.error(400, 'Parameter error: no query parameters are accepted'), (b) => {
              b.data = (r.body as { data?: unknown }).data;
            })
          : r,
    ),
    kills: ['ERR-06'],
  },
  {
    // AUTH-07 judges its refusals as envelopes: other_app's wrong key pairs refused with a numeric status.
    ...onPath(
      'auth-other-app-wrong-key-numeric-status',
      "/auth refuses other_app's public key with a wrong secret key as {status: 401, code: 401, msg}: status a number",
      [AUTH_PATH],
      (r, req, world) => {
        const other = world.fixtures.apps.find((a) => a.merchant === OTHER_MERCHANT && !a.disabled);
        const key = req.query.get('key');
        return other && req.query.get('secret') === other.secret && key && key !== other.key && isError(r)
          ? withBody(r, (b) => {
              b.status = 401;
            })
          : r;
      },
    ),
    kills: ['AUTH-07'],
  },
  {
    // AUTH-10's success branch beside its own requests: the disabled token with query parameters (#35).
    ...onPath(
      'disabled-token-list-query-accepted',
      "the lists answer the disabled application's earlier token with their records when query parameters are sent (a paging branch that skips the token check)",
      LIST_PATHS,
      (r, req, world) =>
        disabledToken(req, world) && [...req.query.keys()].length
          ? { http: 200, body: { status: 'SUCCESS', code: 200, data: world.listOf(req.path.slice(1) as 'dishes', 1) } }
          : r,
    ),
    kills: ['AUTH-10'],
  },
  {
    // AUTH-10's data branch beside its own requests: the disabled token at an unknown id (#35).
    name: 'disabled-token-unknown-id-refusal-carries-data',
    description:
      "an unknown dish or seat id of 7–9 digits asked for with the disabled application's earlier token is refused with data {id: <the id>}",
    kills: ['AUTH-10'],
    handle: (req, next, world) =>
      disabledToken(req, world) &&
      (pathIs(req, '/dishes/:id') || pathIs(req, '/seats/:id')) &&
      /^\/[a-z]+\/[1-9][0-9]{6,8}$/.test(req.path)
        ? withBody(next(), (b) => {
            b.data = { id: req.path.split('/')[2] };
          })
        : next(),
  },
  {
    // ERR-04 reads the disabled application's refusals (AUTH-10's, which judges their code and data only).
    name: 'disabled-token-refusal-no-status',
    description: "the data endpoints refuse the disabled application's earlier token with {code: 401, msg}: no status",
    kills: ['ERR-04'],
    handle: (req, next, world) =>
      disabledToken(req, world) && DATA_PATHS.some((p) => pathIs(req, p))
        ? withBody(next(), (b) => {
            delete b.status;
          })
        : next(),
  },
];
