import type { Mutant } from './types.js';
import { authMutants } from './auth.js';
import { envelopeMutants } from './envelope.js';
import { resourceMutants } from './resources.js';
import { errorMutants } from './errors.js';
import { readonlyMutants } from './readonly.js';
import { transportMutants } from './transport.js';
import { consistencyMutants } from './consistency.js';
import { isolationMutants } from './isolation.js';
import { fuzzMutants } from './fuzz.js';
import { credentialMutants } from './credentials.js';
import { branchMutants } from './branches.js';
import { waysErrorMutants } from './ways-errors.js';
import { dataWayMutants } from './ways-data.js';
import { fuzzWayMutants } from './ways-fuzz.js';
import { otherErrorMutants } from './ways-other-errors.js';
import { authWayMutants } from './ways-auth.js';
import { otherMerchantMutants } from './other-merchant.js';

export type { Mutant };

/** Every broken variant of the reference server; the mutation test runs the suite against each. */
export const MUTANTS: Mutant[] = [
  ...authMutants,
  ...envelopeMutants,
  ...resourceMutants,
  ...errorMutants,
  ...readonlyMutants,
  ...transportMutants,
  ...consistencyMutants,
  ...isolationMutants,
  ...fuzzMutants,
  ...credentialMutants,
  ...branchMutants,
  ...waysErrorMutants,
  ...dataWayMutants,
  ...fuzzWayMutants,
  ...otherErrorMutants,
  ...authWayMutants,
  ...otherMerchantMutants,
];
