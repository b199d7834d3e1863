import type { CheckContext } from '../../core/model/check.js';
import type { Reply } from '../../core/transport/exchange.js';
import { DETAIL_RESOURCES, LIST_PATHS, type Resource, type Who } from '../../core/spec/resources.js';
import { AUTH_PATH, detailPath } from '../../core/spec/endpoints.js';
import { Blocked } from '../../core/session/check-errors.js';
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
 * only used as isolation data): each one's /auth answer, /merchant, lists and (#35) a detail of each resource at its
 * own first listed id, as app's are read, all shared requests, so a check that judges them sends nothing the
 * isolation checks have not (ISO-04 reads that application's details). `request` is "GET /path" and whose token
 * (or key pair) it carried.
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
      ...DETAIL_RESOURCES.map(async (resource) => {
        const path = await firstDetailPath(ctx, resource, a.who);
        return path ? [{ request: `GET ${path}${a.suffix}`, reply: await ctx.api.get(path, a.who) }] : [];
      }),
    ]),
  );
  return theirs.flat();
}

/** The detail path of an application's first listed record, or undefined with a note (no list, or an empty one). */
async function firstDetailPath(ctx: CheckContext, resource: Resource, who: Who): Promise<string | undefined> {
  let id: unknown;
  try {
    id = (await ctx.api.list(`/${resource}`, who))[0]?.id;
  } catch (e) {
    if (!(e instanceof Blocked)) throw e;
    ctx.note(`GET /${resource}/:id with ${who}'s token not called: ${e.message}`);
    return undefined;
  }
  if (id === undefined) {
    ctx.note(`GET /${resource}/:id with ${who}'s token not called: its GET /${resource} is empty, no real id to call`);
    return undefined;
  }
  return detailPath(resource, encodeURIComponent(String(id)));
}
