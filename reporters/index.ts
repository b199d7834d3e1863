import type { ReportFormat } from '../core/config/config.js';
import type { Report } from '../core/model/report.js';
import { writeJsonReport } from './json.js';
import { writeJunitReport } from './junit.js';
import { writeHtmlReport } from './html.js';

type Writer = (report: Report, dir: string) => Promise<string>;

/** Report formats and their writers; each renders the same result model. */
const WRITERS: Record<ReportFormat, Writer> = {
  json: writeJsonReport,
  junit: writeJunitReport,
  html: writeHtmlReport,
};

/** The file each format writes in the report directory: the files a run owns there (and replaces or removes). */
export const REPORT_FILES: Record<ReportFormat, string> = {
  json: 'report.json',
  junit: 'junit.xml',
  html: 'report.html',
};

/** Writes the chosen formats into the report directory and returns the files written. */
export async function writeReports(report: Report, dir: string, formats: ReportFormat[]): Promise<string[]> {
  const files: string[] = [];
  // report.json is always written: baselines, diffs and merges read it.
  for (const f of new Set<ReportFormat>(['json', ...formats])) files.push(await WRITERS[f](report, dir));
  return files;
}
