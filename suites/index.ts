import type { Check } from '../core/model/check.js';
import { AREAS } from '../core/model/check.js';
import { authChecks } from './auth.js';
import { envelopeChecks } from './envelope.js';
import { resourceChecks } from './resources.js';
import { errorChecks } from './errors.js';
import { readonlyChecks } from './readonly.js';
import { transportChecks } from './transport.js';
import { consistencyChecks } from './consistency.js';
import { isolationChecks } from './isolation.js';
import { fuzzChecks } from './fuzz.js';
import { credentialChecks } from './credentials.js';

const profileRank = (c: Check): number => (c.id.startsWith('INFO-') ? 1 : 0);

/**
 * Every check of the suite, in the order a vendor would fix things: by area, the area's rules before its
 * implementation profile (the INFO-* observations), then as declared.
 */
export const ALL_CHECKS: Check[] = [
  ...authChecks,
  ...credentialChecks,
  ...envelopeChecks,
  ...resourceChecks,
  ...errorChecks,
  ...readonlyChecks,
  ...transportChecks,
  ...consistencyChecks,
  ...isolationChecks,
  ...fuzzChecks,
]
  .map((c, i) => ({ c, i }))
  .sort((a, b) => AREAS.indexOf(a.c.area) - AREAS.indexOf(b.c.area) || profileRank(a.c) - profileRank(b.c) || a.i - b.i)
  .map(({ c }) => c);
