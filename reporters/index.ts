import type { ReportFormat } from '../src/config.js';
import type { Report } from '../src/report.js';
import { writeJsonReport } from './json.js';
import { writeJunitReport } from './junit.js';
import { writeHtmlReport } from './html.js';

type Writer = (report: Report, dir: string) => Promise<string>;

/** Report formats and their writers; each renders the same result model. */
const WRITERS: Partial<Record<ReportFormat, Writer>> = {
  json: writeJsonReport,
  junit: writeJunitReport,
  html: writeHtmlReport,
};

export async function writeReports(report: Report, dir: string, formats: ReportFormat[]): Promise<string[]> {
  const files: string[] = [];
  // report.json is always written: baselines, diffs and merges read it.
  for (const f of new Set<ReportFormat>(['json', ...formats])) {
    const w = WRITERS[f];
    if (w) files.push(await w(report, dir));
  }
  return files;
}
