import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';

/** The folders whose exports are the code's vocabulary: every one says why it exists (schemas/ at its top only). */
const FOLDERS = ['core', 'suites', 'reporters', 'app', 'reference'];

/** The TypeScript sources of the scanned folders, as paths relative to the package root. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string, deep: boolean): void => {
    for (const e of readdirSync(join(packageRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory() && deep) walk(path, deep);
      else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const folder of FOLDERS) walk(folder, true);
  walk('schemas', false);
  return out.sort();
}

const hasDocComment = (node: ts.Node, text: string): boolean =>
  (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).some((c) => text.startsWith('/**', c.pos));

const isExported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The names a declaration statement exports ("a, b" for `export const a = 1, b = 2`). */
function declaredNames(node: ts.Statement): string[] {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => d.name.getText());
  const name = (node as ts.Statement & { name?: ts.Node }).name;
  return [name ? name.getText() : 'default'];
}

/**
 * Every exported declaration of a file without a `/** … *\/` comment right above it, as "file:line name". Overloads
 * and declaration merging count as one name, documented when any of its declarations is; `export { x }` of a local
 * declaration asks that declaration (or the export statement); what another module declares is its to document.
 */
function undocumentedExports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const documented = new Map<string, { line: number; doc: boolean }>();
  const note = (name: string, node: ts.Node, doc: boolean): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const seen = documented.get(name);
    documented.set(name, { line: seen?.line ?? line, doc: (seen?.doc ?? false) || doc });
  };
  const locals = new Map<string, ts.Statement[]>();
  for (const s of source.statements) {
    if (ts.isExportAssignment(s)) note('default', s, hasDocComment(s, text));
    else if (ts.isExportDeclaration(s)) continue;
    else if (isExported(s)) for (const name of declaredNames(s)) note(name, s, hasDocComment(s, text));
    else if (!ts.isImportDeclaration(s) && !ts.isExpressionStatement(s))
      for (const name of declaredNames(s)) locals.set(name, [...(locals.get(name) ?? []), s]);
  }
  for (const s of source.statements) {
    if (!ts.isExportDeclaration(s) || s.moduleSpecifier || !s.exportClause || !ts.isNamedExports(s.exportClause))
      continue;
    for (const el of s.exportClause.elements) {
      const local = locals.get((el.propertyName ?? el.name).text);
      // An imported name passed on is documented where it is declared.
      if (local) note(el.name.text, el, hasDocComment(s, text) || local.some((d) => hasDocComment(d, text)));
    }
  }
  return [...documented].filter(([, d]) => !d.doc).map(([name, d]) => `${file}:${d.line} ${name}`);
}

const missing = new Map(sources().map((f) => [f, undocumentedExports(f, readFileSync(join(packageRoot, f), 'utf8'))]));

test('every export has a doc comment saying why it exists', () => {
  const files = [...missing.keys()];
  // The scan sees the code base: it found the folders' files and the exports in them.
  expect(files.length).toBeGreaterThan(100);
  expect(files).toContain('core/transport/http.ts');
  expect(
    [...missing].flatMap(([, names]) => names),
    'exports without a /** doc comment */: say in a line or two why each exists or what it is for',
  ).toEqual([]);
});

test('the scan tells a documented export from an undocumented one', () => {
  const text = [
    '/** Why. */',
    'export const a = 1;',
    'export function b(): void {}',
    '// A line comment is no doc comment.',
    'export interface C {}',
    '/** One overload documents the name. */',
    'export function d(x: string): void;',
    'export function d(x: number): void;',
    'export function d(x: unknown): void {}',
    'const e = 2;',
    'export { e };',
    "export { f } from './f.js';",
    "import { g } from './g.js';",
    'export { g };',
  ].join('\n');
  expect(undocumentedExports('x.ts', text)).toEqual(['x.ts:3 b', 'x.ts:5 C', 'x.ts:11 e']);
});
