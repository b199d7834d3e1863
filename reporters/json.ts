import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Report } from '../core/report.js';

/** report.json: the whole result model; the other reports and `conformance diff` read it back. */
export async function writeJsonReport(report: Report, dir: string): Promise<string> {
  const file = join(dir, 'report.json');
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
