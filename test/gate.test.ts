import fc from 'fast-check';
import { expect, test } from 'vitest';
import { Gate } from '../core/transport/pacing.js';

test('the gate wakes its waiters in order, never lets more than its limit in, through a queue that never empties', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 5000 }), async (limit, n) => {
      const gate = new Gate(limit);
      let inside = 0;
      let most = 0;
      const order: number[] = [];
      // Every request enters at once: the queue stays non-empty until the last, past the point where it compacts.
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          await gate.enter();
          order.push(i);
          most = Math.max(most, ++inside);
          await Promise.resolve();
          inside--;
          gate.leave();
        }),
      );
      expect(order).toEqual(Array.from({ length: n }, (_, i) => i));
      expect(most).toBe(Math.min(limit, n));
    }),
    { numRuns: 30 },
  );
});
