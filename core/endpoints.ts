import type { SchemaName } from './schemas.js';

/** §4's endpoint table: the data endpoints 2–7 and what each answers. */
export interface Endpoint {
  n: number;
  name: 'merchant' | 'dishes' | 'dish' | 'seats' | 'seat' | 'orders';
  /** Path with :id for detail endpoints. */
  path: string;
  schema: SchemaName;
  list: boolean;
  /** For detail endpoints: the list endpoint whose ids it takes. */
  of?: 'dishes' | 'seats';
}

export const DATA_ENDPOINTS: Endpoint[] = [
  { n: 2, name: 'merchant', path: '/merchant', schema: 'merchant', list: false },
  { n: 3, name: 'dishes', path: '/dishes', schema: 'dish', list: true },
  { n: 4, name: 'dish', path: '/dishes/:id', schema: 'dish', list: false, of: 'dishes' },
  { n: 5, name: 'seats', path: '/seats', schema: 'seat', list: true },
  { n: 6, name: 'seat', path: '/seats/:id', schema: 'seat', list: false, of: 'seats' },
  { n: 7, name: 'orders', path: '/orders', schema: 'order', list: true },
];


export const AUTH_PATH = '/auth';

/** An id as the server wrote it: a number, an exact bigint past 2^53 (src/exact-json.ts), or a string. */
export type RecordId = string | number | bigint;

/** The detail path of a record; a bigint prints its exact digits. */
export function detailPath(resource: 'dishes' | 'seats', id: RecordId): string {
  return `/${resource}/${id}`;
}
