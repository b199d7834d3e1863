import type { CheckContext } from '../../core/model/check.js';
import { DATA_ENDPOINTS, type Endpoint } from '../../core/spec/endpoints.js';
import { Blocked } from '../../core/session/check-errors.js';
import type { Who } from '../../core/spec/resources.js';

/** The concrete path of an endpoint: a detail endpoint gets a real id taken from the application's list (§4). */
export async function endpointPath(ctx: CheckContext, ep: Endpoint, who: Who = 'app'): Promise<string> {
  if (!ep.of) return ep.path;
  const items = await ctx.api.list(`/${ep.of}`, who);
  const id = items[0]?.id;
  if (id === undefined) throw new Blocked(`GET /${ep.of} is empty, so ${ep.path} has no real id to call`);
  return ep.path.replace(':id', encodeURIComponent(String(id)));
}

/**
 * Concrete paths of all data endpoints 2–7. A detail endpoint whose list gave no id is left out with a note,
 * so a broken list does not hide what the other endpoints do (the list's own check reports it).
 */
export async function dataEndpointPaths(
  ctx: CheckContext,
  who: Who = 'app',
): Promise<Array<{ ep: Endpoint; path: string }>> {
  const out: Array<{ ep: Endpoint; path: string }> = [];
  for (const ep of DATA_ENDPOINTS) {
    try {
      out.push({ ep, path: await endpointPath(ctx, ep, who) });
    } catch (e) {
      if (!(e instanceof Blocked)) throw e;
      ctx.note(`${ep.path}${who === 'app' ? '' : ` with ${who}'s token`} not called: ${e.message}`);
    }
  }
  return out;
}
