import fc from 'fast-check';
import { expect, test } from 'vitest';
import { requestTarget } from '../core/transport/transfer.js';

const chars = fc.constantFrom(...'abcXYZ019/_~%=&?+-.#@:;, "<>^`{|}\\é😀'.split(''));

test('requestTarget: origin and path with query exactly as new URL() gives them, on the last origin or any other', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('https://127.0.0.1:8443', 'http://Example.COM:80', 'https://h.example', 'https://h.example:443'),
      fc.array(fc.string({ unit: chars }), { minLength: 1, maxLength: 4 }),
      (origin, paths) => {
        for (const p of paths) {
          const url = `${origin}/${p}`;
          const u = new URL(url);
          expect(requestTarget(url)).toEqual({ origin: u.origin, path: u.pathname + u.search });
        }
      },
    ),
    { numRuns: 3000 },
  );
});
