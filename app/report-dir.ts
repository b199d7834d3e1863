import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Config } from '../core/config/config.js';
import type { Report } from '../core/model/report.js';
import { ATTESTATION_FILE, BADGE_FILE } from '../core/model/attestation.js';
import { REPORT_FILES, writeReports } from '../reporters/index.js';
import { removeStaleTemps } from '../core/base/atomic-file.js';

/**
 * Writes the run's reports; the directory holds one run: a report file of ours that this run does not write (a
 * format not chosen this time) is removed, and so are an earlier run's attestation and badge at their default names
 * (they vouch for a report that is gone), and the temp files a write of these killed before its rename left; no other
 * file is touched.
 */
export async function writeReportDir(report: Report, config: Pick<Config, 'report'>): Promise<string[]> {
  const dir = resolve(config.report.dir);
  await mkdir(dir, { recursive: true });
  // What a run killed mid-write left (core/base/atomic-file.ts) goes with the files it would have replaced.
  await removeStaleTemps(dir, [...Object.values(REPORT_FILES), ATTESTATION_FILE, BADGE_FILE]);
  const files = await writeReports(report, dir, config.report.formats);
  for (const name of Object.values(REPORT_FILES))
    if (!files.includes(join(dir, name))) await rm(join(dir, name), { force: true });
  for (const name of [ATTESTATION_FILE, BADGE_FILE]) await rm(join(dir, name), { force: true });
  return files;
}
