import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from '../../core/model/check.js';
import type { Config } from '../../core/config/config.js';
import { runChecks } from '../../core/engine/engine.js';
import type { CheckRecord } from '../../core/model/report.js';
import { RecordedSource, type RecordedExchange } from '../../core/session/recorded-source.js';
import type { CheckRecordings as Stored } from '../../app/check-recordings.js';

/** Where each check's recordings live: <check id>.json, written by `npm run recordings` (app/check-recordings.ts). */
export const RECORDINGS_DIR = join(import.meta.dirname, 'recordings');

/** A check's recordings as read: none at all for a check that has none yet. */
export type CheckRecordings = Partial<Stored>;

/** Every fail recording of a check: against its first mutant, then one per further mutant. */
export function failsOf(rec: CheckRecordings): NonNullable<CheckRecordings['fail']>[] {
  return [...(rec.fail ? [rec.fail] : []), ...(rec.others ?? [])];
}

/**
 * A check's recordings, read once per test file and frozen: the tests derive changed copies from them, and a test
 * that changed them in place would change them for the next (a frozen object throws instead). Read again on every
 * call, the larger files (UNAUTH-*, 2–3 MB) cost a test 3–6 s of reading and parsing.
 */
export function recordingsOf(id: string): CheckRecordings {
  let rec = readRecordings.get(id);
  if (!rec) {
    const file = join(RECORDINGS_DIR, `${id}.json`);
    rec = deepFreeze(existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CheckRecordings) : {});
    readRecordings.set(id, rec);
  }
  return rec;
}
const readRecordings = new Map<string, CheckRecordings>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Runs one check over recorded exchanges through the engine: nothing is sent, whatever the check asks for. */
export async function replay(
  check: Check,
  config: Config,
  exchanges: readonly RecordedExchange[],
): Promise<CheckRecord> {
  const { records } = await runChecks(config, [check], (r) => new RecordedSource(exchanges, config.base_url, r));
  return records[0]!;
}
