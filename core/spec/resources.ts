/**
 * The API's vocabulary, in one table: each record kind §4 serves, with its names, schema, paths and endpoint numbers.
 * Endpoint tables, list and detail paths, nouns in messages and OpenAPI operation names are all derived from it.
 */
import type { SchemaName } from './schemas.js';

/** One record kind of §2 as §4 serves it. */
export interface ResourceEntry {
  /** One record, as messages and fingerprints name it ("dish 17"); also the name of its detail endpoint. */
  readonly noun: string;
  /** Its JSON Schema (schemas/) and the section of §2 that defines it. */
  readonly schema: SchemaName;
  readonly section: string;
  /** The path §4 serves it at, and that endpoint's number. */
  readonly path: string;
  readonly endpoint: number;
  /** Served as a list of all the merchant's records; otherwise as one record (the merchant). */
  readonly list: boolean;
  /** The endpoint that answers one record by id (§4 endpoints 4 and 6), where there is one. */
  readonly detail?: {
    readonly endpoint: number;
    /** The path parameter's name where one is named (OpenAPI), and the field orders carry the id in. */
    readonly idField: string;
    /** Prefix of the ids of its area's shape checks: <prefix>-01 the list's shape, <prefix>-02 a detail's. */
    readonly checks: string;
    /** An id of the reference fixtures, shown as the example of the OpenAPI path parameter. */
    readonly example: string;
  };
}

/** §4's data endpoints 2–7 by record kind, keyed by the list's name (also the area of its checks). */
export const RESOURCES = {
  merchant: { noun: 'merchant', schema: 'merchant', section: '§2.5', path: '/merchant', endpoint: 2, list: false },
  dishes: {
    noun: 'dish',
    schema: 'dish',
    section: '§2.2',
    path: '/dishes',
    endpoint: 3,
    list: true,
    detail: { endpoint: 4, idField: 'dish_id', checks: 'DISH', example: '101' },
  },
  seats: {
    noun: 'seat',
    schema: 'seat',
    section: '§2.3',
    path: '/seats',
    endpoint: 5,
    list: true,
    detail: { endpoint: 6, idField: 'seat_id', checks: 'SEAT', example: '11' },
  },
  orders: { noun: 'order', schema: 'order', section: '§2.4', path: '/orders', endpoint: 7, list: true },
} as const satisfies Record<string, ResourceEntry>;

type Table = typeof RESOURCES;

/** Any record kind §4 serves: merchant, dishes, seats, orders. */
export type ResourceName = keyof Table;

/** A resource with a list and a detail endpoint (§4 endpoints 3–6): dishes, seats. */
export type Resource = { [K in ResourceName]: Table[K] extends { detail: object } ? K : never }[ResourceName];

/** One record of a resource with a detail endpoint, as messages name it: dish, seat. */
export type Noun = Table[Resource]['noun'];

/** The path of a list endpoint: /dishes, /seats, /orders. */
export type ListPath = {
  [K in ResourceName]: Table[K] extends { list: true } ? Table[K]['path'] : never;
}[ResourceName];

const names = Object.keys(RESOURCES) as ResourceName[];

/** The resources with a detail endpoint, in §4's order. */
export const DETAIL_RESOURCES = names.filter((r): r is Resource => 'detail' in RESOURCES[r]);

/** The path of every data endpoint that is not a detail (the merchant and the lists), in §4's order. */
export const RESOURCE_PATHS = names.map((r) => RESOURCES[r].path);

/** The list endpoints' paths, in §4's order. */
export const LIST_PATHS = names
  .map((r) => RESOURCES[r])
  .filter((e) => e.list)
  .map((e) => e.path as ListPath);

/** The noun of a resource's records: nounOf('dishes') is 'dish'. */
export const nounOf = (resource: Resource): Noun => RESOURCES[resource].noun;

/** "GET /dishes/17 as other_app" → "GET /dishes/:id as other_app": one label per endpoint, not per record. */
export function endpointLabel(request: string): string {
  return request.replace(DETAIL_REQUEST, '$1/:id');
}
const DETAIL_REQUEST = new RegExp(`^(\\w+ (?:${DETAIL_RESOURCES.map((r) => RESOURCES[r].path).join('|')}))/\\S+`);

/** Which configured application's token a request carries: the run's own, or the second application's (§5.5). */
export type Who = 'app' | 'other_app';

/** The detail of every listed record of a resource, read with one application's token: e.g. "dishes:app". */
export type Sweep = `${Resource}:${Who}`;
