import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, AnySchemaObject, ValidateFunction } from 'ajv/dist/2020.js';
import { FORMATS } from './schema-formats.js';
import { packageRoot, schemasDir } from './paths.js';

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

/** Validators by ref ("https://…/seat.schema.json", "…#/$defs/embedded"), one set per kind. */
export type ValidatorSet = Record<ValidatorKind, Record<string, ValidateFunction>>;

/** Where the build writes the precompiled validators. */
export const PRECOMPILED_FILE = join(packageRoot, 'dist', 'core', 'schema-validators.cjs');

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

/** The schemas of the tool's own files (not the API's): judged whole only. */
const TOOL_SCHEMAS = new Set(['config', 'report', 'baseline'].map((n) => `${n}.schema.json`));

/**
 * Every ref a check may ask for: each schema's root and each of its $defs, and in the API's schemas each declared
 * field's subschema, nested (a check judges one field alone, e.g. "order#/properties/seat_id").
 */
function schemaRefs(): string[] {
  const refs: string[] = [];
  const walk = (node: unknown, pointer: string, id: string): void => {
    if (node === null || typeof node !== 'object') return;
    refs.push(pointer ? `${id}#${pointer}` : id);
    const fields = !TOOL_SCHEMAS.has(id.slice(id.lastIndexOf('/') + 1));
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
  const { Ajv2020: Ajv } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // The standalone code reaches the formats through the name `formats`: the table the module's factory is given.
  const { _ } = require('ajv/dist/compile/codegen/index.js') as typeof import('ajv/dist/compile/codegen/index.js');
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
 * The source of the precompiled module: a factory that takes the formats table and `require`, and returns every
 * validator.
 */
export function standaloneModule(): string {
  const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js'))
    .default;
  const refs = Object.fromEntries(schemaRefs().map((r) => [r, r]));
  const kind = (k: ValidatorKind): string =>
    `() => {\n    const exports = {};\n${standaloneCode(newAjv(k, true), refs)}\n    return exports;\n  }`;
  return [
    '// Generated by the build (core/schema-compiler.ts) from schemas/: do not edit.',
    '"use strict";',
    `exports.inputs = ${JSON.stringify(schemaInputsHash())};`,
    // The runtime helpers the code requires (ajv/dist/runtime/*) resolve from the compiler's own place: the module
    // works wherever it is written.
    // The full set (every error) is built only when a value fails: a conforming run never needs it.
    'exports.create = (formats, require) => {',
    `  const quick = (${kind('quick')})();`,
    `  let full;`,
    `  return { quick, get full() { return (full ??= (${kind('full')})()); } };`,
    '};',
    '',
  ].join('\n');
}

/** Writes the precompiled module (the build's last step). */
export function writeStandaloneModule(file = PRECOMPILED_FILE): void {
  writeFileSync(file, standaloneModule());
}

/** The precompiled validators, when the module exists and was built from the schema files as they are now. */
export function precompiledValidators(file = PRECOMPILED_FILE): ValidatorSet | undefined {
  if (!existsSync(file)) return undefined;
  const mod = require(file) as { inputs: string; create(formats: typeof FORMATS, req: NodeJS.Require): ValidatorSet };
  return mod.inputs === schemaInputsHash() ? mod.create(FORMATS, require) : undefined;
}
