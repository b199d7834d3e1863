import type { SchemaName } from './schemas.js';
import { RESOURCES, type Noun, type Resource, type ResourceName } from './resources.js';

/** §4's endpoint table: the data endpoints 2–7 and what each answers. */
export interface Endpoint {
  n: number;
  /** The list's (or the merchant's) name, or a detail endpoint's noun. */
  name: ResourceName | Noun;
  /** Path with :id for detail endpoints. */
  path: string;
  schema: SchemaName;
  list: boolean;
  /** For detail endpoints: the list endpoint whose ids it takes. */
  of?: Resource;
}

/** The data endpoints in §4's order, derived from the resource table: each list, then its detail. */
export const DATA_ENDPOINTS: Endpoint[] = (Object.keys(RESOURCES) as ResourceName[]).flatMap((name): Endpoint[] => {
  const r: (typeof RESOURCES)[ResourceName] = RESOURCES[name];
  const own: Endpoint = { n: r.endpoint, name, path: r.path, schema: r.schema, list: r.list };
  if (!('detail' in r)) return [own];
  const detail: Endpoint = { n: r.detail.endpoint, name: r.noun, path: `${r.path}/:id`, schema: r.schema, list: false };
  return [own, { ...detail, of: name as Resource }];
});

// Endpoint 1 of §4 is the auth scheme's: core/spec/auth-scheme.ts.
export { AUTH_PATH } from './auth-scheme.js';

/** An id as the server wrote it: a number, an exact bigint past 2^53 (core/base/exact-json.ts), or a string. */
export type RecordId = string | number | bigint;

/** The detail path of a record; a bigint prints its exact digits. */
export function detailPath(resource: Resource, id: RecordId): string {
  return `${RESOURCES[resource].path}/${id}`;
}
