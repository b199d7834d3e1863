import type { Mutant } from './types.js';
import { authMutants } from './auth.js';
import { envelopeMutants, resourceMutants } from './envelope.js';

export type { Mutant };

/** Every broken variant of the reference server; the mutation test runs the suite against each. */
export const MUTANTS: Mutant[] = [...authMutants, ...envelopeMutants, ...resourceMutants];
