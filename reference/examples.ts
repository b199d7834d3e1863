import type { ErrorCode, OpenApiExamples, OperationName } from '../core/spec/openapi.js';
import { route, World, type ApiRequest } from './server.js';
import { baseFixtures, CREDENTIALS } from './fixtures.js';

/** A fixed token for the examples: /auth issues a random one, and the document must be the same on every build. */
export const EXAMPLE_TOKEN = 'tok_example_issued_by_auth';

/**
 * Example bodies for the OpenAPI document: the reference server's own answers over the fixtures (merchant 1, the
 * fixture application), so the examples are what a conforming server says, not a hand-written second copy.
 */
export function fixtureExamples(): OpenApiExamples {
  const world = new World(baseFixtures(), []);
  const app = world.fixtures.apps.find((a) => a.secret === CREDENTIALS.app.secret)!;
  const merchant = world.merchants.get(app.merchant)!;
  const ask = (path: string, query = '', authed = true): unknown => {
    const req: ApiRequest = {
      method: 'GET',
      path,
      query: new URLSearchParams(query),
      headers: {},
      ...(authed ? { app, merchant } : {}),
    };
    return route(req, world).body;
  };
  const auth = ask('/auth', new URLSearchParams(CREDENTIALS.app).toString(), false) as { data: { app_token: string } };
  auth.data.app_token = EXAMPLE_TOKEN;
  const success: Record<OperationName, unknown> = {
    auth,
    merchant: ask('/merchant'),
    dishes: ask('/dishes'),
    dish: ask('/dishes/101'),
    seats: ask('/seats'),
    seat: ask('/seats/11'),
    orders: ask('/orders'),
  };
  const errors: Record<ErrorCode, unknown> = {
    400: ask('/auth', '', false),
    401: ask('/dishes', '', false),
    404: ask('/dishes/999999'),
    500: world.render.error(500, 'System exception').body,
  };
  // Detached from the World's caches, so a caller may change them.
  return structuredClone({ success, errors });
}
