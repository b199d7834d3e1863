import type { Mutant } from './types.js';
import { onPath, withBody } from '../kit.js';
import { bomBodies } from '../wire-variants.js';

/** Broken success envelopes (§2.1), each caught by exactly its `kills`. */
export const envelopeMutants: Mutant[] = [
  {
    ...onPath('code-as-string', 'Success answers of /merchant carry code "200" (a string)', ['/merchant'], (r) =>
      withBody(r, (b) => {
        if (b.code === 200) b.code = '200';
      }),
    ),
    kills: ['ENV-01'],
  },
  {
    ...onPath('status-lowercase', 'Success answers of /orders carry status "success"', ['/orders'], (r) =>
      withBody(r, (b) => {
        if (b.status === 'SUCCESS') b.status = 'success';
      }),
    ),
    kills: ['ENV-01'],
  },
  {
    ...onPath('msg-on-success', 'Success answers of /dishes carry msg "ok"', ['/dishes'], (r) =>
      withBody(r, (b) => {
        if (b.status === 'SUCCESS') b.msg = 'ok';
      }),
    ),
    kills: ['ENV-02'],
  },
  {
    // ENV-01 judges the second merchant's answers too (#27): its list alone breaks the envelope.
    name: 'other-merchant-seats-code-as-string',
    description: 'Success answers of /seats to the second merchant\'s application carry code "200" (a string)',
    kills: ['ENV-01'],
    handle: (req, next) => {
      const r = next();
      return req.path === '/seats' && req.merchant?.id === 2
        ? withBody(r, (b) => {
            if (b.code === 200) b.code = '200';
          })
        : r;
    },
  },
  // RFC 8259 §8.1: a JSON sender MUST NOT add a byte order mark; the client reads the JSON after it.
  // Errors too: ERR-04 and AUTH-07 judge an error's bytes as a success's (#35).
  { ...bomBodies, kills: ['ENV-01', 'ERR-04', 'AUTH-07'] },
];
