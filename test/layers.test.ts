import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';

/**
 * The layers of the code base and what each may import: schemas ← core ← suites, reporters, reference ← app.
 * test/ and bench/ may import anything and are not scanned. Every import counts, type-only ones too: a type import
 * still ties the two modules' meaning together, and it is how cycles start.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: ['core', 'schemas'],
  suites: ['suites', 'core', 'schemas'],
  reporters: ['reporters', 'core', 'schemas'],
  reference: ['reference', 'core', 'schemas'],
  app: ['app', 'suites', 'reporters', 'reference', 'core', 'schemas'],
};

/** Source files of the layers, as paths relative to the package root ("core/transport/http.ts"). */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(packageRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) out.push(path);
    }
  };
  for (const layer of Object.keys(MAY_IMPORT)) walk(layer);
  return out.sort();
}

/** Each file's relative imports (static, type-only, re-exports, dynamic import()), resolved to package paths. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(packageRoot, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(packageRoot, resolve(packageRoot, dirname(file), name)).replace(/\.js$/, '.ts'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

const layerOf = (path: string): string => path.split('/')[0]!;

/**
 * The core's sub-layers, lowest first: each folder may import itself and the folders before it, never one after.
 * base (package paths, exact JSON) ← spec (the spec's vocabulary, schemas, the auth scheme) ← config ← redact (what
 * may leave the process) ← transport (one HTTP client and its memory) ← session (shared requests, tokens,
 * recordings) ← model (checks, findings, the report) ← engine (runs checks into records).
 */
const CORE_SUB_LAYERS = ['base', 'spec', 'config', 'redact', 'transport', 'session', 'model', 'engine'] as const;

/** A core file's sub-layer ("core/transport/http.ts" → "transport"); undefined outside core/ or at its top. */
const subLayerOf = (path: string): string | undefined => {
  const parts = path.split('/');
  return parts[0] === 'core' && parts.length > 2 ? parts[1] : undefined;
};

/**
 * Files allowed to import Vitest: its adapter (library mode) alone. The CLI hosts the engine itself: no module of its
 * run (app/cli.ts, app/run-host.ts, app/checks-process.ts) may load Vitest, nor may the programmatic API.
 */
const VITEST_ADAPTERS =
  /^(app\/(vitest|vitest-reporter|vitest-version|result-collector)\.ts|suites\/declare-checks\.ts)$/;

/** Each file's bare imports (package names), for the rules on Vitest and on the package importing itself. */
function bareImports(files: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(packageRoot, file), 'utf8'), true, true);
    out.set(
      file,
      importedFiles.map((i) => i.fileName).filter((n) => !n.startsWith('.') && !n.startsWith('node:')),
    );
  }
  return out;
}

/** Every import cycle, each as one closed path "a.ts → b.ts → a.ts" through a strongly connected component. */
function cycles(graph: Map<string, string[]>): string[] {
  // Tarjan's strongly connected components; a component of two or more files (or a file importing itself) is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) components.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return components.map((component) => {
    // The shortest way back to the component's first file, found breadth first within the component.
    const members = new Set(component);
    const start = component[0]!;
    const came = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      for (const w of graph.get(v)!) {
        if (!members.has(w) || came.has(w)) continue;
        came.set(w, v);
        if (w === start) queue.length = 0;
        else queue.push(w);
      }
    }
    const back: string[] = [];
    for (let v = came.get(start)!; v !== start; v = came.get(v)!) back.push(v);
    return [start, ...back.reverse(), start].join(' → ');
  });
}

describe('layers', () => {
  const graph = importGraph(sources());

  test('scans every layer', () => {
    for (const layer of Object.keys(MAY_IMPORT)) expect([...graph.keys()].some((f) => layerOf(f) === layer)).toBe(true);
  });

  test('no layer imports a layer above it', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const allowed = MAY_IMPORT[layerOf(file)]!;
      for (const t of targets) {
        if (allowed.includes(layerOf(t))) continue;
        upward.push(`${file} imports ${t} (${layerOf(file)} may import ${allowed.join(', ')})`);
      }
    }
    expect(upward).toEqual([]);
  });

  test('every core file sits in a sub-layer, and no sub-layer imports one above it', () => {
    const loose = [...graph.keys()].filter((f) => layerOf(f) === 'core' && subLayerOf(f) === undefined);
    expect(loose).toEqual([]);
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = subLayerOf(file);
      if (from === undefined) continue;
      for (const t of targets) {
        const to = subLayerOf(t);
        const rank = (s: string | undefined): number => CORE_SUB_LAYERS.indexOf(s as (typeof CORE_SUB_LAYERS)[number]);
        if (to === undefined || rank(to) === -1 || rank(from) === -1 || rank(to) > rank(from))
          upward.push(
            `${file} imports ${t} (${from} may import ${CORE_SUB_LAYERS.slice(0, rank(from) + 1).join(', ')})`,
          );
      }
    }
    expect(upward).toEqual([]);
  });

  test('Vitest only in the adapters, and no file imports the package by its own name', () => {
    const name = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name: string }).name;
    const wrong: string[] = [];
    for (const [file, specs] of bareImports(sources())) {
      for (const s of specs) {
        if ((s === 'vitest' || s.startsWith('vitest/')) && !VITEST_ADAPTERS.test(file))
          wrong.push(`${file} imports ${s}`);
        if (s === name || s.startsWith(`${name}/`)) wrong.push(`${file} imports its own package as ${s}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('no import cycles, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  test('the cycle finder names a cycle', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
    ]);
    expect(cycles(g)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
    expect(cycles(new Map([['a.ts', ['a.ts']]]))).toEqual(['a.ts → a.ts']);
  });
});
