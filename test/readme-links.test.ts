import { expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/base/paths.js';

// The README is the manual of the installed package: every file it points at must be in the tarball. The shipped set
// comes from package.json `files` and the work tree (npm pack --dry-run would cost seconds); test/pack.test.ts checks
// the links of the real tarball's README end to end.

const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { files: string[] };
// npm ships these whatever `files` says.
const ALWAYS = ['package.json', 'README.md', 'LICENSE'];
const entries = [...pkg.files, ...ALWAYS].filter((f) => !f.startsWith('!')).map((f) => f.replace(/^\.\//, ''));
// `files` entries that take paths out again ("!dist/app/rules-doc.*", "!dist/reference/mutants/"), as npm reads them.
const excluded = pkg.files
  .filter((f) => f.startsWith('!'))
  .map(
    (f) =>
      new RegExp(
        `^${f
          .slice(1)
          .replace(/[.+?^$()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')}${f.endsWith('/') ? '' : '(/|$)'}`,
      ),
  );
// A path names a file of the repository when its first segment is one of the repository's top-level entries; other
// names in the README are the user's (`known-failures.yaml`, `conformance-report/`, `.github/actions/…`); a path
// out of the package (`../`) never ships.
// The repository's own entries: what git tracks, not what a run left in the clone (the demo's conformance-report/,
// which a contributor's `npx conformance --demo` before `npm test` writes there).
const topLevel = new Set(
  execFileSync('git', ['ls-files'], { cwd: packageRoot, encoding: 'utf8' })
    .split('\n')
    .map((f) => f.split('/')[0]!)
    .filter((n) => n && !n.startsWith('.')),
);

/** Whether `ref` (a path relative to the package root, a folder when it ends in `/`) is in the packed tarball. */
function shipped(ref: string): boolean {
  const path = ref.replace(/^\.\//, '').replace(/\/$/, '');
  if (excluded.some((x) => x.test(path) || x.test(`${path}/`))) return false;
  return entries.some((e) => {
    const entry = e.replace(/\/$/, '');
    if (e.endsWith('/') && path.startsWith(`${entry}/`)) {
      // dist/ is built, not committed: trust the folder entry; elsewhere the file must exist.
      return path.startsWith('dist/') || existsSync(join(packageRoot, path));
    }
    // The entry itself, or a folder that holds shipped entries (`dist/`).
    return path === entry || entry.startsWith(`${path}/`);
  });
}

/** Every relative link target and every path of a repository file the README names outside its code blocks. */
function fileReferences(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  // Images stay in the repository (the README shows them where it is read from a clone or the repository).
  const links = [...prose.matchAll(/(?<!!\[[^\]]*)\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/.test(l) && !/\.(png|jpe?g|gif|svg|webp)$/.test(l));
  const named = [...prose.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((s) => /^[\w.-]+(\/[\w.*-]*)*$/.test(s) && (topLevel.has(s.split('/')[0]!) || s.startsWith('../')))
    .filter((s) => s.includes('/') || /\.\w+$/.test(s));
  return [...new Set([...links, ...named])];
}

test('every file the README points at ships in the package (package.json `files`)', () => {
  const refs = fileReferences(readFileSync(join(packageRoot, 'README.md'), 'utf8'));
  // The parse finds what it is meant to: the README links its config example and names its schemas.
  expect(refs).toContain('config.example.yaml');
  expect(refs).toContain('schemas/config.schema.json');
  expect(
    refs.filter((r) => !shipped(r)),
    'README.md points at files the package does not ship: name a shipped file, or move the text to CONTRIBUTING.md',
  ).toEqual([]);
});

test('the shipped-file rule itself tells a shipped file from one that is not', () => {
  expect(shipped('schemas/config.schema.json')).toBe(true);
  expect(shipped('dist/app/vitest.js')).toBe(true);
  expect(shipped('examples/')).toBe(true);
  expect(shipped('core/transport/http.ts')).toBe(false);
  expect(shipped('test/library.test.ts')).toBe(false);
  expect(shipped('CONTRIBUTING.md')).toBe(false);
  expect(shipped('schemas/no-such.schema.json')).toBe(false);
  // What `files` takes out again: the workshop's modules and images.
  expect(shipped('dist/app/rules-doc.js')).toBe(false);
  expect(shipped('dist/reference/mutants/index.js')).toBe(false);
  expect(shipped('dist/reference/mutants/')).toBe(false);
  expect(shipped('docs/report-screenshot.png')).toBe(false);
  expect(shipped('docs/rules.md')).toBe(true);
  expect(shipped('dist/reference/server.js')).toBe(true);
  expect(fileReferences('see `../shared/spec.md` and [x](test/a.ts)\n```sh\nnode bench/x.js\n```\n')).toEqual([
    'test/a.ts',
    '../shared/spec.md',
  ]);
});
