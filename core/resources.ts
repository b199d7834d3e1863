/**
 * The resources of §4 that have a list and a detail endpoint, and whose credentials a request uses.
 */

/** Which configured application's token a request carries: the run's own, or the second application's (§5.5). */
export type Who = 'app' | 'other_app';

/** A resource with a list and a detail endpoint (§4 endpoints 3–6). */
export type Resource = 'dishes' | 'seats';

/** The detail of every listed record of a resource, read with one application's token: e.g. "dishes:app". */
export type Sweep = `${Resource}:${Who}`;
