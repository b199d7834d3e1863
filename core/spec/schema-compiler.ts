import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, AnySchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import { FORMATS } from './schema-formats.js';
import { packageRoot, schemasDir } from '../base/paths.js';

/**
 * The one place that compiles the JSON Schemas of schemas/. The build compiles them once into a CommonJS module of
 * plain functions (ajv's standalone code, `dist/core/schema-validators.cjs`), so a run loads validators instead of
 * loading ajv and compiling about a dozen schemas twice in each of its two processes (a third of a small run's fixed
 * cost). The module names the hash of the schema files it was built from: when they have changed since, or it is
 * missing, the validators are compiled here at first use, as before; the verdict never depends on which.
 */

// Loaded on demand, synchronously: a run with current precompiled validators never loads ajv.
const require = createRequire(import.meta.url);

/** Each kind of validator the suite uses: `full` collects every error (allErrors), `quick` stops at the first. */
export type ValidatorKind = 'full' | 'quick';

/** Precompiled validators by kind and ref ("https://…/seat.schema.json", "…#/$defs/embedded"). */
export type ValidatorLookup = (kind: ValidatorKind, ref: string) => ValidateFunction | undefined;

/**
 * The groups the precompiled validators come in, one module each: a process loads only what it validates (the
 * checks the API's records, the CLI its config, and the report, baseline or attestation only when it reads or
 * writes one). The tool's own schemas are a module each: the report's validators are the biggest, and a run's start
 * needs only the config's (about 40 kB of code instead of 450 kB).
 */
export const SCHEMA_GROUPS = ['api', 'config', 'report', 'baseline', 'attestation'] as const;
/** One of {@link SCHEMA_GROUPS}: the module of precompiled validators a caller loads. */
export type SchemaGroup = (typeof SCHEMA_GROUPS)[number];

/** Where the build writes the precompiled validators. */
export const PRECOMPILED_DIR = join(packageRoot, 'dist', 'core');
const moduleFile = (dir: string, group: SchemaGroup): string => join(dir, `schema-validators.${group}.cjs`);

/**
 * Changes to how validators are compiled that the schema files do not show (options, formats): part of the hash, so
 * a module precompiled by an older build is never used.
 */
const COMPILER_REVISION = 1;

interface SchemaFile {
  name: string;
  text: string;
  doc: AnySchemaObject;
}

let files: SchemaFile[] | undefined;
/** The schema files, read once per process. */
function schemaFiles(): SchemaFile[] {
  files ??= readdirSync(schemasDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(schemasDir, name), 'utf8');
      return { name, text, doc: JSON.parse(text) as AnySchemaObject };
    });
  return files;
}

/** Every schema document by its $id. */
export function schemaDocuments(): Map<string, AnySchemaObject> {
  return new Map(schemaFiles().map((f) => [f.doc.$id as string, f.doc]));
}

/** What precompiled validators must have been built from: the schema files, ajv's version and the compile options. */
export function schemaInputsHash(): string {
  const hash = createHash('sha256');
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;
  hash.update(`${COMPILER_REVISION}\0${ajvVersion}\0${Object.keys(FORMATS).sort().join(',')}\0`);
  for (const f of schemaFiles()) hash.update(`${f.name}\0${f.text}\0`);
  return hash.digest('hex');
}

/** The schemas of the tool's own files (not the API's), each its own group: judged whole only. */
const groupOf = (ref: string): SchemaGroup => {
  const file = ref.split('#')[0]!;
  const name = file.slice(file.lastIndexOf('/') + 1).replace(/\.schema\.json$/, '');
  return SCHEMA_GROUPS.find((g) => g !== 'api' && g === name) ?? 'api';
};

/**
 * Every ref a check may ask for: each schema's root and each of its $defs, and in the API's schemas each declared
 * field's subschema, nested (a check judges one field alone, e.g. "order#/properties/seat_id").
 */
function schemaRefs(): string[] {
  const refs: string[] = [];
  const walk = (node: unknown, pointer: string, id: string): void => {
    if (node === null || typeof node !== 'object') return;
    refs.push(pointer ? `${id}#${pointer}` : id);
    const fields = groupOf(id) === 'api';
    for (const key of fields ? (['$defs', 'properties'] as const) : (['$defs'] as const)) {
      const members = (node as Record<string, unknown>)[key] as Record<string, unknown> | undefined;
      for (const [name, sub] of Object.entries(members ?? {})) walk(sub, `${pointer}/${key}/${name}`, id);
    }
  };
  for (const f of schemaFiles()) walk(f.doc, '', f.doc.$id as string);
  return refs;
}

/** An Ajv instance with the formats and every schema added; `source` keeps the code for the standalone module. */
function newAjv(kind: ValidatorKind, source: boolean): Ajv2020 {
  // ajv's documented entry for JSON Schema 2020-12; it exports the code template tag `_` as its main entry does.
  // The standalone code reaches the formats through the name `formats`: the table the module's factory is given.
  const { Ajv2020: Ajv, _ } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv({
    allErrors: kind === 'full',
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    ...(source ? { code: { source: true, formats: _`formats` } } : {}),
  });
  for (const [name, definition] of Object.entries(FORMATS)) ajv.addFormat(name, definition);
  for (const f of schemaFiles()) ajv.addSchema(f.doc);
  return ajv;
}

const instances: Partial<Record<ValidatorKind, Ajv2020>> = {};
/** A validator compiled in this process (no current precompiled module); undefined for an unknown ref. */
export function compileValidator(kind: ValidatorKind, ref: string): ValidateFunction | undefined {
  const ajv = (instances[kind] ??= newAjv(kind, false));
  return ajv.getSchema(ref);
}

/**
 * ajv's standalone code declares every schema object it met as a constant, most of them never read: dropped, since
 * parsing them is most of the cost of loading the module. A constant is a JSON literal (JSON.stringify's output).
 */
function withoutUnusedSchemas(code: string): string {
  const declaration = /const (schema\d+) = /g;
  const cuts: Array<[number, number]> = [];
  for (let m = declaration.exec(code); m; m = declaration.exec(code)) {
    const name = m[1]!;
    const uses = code.match(new RegExp(`\\b${name}\\b`, 'g'))!.length;
    if (uses > 1) continue;
    // The literal ends where its brackets balance, outside strings.
    let i = m.index + m[0].length;
    let depth = 0;
    let inString = false;
    for (; i < code.length; i++) {
      const c = code[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    if (code[i + 1] !== ';') throw new Error(`withoutUnusedSchemas: no end of ${name}`);
    cuts.push([m.index, i + 2]);
  }
  let out = '';
  let from = 0;
  for (const [a, b] of cuts) {
    out += code.slice(from, a);
    from = b;
  }
  return out + code.slice(from);
}

/**
 * The source of one group's precompiled module: a factory that takes the formats table and `require` (the runtime
 * helpers the code requires, ajv/dist/runtime/*, resolve from the compiler's place, so the module works wherever it
 * is written), and returns the group's validators. The full set (every error) is built only when a value fails.
 */
export function standaloneModule(group: SchemaGroup): string {
  const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js'))
    .default;
  const refs = Object.fromEntries(
    schemaRefs()
      .filter((r) => groupOf(r) === group)
      .map((r) => [r, r]),
  );
  const kind = (k: ValidatorKind): string =>
    `() => {\n    const exports = {};\n${withoutUnusedSchemas(standaloneCode(newAjv(k, true), refs))}\n    return exports;\n  }`;
  return [
    '// Generated by the build (core/spec/schema-compiler.ts) from schemas/: do not edit.',
    '"use strict";',
    `exports.inputs = ${JSON.stringify(schemaInputsHash())};`,
    'exports.create = (formats, require) => {',
    `  const quick = (${kind('quick')})();`,
    `  let full;`,
    `  return { quick, get full() { return (full ??= (${kind('full')})()); } };`,
    '};',
    '',
  ].join('\n');
}

/** Writes the precompiled modules (the build's last step). */
export function writeStandaloneModules(dir = PRECOMPILED_DIR): void {
  for (const group of SCHEMA_GROUPS) writeFileSync(moduleFile(dir, group), standaloneModule(group));
}

type GroupValidators = Record<ValidatorKind, Record<string, ValidateFunction>>;

/**
 * The precompiled validators, each group's module loaded when one of its refs is first asked for; a group whose
 * module is missing or was built from other schema files than these answers nothing (then callers compile).
 */
export function precompiledValidators(dir = PRECOMPILED_DIR): ValidatorLookup {
  const groups = new Map<SchemaGroup, GroupValidators | undefined>();
  const load = (group: SchemaGroup): GroupValidators | undefined => {
    const file = moduleFile(dir, group);
    if (!existsSync(file)) return undefined;
    const mod = require(file) as { inputs: string; create(f: typeof FORMATS, r: NodeJS.Require): GroupValidators };
    return mod.inputs === schemaInputsHash() ? mod.create(FORMATS, require) : undefined;
  };
  return (kind, ref) => {
    const group = groupOf(ref);
    if (!groups.has(group)) groups.set(group, load(group));
    return groups.get(group)?.[kind][ref];
  };
}

/** Every ref precompiled (for tests): each schema's root and $defs, and the API's declared fields. */
export const precompiledRefs = (): string[] => schemaRefs();
