import fc from 'fast-check';
import { expect, test } from 'vitest';
import { chainAnswered, Gate, requestChain } from '../core/transport/pacing.js';

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

test('a chain further along is served before one that has just begun; first come first served within a priority', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 40 }), async (progress) => {
      const gate = new Gate(1);
      await gate.enter(); // the one slot is taken: every chain below waits
      const order: number[] = [];
      const waiting = progress.map(async (answered, i) => {
        const chain = requestChain();
        for (let k = 0; k < answered; k++) chainAnswered(chain);
        await gate.enter(chain);
        order.push(i);
        gate.leave();
      });
      gate.leave();
      await Promise.all(waiting);
      // Served by answers so far (capped: far along is far along), then in the order they came.
      const rank = (i: number): number => Math.min(progress[i]!, 7);
      const expected = progress.map((_, i) => i).sort((a, b) => rank(b) - rank(a) || a - b);
      expect(order).toEqual(expected);
    }),
    { numRuns: 50 },
  );
});
