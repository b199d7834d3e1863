import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';
import { FORMATS } from '../core/spec/schema-formats.js';

/** The folders whose code ships (package.json `files`), and bin/. */
const SHIPPED = ['bin', 'core', 'app', 'suites', 'reporters', 'reference'];

/**
 * Subpaths that packages without an `exports` map document as entry points: ajv's draft 2020-12 class and its
 * standalone code generator (ajv.js.org, "JSON Schema draft 2020-12" and "Standalone validation code").
 */
const DOCUMENTED: Record<string, string[]> = { ajv: ['dist/2020.js', 'dist/standalone/index.js', 'package.json'] };

/**
 * Known exceptions, each with its reason; the coordinator's call. undici has no exports map and its index loads all
 * of undici (65 ms of CPU against 22 ms for the Agent alone, medians of 8 alternating loads, 2026-11-28; both
 * processes of a run load it, so about 85 ms a run); core/transport/undici-agent.ts loads its Agent alone, and
 * test/undici-agent.test.ts pins that it is the class the index exports.
 */
const EXCEPTIONS = new Set(['undici/lib/dispatcher/agent']);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(packageRoot, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(`${dir}/${e.name}`)
      : /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts')
        ? [`${dir}/${e.name}`]
        : [],
  );
}

/** Whether `subpath` of `pkg` is an entry its package.json `exports` map (keys and `*` patterns) names. */
function exported(pkg: string, subpath: string): boolean {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'node_modules', pkg, 'package.json'), 'utf8')) as {
    exports?: unknown;
  };
  if (DOCUMENTED[pkg]?.includes(subpath)) return true;
  if (typeof manifest.exports !== 'object' || manifest.exports === null) return false;
  return Object.keys(manifest.exports).some((key) => {
    const [head, tail] = key.split('*') as [string, string | undefined];
    const wanted = `./${subpath}`;
    return tail === undefined
      ? key === wanted
      : wanted.startsWith(head) && wanted.endsWith(tail) && wanted.length >= head.length + tail.length;
  });
}

test('the shipped code reaches other packages through their public entry points only', () => {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const packages = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
  const deep: string[] = [];
  for (const file of SHIPPED.flatMap(sourceFiles)) {
    const text = readFileSync(join(packageRoot, file), 'utf8');
    // Every string literal naming a package's subpath: import, import(), require and createRequire(…)(…) alike.
    for (const [, pkg, subpath] of text.matchAll(/['"]((?:@[\w.-]+\/)?[\w.-]+)\/([^'"\s]+)['"]/g)) {
      if (!packages.includes(pkg!)) continue;
      const specifier = `${pkg}/${subpath}`;
      if (!EXCEPTIONS.has(specifier) && !exported(pkg!, subpath!)) deep.push(`${file}: ${specifier}`);
    }
  }
  expect(deep).toEqual([]);
});

// The schemas' two JSON Schema formats are judged without ajv-formats (whose table is no public entry point, and whose
// public one loads all of ajv): each agrees with ajv-formats wherever a base_url or a report's time can differ.
describe('"uri" and "date-time" without ajv-formats', () => {
  const ajvFormats = createRequire(import.meta.url)('ajv-formats') as {
    get(name: string): ((s: string) => boolean) | RegExp | { validate: ((s: string) => boolean) | RegExp };
  };
  const theirs = (name: string, s: string): boolean => {
    const got = ajvFormats.get(name);
    const f = typeof got === 'object' && 'validate' in got ? got.validate : got;
    return typeof f === 'function' ? f(s) : f.test(s);
  };

  test('date-time: RFC 3339, a real date, Z or an offset, a leap second', () => {
    const ours = FORMATS['date-time']!.validate;
    const cases: Array<[string, boolean]> = [
      ['2026-11-28T04:49:03.123Z', true],
      ['2026-11-28T04:49:03Z', true],
      ['2026-11-28t04:49:03z', true],
      ['2026-11-28 04:49:03+05:30', true],
      ['2024-02-29T00:00:00-01:00', true],
      ['2016-12-31T23:59:60Z', true],
      ['2026-02-29T00:00:00Z', false],
      ['2026-13-01T00:00:00Z', false],
      ['2026-11-28T24:00:00Z', false],
      ['2026-11-28T04:60:00Z', false],
      ['2026-11-28T04:49:03', false],
      ['2026-11-28T04:49Z', false],
      ['2026-11-28', false],
      ['2026-11-28T04:49:03.Z', false],
      ['2026-11-28T04:49:03+0530', true],
      ['2026-11-28T04:49:03+05', true],
      ['2026-11-28T04:49:03+24:00', false],
      ['2026-11-28T04:49:03+05:60', false],
      ['2016-12-31T18:59:60-05:00', true],
      ['2016-12-31T22:59:60Z', false],
      ['', false],
    ];
    for (const [s, ok] of cases) {
      expect(ours(s), s).toBe(ok);
      expect(theirs('date-time', s), `ajv-formats on ${s}`).toBe(ok);
    }
  });

  test('uri: an absolute URI with a scheme, no white space', () => {
    const ours = FORMATS.uri!.validate;
    const cases: Array<[string, boolean]> = [
      ['https://api.example.com/open', true],
      ['http://127.0.0.1:8080/open?x=1#y', true],
      ['https://[::1]:8443/open', true],
      ['https://user@host.example/', true],
      ['urn:isbn:0451450523', true],
      ['/open', false],
      ['api.example.com/open', false],
      ['https://api.example.com/o pen', false],
      [' https://api.example.com', false],
      ['https://exa mple.com', false],
      ['1http://x', false],
      ['', false],
    ];
    for (const [s, ok] of cases) {
      expect(ours(s), s).toBe(ok);
      expect(theirs('uri', s), `ajv-formats on ${s}`).toBe(ok);
    }
  });
});
