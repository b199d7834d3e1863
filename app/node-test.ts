/**
 * The checks as tests of Node's own test runner (`node --test`), no dependency:
 *
 *   import { conformanceTests } from 'restaurant-open-platform-conformance/node-test';
 *   conformanceTests(() => ({ base_url: server.baseUrl, app: { secret, key } }), { report: { dir: 'conformance-report' } });
 *
 * One test per check over one shared session (app/api.ts), with the CLI's outcomes: a MUST failure, a check that
 * could not finish or an error of the suite fails its test; a SHOULD failure passes with a diagnostic; a check that
 * cannot run is skipped with its reason. With `report`, the CLI's report files are written once every check has ended.
 */
import { after, before, describe, test } from 'node:test';
import type { ReportFormat } from '../core/config/config.js';
import { VERDICT_WORD } from '../core/model/report.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';
import { testGroupsOf } from '../core/engine/engine.js';
import { ConformanceSession, type ConfigSource, type Selection } from './api.js';
import { writeReportDir } from './report-dir.js';

/** What conformanceTests takes beside the config. */
export interface NodeTestOptions extends Selection {
  /** Name of the enclosing describe block (default "conformance"). */
  name?: string;
  /** Writes the CLI's report files there once every check has ended (report.json, junit.xml, report.html). */
  report?: { dir: string; formats?: ReportFormat[] };
}

/**
 * Declares the conformance checks as node:test tests of the calling file. The config may be a function, called in the
 * suite's `before`, so it can name a server the file starts first; it is validated as the CLI validates a config
 * file (a bad key fails the suite's tests with one line).
 */
export function conformanceTests(config: ConfigSource, options: NodeTestOptions = {}): void {
  const name = options.name ?? 'conformance';
  const session = new ConformanceSession(config, options, 'conformanceTests');
  const all = new Set(session.selected.map((c) => c.id));
  describe(name, () => {
    before(async () => {
      await session.config();
    });
    after(async () => {
      await session.ended();
      if (!options.report) return;
      const report = await session.report({ mode: 'library (node:test)', suite: name });
      const files = await writeReportDir(report, {
        report: { dir: options.report.dir, formats: options.report.formats ?? ['json', 'junit', 'html'] },
      });
      process.stdout.write(
        `${untrustedLine(`Conformance: ${VERDICT_WORD[report.verdict]}: ${report.verdict_reason}; report: ${files[0]}`)}\n`,
      );
    });
    for (const group of testGroupsOf(session.selected))
      describe(group.name, { concurrency: true }, () => {
        for (const check of group.checks)
          test(`${check.id} ${check.title}`, async (t) => {
            const result = await session.record(check.id, () => all);
            // node:test prints these into the terminal and the CI log: they quote the server.
            const message = untrustedLine(result.message);
            if (result.status === 'skipped') return t.skip(message);
            if (
              result.status === 'error' ||
              result.status === 'incomplete' ||
              (result.status === 'failed' && check.level === 'MUST')
            )
              throw new Error(message);
            if (result.status === 'failed') t.diagnostic(`${check.level} not met (warning, does not gate): ${message}`);
          });
      });
  });
}
