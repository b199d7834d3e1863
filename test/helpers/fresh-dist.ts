import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Whether dist/ is the build of the sources as they are now. The CLI the tests spawn runs dist/, so a test run right
 * after an edit would otherwise test the old code (and say `expected [] to deeply equal ['DISH-03']`).
 *
 * Decided by modification times, file by file: every source of tsconfig.build.json's `include` must have its .js and
 * .d.ts at least as new as itself, no output may outlive its source (a renamed module would still ship), and no
 * output may be older than the tsconfig files. A fresh tree costs one stat per file (a few milliseconds).
 */
export interface Staleness {
  stale: boolean;
  /** The first reasons, in words, for a message. */
  reasons: string[];
  /** Outputs whose source is gone: removed before a rebuild, since tsc never deletes. */
  orphans: string[];
}

const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

/** The source folders the build compiles (tsconfig.build.json's include). */
function includedFolders(root: string): string[] {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include?: string[] };
  return (config.include ?? []).filter((d) => existsSync(join(root, d)));
}

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(e.name)) out.push(path);
  }
  return out;
}

const isSource = (name: string): boolean => name.endsWith('.ts') && !name.endsWith('.d.ts');
const isOutput = (name: string): boolean => name.endsWith('.js') || name.endsWith('.d.ts');
const mtime = (path: string): number => statSync(path).mtimeMs;

/** Compares dist/ with the sources under root (see Staleness). */
export function distStaleness(root: string, maxReasons = 5): Staleness {
  const dist = join(root, 'dist');
  const reasons: string[] = [];
  const say = (text: string): void => {
    if (reasons.length < maxReasons) reasons.push(text);
  };
  const folders = includedFolders(root);
  const expected = new Set<string>();
  let stale = false;
  let count = 0;
  const configTime = Math.max(...CONFIGS.filter((c) => existsSync(join(root, c))).map((c) => mtime(join(root, c))));
  for (const source of folders.flatMap((d) => filesUnder(join(root, d), isSource))) {
    const base = join(dist, relative(root, source)).slice(0, -'.ts'.length);
    const sourceTime = mtime(source);
    const outs = [`${base}.js`, `${base}.d.ts`];
    for (const out of outs) expected.add(out);
    // One reason per source, the first that applies.
    const missing = outs.find((out) => !existsSync(out));
    const oldest = missing ? 0 : Math.min(...outs.map(mtime));
    const reason = missing
      ? `${relative(root, missing)} is missing`
      : oldest < sourceTime
        ? `${relative(root, source)} changed after its build`
        : oldest < configTime
          ? `a tsconfig changed after ${relative(root, source)} was built`
          : undefined;
    if (reason) {
      stale = true;
      count++;
      say(reason);
    }
  }
  // The build's second step: the validators compiled from schemas/ (a package with a build script has them).
  const schemas = join(root, 'schemas');
  if (buildCommand(root).shown === 'npm run build' && existsSync(schemas)) {
    const built = ['api', 'config', 'report', 'baseline', 'attestation'].map((g) =>
      join(dist, 'core', `schema-validators.${g}.cjs`),
    );
    const newest = Math.max(0, ...filesUnder(schemas, (n) => n.endsWith('.json')).map(mtime));
    const missing = built.find((f) => !existsSync(f));
    if (missing || Math.min(...built.map(mtime)) < Math.max(newest, configTime)) {
      stale = true;
      count++;
      say(missing ? `${relative(root, missing)} is missing` : 'a schema changed after the validators were built');
    }
  }
  const orphans = folders
    .filter((d) => existsSync(join(dist, d)))
    .flatMap((d) => filesUnder(join(dist, d), isOutput))
    .filter((out) => !expected.has(out));
  for (const o of orphans) {
    stale = true;
    count++;
    say(`${relative(root, o)} has no source any more`);
  }
  if (count > reasons.length) reasons.push(`${count - reasons.length} more`);
  return { stale, reasons, orphans };
}

/** How a root builds: its package's build script (tsc, then the precompiled schema validators), else tsc alone. */
function buildCommand(root: string): { file: string; args: string[]; shown: string } {
  const manifest = join(root, 'package.json');
  const scripts = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: Record<string, string> }).scripts
    : undefined;
  if (scripts?.build) return { file: 'npm', args: ['run', '--silent', 'build'], shown: 'npm run build' };
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  return { file: process.execPath, args: [tsc, '-p', 'tsconfig.build.json'], shown: 'tsc -p tsconfig.build.json' };
}

/**
 * Rebuilds dist/ when it is stale: removes the orphaned outputs and runs the build. Returns what it did in one line,
 * or undefined when dist/ was fresh; throws with the compiler's output when the build fails.
 */
export function ensureFreshDist(root: string): string | undefined {
  const s = distStaleness(root);
  if (!s.stale) return undefined;
  const why = s.reasons.join('; ');
  for (const o of s.orphans) rmSync(o, { force: true });
  const started = Date.now();
  const build = buildCommand(root);
  try {
    execFileSync(build.file, build.args, { cwd: root, stdio: 'pipe', encoding: 'utf8' });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    const out = stdout || stderr || (e as Error).message;
    const what = `dist/ is stale (${why}) and \`${build.shown}\` failed, so the tests would run old code`;
    throw new Error(`${what}:\n${out}`);
  }
  const n = s.orphans.length;
  const removed = n ? `; ${n} orphaned output${n > 1 ? 's' : ''} removed` : '';
  return `dist/ was stale (${why}${removed}): rebuilt in ${((Date.now() - started) / 1000).toFixed(1)} s`;
}
