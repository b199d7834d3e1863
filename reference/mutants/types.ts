import type { Variant } from '../server.js';

/**
 * A broken variant of the reference server, and the checks that must catch it: the run against it must fail
 * exactly these checks (MUST or SHOULD) and no other.
 */
export interface Mutant extends Variant {
  kills: string[];
}
