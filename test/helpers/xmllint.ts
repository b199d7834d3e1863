import { tempDir } from './temp-dirs.js';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/base/paths.js';

export const JUNIT_XSD = join(packageRoot, 'schemas', 'junit.xsd');

/** Validates XML against the committed JUnit schema with xmllint (Debian's libxml2-utils; .ci/run installs it). */
export function xmllint(xml: string, xsd = JUNIT_XSD): { ok: boolean; out: string } {
  const file = join(tempDir('junit-'), 'junit.xml');
  writeFileSync(file, xml);
  const r = spawnSync('xmllint', ['--noout', '--schema', xsd, file], { encoding: 'utf8' });
  if (r.error) throw new Error(`xmllint is not installed (apt-get install libxml2-utils): ${r.error.message}`);
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
}
