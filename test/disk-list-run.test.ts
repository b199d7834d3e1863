import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli, type CliRun } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { MUTANTS } from '../reference/mutants/index.js';

/**
 * Lists read record by record from their spilled file (core/transport/disk-list.ts) judge exactly as lists parsed whole: the
 * same outcomes, messages and notes, failures included. The threshold (256 MiB) is lowered for the second run, so a
 * merchant whose /orders (about 17 MB) spills to disk has it read as a disk list.
 */
const SIZE = { dishes: 1_500, seats: 60, orders: 12_000, dishesPerOrder: 3 };
// Mutants that break the orders: seat ids, an embedded seat and dish, references their lists lack.
const BROKEN = [
  'cons-order-seat-id',
  'cons-order-seat-differs',
  'cons-embedded-dish-price',
  'unlisted-records-in-old-orders',
];

let srv: RunningServer;
beforeAll(async () => {
  srv = await startReferenceServer({
    https: true,
    size: SIZE,
    variants: MUTANTS.filter((m) => BROKEN.includes(m.name)),
  });
});
afterAll(() => srv.close());

/**
 * What a run judged: every check's outcome, and the message and notes of all but the INFO ones (they time things).
 * A GET sent again after its kept-alive connection closed is the network's doing (a loaded machine), noted, not judged.
 */
const judged = (run: CliRun) =>
  run.report!.checks.map((c) => ({
    id: c.id,
    outcome: c.outcome,
    ...(c.level === 'INFO'
      ? {}
      : { message: c.message, notes: c.notes.filter((n) => !/; sent once more on a fresh connection/.test(n)) }),
  }));

test('a merchant whose lists spill: the same verdict read as disk lists as parsed whole', async () => {
  // A minute per request: on a loaded machine a 17 MB list (the mutants rewrite it per request) can take over 10 s.
  const args = targetArgs(srv, ['--max-details', '100', '--timeout-ms', '60000']);
  const whole = await runCli(args, { env: targetEnv, timeoutMs: 120_000 });
  const disk = await runCli(args, { env: { ...targetEnv, CONFORMANCE_DISK_LIST_BYTES: '1' }, timeoutMs: 120_000 });
  expect(whole.report, whole.stderr).toBeDefined();
  expect(disk.report, disk.stderr).toBeDefined();
  expect(judged(disk)).toEqual(judged(whole));
  expect(disk.code).toBe(whole.code);
  // The orders' checks found what the mutants broke (so the comparison covers failures, not only passes).
  const failed = whole.report!.checks.filter((c) => c.outcome === 'failed').map((c) => c.id);
  expect(failed).toEqual(expect.arrayContaining(['CONS-07', 'CONS-10', 'CONS-12']));
}, 300_000);
