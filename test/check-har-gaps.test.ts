import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { baseFixtures } from '../reference/fixtures.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

/**
 * Issue 38 item 7: check-har says what the recording lacks. A capture of ordinary traffic holds both merchants'
 * lists but never asks for merchant B's records with merchant A's token (no application does): ISO-01 is skipped
 * for that gap, named as such, not for ids B does not have. And a recording's timing line names no concurrency: the
 * recorder's is not known.
 */
test("a recording without any detail of merchant B's ids: ISO-01 names that gap, not missing ids; the timing line names no concurrency", async () => {
  const { dir, har } = await withServer([], async (srv) => {
    const live = await runCli([...targetArgs(srv), '--record-har', 'run.har'], { env: targetEnv });
    expect(live.report?.checks.find((c) => c.id === 'ISO-01')?.status).toBe('passed');
    return { dir: live.dir, har: join(live.dir, 'run.har') };
  });
  const fixtures = baseFixtures();
  const bDishes = fixtures.dishes.filter((d) => d.user_id === 2).map((d) => d.id);
  const bSeats = fixtures.seats.filter((s) => s.user_id === 2).map((s) => s.id);
  expect(bDishes.length && bSeats.length).toBeGreaterThan(0);
  const details = new Set([...bDishes.map((id) => `/open/dishes/${id}`), ...bSeats.map((id) => `/open/seats/${id}`)]);
  // A foreign capture (not this suite's own HAR): no _conformance block, and no request for one of B's records.
  const doc = JSON.parse(readFileSync(har, 'utf8')) as {
    log: { _conformance?: unknown; entries: Array<{ request: { url: string } }> };
  };
  delete doc.log._conformance;
  const before = doc.log.entries.length;
  doc.log.entries = doc.log.entries.filter((e) => !details.has(new URL(e.request.url).pathname));
  expect(doc.log.entries.length).toBeLessThan(before);
  const file = join(dir, 'capture.har');
  writeFileSync(file, JSON.stringify(doc));

  const off = await runCli(['check-har', file]);
  expect(off.stderr).toBe('');
  const byId = new Map(off.report!.checks.map((c) => [c.id, c]));
  const iso01 = byId.get('ISO-01')!;
  expect(iso01.status).toBe('skipped');
  expect(iso01.message).toBe(
    `blocked: the recording holds no detail answer (GET /dishes/{id}, GET /seats/{id}) for merchant B's dish ids (${bDishes.join(', ')}) or seat ids (${bSeats.join(', ')}), which merchant A's token must ask for: a live run asks, a capture of ordinary traffic does not`,
  );
  const timing = byId.get('INFO-TRANS-TIMING')!;
  expect(timing.message).toMatch(/^GET \/auth \d+ ms; .* — the first call of each$/);
  expect(timing.message).not.toMatch(/concurrency/);
}, 120_000);
