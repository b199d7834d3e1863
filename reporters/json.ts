import { writeFileAtomic } from '../core/base/atomic-file.js';
import { join } from 'node:path';
import { VERDICT_WORD, type Report } from '../core/model/report.js';

/**
 * report.json: the whole result model; the other reports and `conformance diff` read it back. The verdict's words
 * are written right after the verdict, so whoever reads the file prints what every other output prints.
 */
export async function writeJsonReport(report: Report, dir: string): Promise<string> {
  const file = join(dir, 'report.json');
  const json = Object.fromEntries(
    // A report read back from a file carries the words it was written with: the verdict's own words replace them.
    Object.entries(report).flatMap(([k, v]) =>
      k === 'verdict'
        ? [[k, v] as const, ['verdict_word', VERDICT_WORD[report.verdict]] as const]
        : k === 'verdict_word'
          ? []
          : [[k, v] as const],
    ),
  );
  await writeFileAtomic(file, `${JSON.stringify(json, null, 2)}\n`);
  return file;
}
