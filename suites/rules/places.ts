import { AUTH_PATH, DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { PATH_WAYS } from '../support/token-probes.js';
import type { Place } from './model.js';

/** A request to an endpoint as the matrix names it: "GET /dishes/:id". */
export const get = (path: string): Place => `GET ${path}`;

/** GET of endpoint 1. */
export const AUTH: Place = get(AUTH_PATH);

/** GET of each data endpoint (2–7), in §4's order. */
export const DATA: readonly Place[] = DATA_ENDPOINTS.map((ep) => get(ep.path));

/** Endpoints 1–7. */
export const ENDPOINTS: readonly Place[] = [AUTH, ...DATA];

/** The list endpoints 3, 5, 7. */
export const LISTS: readonly Place[] = DATA_ENDPOINTS.filter((ep) => ep.list && ep.name !== 'merchant').map((ep) =>
  get(ep.path),
);

/** The detail endpoints 4 and 6. */
export const DETAILS: readonly Place[] = DATA_ENDPOINTS.filter((ep) => ep.of).map((ep) => get(ep.path));

/** An unknown interface (§7 404). */
export const UNKNOWN_INTERFACE: Place = 'GET of an unknown interface';

/** A data endpoint's path as a path way spells it, the id placeholder kept: "/%64ishes/:id". */
export function variantPath(wayName: string, path: string): string {
  const way = PATH_WAYS.find((w) => w.name === wayName)!;
  return way.path(path).replace(/:ID$/, ':id');
}

/** The path variants of every data endpoint, by way (support/token-probes.ts PATH_WAYS), in §4's order. */
export const PATH_VARIANTS: ReadonlyArray<{ way: string; endpoint: number; place: Place }> = PATH_WAYS.flatMap((w) =>
  DATA_ENDPOINTS.map((ep, endpoint) => ({ way: w.name, endpoint, place: get(variantPath(w.name, ep.path)) })),
);

/** HEAD of each data endpoint: §4 defines GET, and a router may answer HEAD with the GET handler. */
export const HEADS: readonly Place[] = DATA_ENDPOINTS.map((ep) => `HEAD ${ep.path}`);

/** A member of an answer: "GET /orders (dishes[].pivot)". */
export const member = (path: string, where: string): Place => `${get(path)} (${where})`;

/** Sets of places a reader names in a word, largest first: docs/rules.md writes the name where a list holds all. */
export const NAMED_PLACES: ReadonlyArray<{ label: string; places: readonly Place[] }> = [
  { label: 'every path variant of every data endpoint', places: PATH_VARIANTS.map((v) => v.place) },
  { label: 'endpoints 1–7', places: ENDPOINTS },
  { label: 'data endpoints 2–7', places: DATA },
  { label: 'HEAD of data endpoints 2–7', places: HEADS },
  ...[...new Set(PATH_VARIANTS.map((v) => v.way))].map((way) => ({
    label: `data endpoints 2–7, ${way}`,
    places: PATH_VARIANTS.filter((v) => v.way === way).map((v) => v.place),
  })),
  { label: 'the lists (3, 5, 7)', places: LISTS },
  { label: 'the details (4, 6)', places: DETAILS },
];
