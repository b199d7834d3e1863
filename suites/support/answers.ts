import type { CheckContext } from '../../core/model/check.js';
import type { Reply } from '../../core/transport/exchange.js';
import { LIST_PATHS } from '../../core/spec/resources.js';
import { AUTH_PATH } from '../../core/spec/endpoints.js';
import { judgedApplications } from './tenants.js';
import { dataEndpointPaths } from './paths.js';

/** A request as a finding names it ("GET /path", and whose token or key pair it carried) and its answer. */
export interface Answer {
  request: string;
  reply: Reply;
}

/**
 * The answers of endpoints 1–7 to `app`, each a shared request fetched once per run: /auth (when the source holds it)
 * and every data endpoint (a detail at a real id; dataEndpointPaths notes one it cannot call).
 */
export async function ownAnswers(ctx: CheckContext): Promise<Answer[]> {
  const auth = await ctx.api.authAnswer();
  const paths = await dataEndpointPaths(ctx);
  const data = await Promise.all(
    paths.map(async ({ path }) => ({ request: `GET ${path}`, reply: await ctx.api.get(path) })),
  );
  return [...(auth ? [{ request: `GET ${AUTH_PATH}`, reply: auth }] : []), ...data];
}

/**
 * The answers the run got for the applications other than `app` (#27: every configured application is judged, not
 * only used as isolation data): each one's /auth answer, /merchant and lists, as shared requests, so a check that
 * judges them sends nothing the isolation checks have not. `request` is "GET /path" and whose token (or key pair) it carried.
 */
export async function otherApplicationsAnswers(ctx: CheckContext): Promise<Answer[]> {
  const others = judgedApplications(ctx).filter((a) => a.who !== 'app');
  const theirs = await Promise.all(
    others.flatMap((a) => [
      // /auth is asked with the application's key pair, not with a token (§4 endpoint 1).
      ctx.api
        .authAnswer(a.who)
        .then((reply) => (reply ? [{ request: `GET ${AUTH_PATH} with ${a.who}'s key pair`, reply }] : [])),
      ...['/merchant', ...LIST_PATHS].map((p) =>
        ctx.api.get(p, a.who).then((reply) => [{ request: `GET ${p}${a.suffix}`, reply }]),
      ),
    ]),
  );
  return theirs.flat();
}
