import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

/**
 * undici's Agent, loaded alone: the package's index loads every part of undici (mock agents, caches, fetch,
 * WebSocket: 65 ms of CPU to load against 22 ms for the Agent alone, in each of a run's two processes), and the HTTP
 * client dispatches through the Agent only.
 * test/undici-agent.test.ts checks that it is the class the package exports.
 */
export const Agent = createRequire(import.meta.url)('undici/lib/dispatcher/agent') as typeof UndiciAgent;
/** An instance of undici's Agent. */
export type Agent = UndiciAgent;
