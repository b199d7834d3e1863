import { createRequire } from 'node:module';
import { expect, test } from 'vitest';
import { Agent } from '../core/transport/undici-agent.js';

test("the client's Agent, loaded alone, is the class undici exports (a new undici layout fails here, not in a run)", () => {
  const undici = createRequire(import.meta.url)('undici') as typeof import('undici');
  expect(Agent).toBe(undici.Agent);
  expect(typeof new Agent().dispatch).toBe('function');
});
