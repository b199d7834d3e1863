import type { Check } from '../src/check.js';
import { AREAS } from '../src/check.js';
import { authChecks } from './auth.js';
import { envelopeChecks } from './envelope.js';
import { resourceChecks } from './resources.js';

/** Every check of the suite, in the order a vendor would fix things (by area, then as declared). */
export const ALL_CHECKS: Check[] = [...authChecks, ...envelopeChecks, ...resourceChecks]
  .map((c, i) => ({ c, i }))
  .sort((a, b) => AREAS.indexOf(a.c.area) - AREAS.indexOf(b.c.area) || a.i - b.i)
  .map(({ c }) => c);
