import type { ApiReply, ApiRequest, Variant, World } from './server.js';

type Rec = Record<string, unknown>;

/** Matches the API path (below the base path): /dishes, /dishes/:id (any id), /seats/:id, … */
export function pathIs(req: ApiRequest, pattern: string): boolean {
  if (!pattern.includes(':id')) return req.path === pattern;
  const [prefix] = pattern.split(':id');
  return (
    req.path.startsWith(prefix!) && req.path.length > prefix!.length && !req.path.slice(prefix!.length).includes('/')
  );
}

/** A reply is a success envelope: the variants alter only answers that carried data. */
export const isSuccess = (r: ApiReply): boolean => (r.body as Rec | undefined)?.status === 'SUCCESS';

/** A copy of a successful reply with its data changed (the world's cached data is never touched). */
export function withData(reply: ApiReply, change: (data: any) => unknown): ApiReply {
  if (!isSuccess(reply)) return reply;
  const body = structuredClone(reply.body) as Rec;
  const changed = change(body.data);
  if (changed !== undefined) body.data = changed;
  return { ...reply, body };
}

/** A copy of a reply with its whole envelope changed. */
export function withBody(reply: ApiReply, change: (body: any) => unknown): ApiReply {
  const body = structuredClone(reply.body) as Rec;
  const changed = change(body);
  return { ...reply, body: changed === undefined ? body : changed };
}

/** A variant that changes the answer of matching requests only. */
export function onPath(
  name: string,
  description: string,
  patterns: string[],
  change: (reply: ApiReply, req: ApiRequest, world: World) => ApiReply,
): Variant {
  return {
    name,
    description,
    handle: (req, next, world) => {
      const reply = next();
      return patterns.some((p) => pathIs(req, p)) ? change(reply, req, world) : reply;
    },
  };
}

/** Applies fn to one record or to each record of a list. */
export function eachRecord(data: unknown, fn: (r: any, i: number) => void): unknown {
  if (Array.isArray(data)) data.forEach((r, i) => fn(r, i));
  else if (data && typeof data === 'object') fn(data, 0);
  return data;
}

/**
 * A public key that is an application's respelled or cut (a prefix, another letter case, spaces around it): AUTH-07's
 * probes of the public key (#35), which a mutant of AUTH-08's unknown public key leaves alone.
 */
export function nearPublicKey(apps: ReadonlyArray<{ secret: string }>, secret: string): boolean {
  const s = secret.trim().toLowerCase();
  return s.length > 0 && apps.some((a) => a.secret.toLowerCase().startsWith(s));
}
