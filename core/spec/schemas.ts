import type { ErrorObject, ValidateFunction, AnySchemaObject } from 'ajv/dist/2020.js';
import { hasBigInt, withNumbers } from '../base/exact-json.js';
import {
  compileValidator,
  precompiledValidators,
  schemaDocuments,
  type ValidatorKind,
  type ValidatorLookup,
} from './schema-compiler.js';

export { FORMAT_PATTERNS, timeFormats } from './schema-formats.js';

/** The JSON Schemas of schemas/ by name (the file name without .json). */
export type SchemaName =
  | 'envelope.success'
  | 'envelope.error'
  | 'dish'
  | 'order-dish'
  | 'seat'
  | 'order'
  | 'device'
  | 'merchant'
  | 'auth-result'
  | 'config'
  | 'report'
  | 'baseline'
  | 'attestation';

const BASE = 'https://conformance.example/schemas/';
const idOf = (name: string): string => `${BASE}${name}.schema.json`;

/** One schema violation: where in the value (a JSON pointer) and what is wrong. */
export interface SchemaError {
  path: string;
  message: string;
  /** Of a type error: the value received, as JSON and cut short (`"12.50"`); formatErrors says it. */
  received?: string;
}

/**
 * The validators of the process by ref, per kind: `full` collects every error (allErrors), `quick` stops at the
 * first. A valid value is judged by `quick` alone; only an invalid one of bounded size is validated again to list its
 * problems (a body of two million {} would otherwise collect 18 million errors). Precompiled by the build when they
 * match the schema files (core/spec/schema-compiler.ts), else compiled at first use.
 */
let precompiled: ValidatorLookup | undefined;
const compiled = { full: new Map<string, ValidateFunction>(), quick: new Map<string, ValidateFunction>() };

function validator(ref: string, kind: ValidatorKind = 'full'): ValidateFunction {
  let fn = compiled[kind].get(ref);
  if (!fn) {
    precompiled ??= precompiledValidators();
    fn = precompiled(kind, ref) ?? compileValidator(kind, ref);
    if (!fn) throw new Error(`unknown schema ${ref}`);
    compiled[kind].set(ref, fn);
  }
  return fn;
}

/** Most problems validate() returns for one value: the rest are not listed (messages show five). */
export const MAX_SCHEMA_ERRORS = 50;
/** Values with more nodes than this are not validated with every error collected: only the first is shown. */
const FULL_VALIDATION_NODES = 5000;
/** Longest server-chosen text (a key name, a path) in a schema message. */
const NAME_CHARS = 80;

/** True when the value has at most `budget` nodes (arrays, objects and their members), counted without recursion. */
function smallValue(value: unknown, budget = FULL_VALIDATION_NODES): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    const members = Array.isArray(v) ? v : Object.values(v);
    seen += members.length + 1;
    if (seen > budget) return false;
    for (const m of members) if (m !== null && typeof m === 'object') stack.push(m);
  }
  return true;
}

/** A server-chosen name for a message: JSON-quoted and cut short. */
const quotedName = (s: string): string => {
  const q = JSON.stringify(s);
  return q.length > NAME_CHARS ? `${q.slice(0, NAME_CHARS)}…` : q;
};

/** The value at a JSON pointer of `value` (ajv's instancePath), for a message that says what was received. */
function valueAt(value: unknown, pointer: string): unknown {
  let v = value;
  for (const part of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** A received value in a message: a scalar as JSON (a string cut short), a container by its kind. */
function receivedText(v: unknown): string {
  if (typeof v === 'string') return quotedName(v);
  if (typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return 'an array';
  if (v !== null && typeof v === 'object') return 'an object';
  return v === undefined ? 'nothing' : String(v);
}

function describe(e: ErrorObject, prefix: string, value?: unknown): SchemaError {
  // instancePath holds the server's key names: bounded like any other server string.
  const full = prefix + e.instancePath;
  const path = full.length > 2 * NAME_CHARS ? `${full.slice(0, 2 * NAME_CHARS)}…` : full;
  let message = e.message ?? e.keyword;
  if (e.keyword === 'required')
    message = `missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
  else if (e.keyword === 'const')
    message = `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
  else if (e.keyword === 'additionalProperties')
    message = `has unknown key ${quotedName((e.params as { additionalProperty: string }).additionalProperty)}`;
  else if (e.keyword === 'enum')
    message = `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  return {
    path: path || '/',
    message,
    ...(e.keyword === 'type' ? { received: receivedText(valueAt(value, e.instancePath)) } : {}),
  };
}

/**
 * Validates value against a schema (by name, or name plus a JSON pointer fragment such as "seat#/$defs/embedded").
 * Returns the errors, empty when valid; paths are prefixed with `at` so they point into the whole response body.
 */
const byName = new Map<string, ValidateFunction>();

const quickByName = new Map<string, ValidateFunction>();

function byNameOf(schema: string, kind: 'full' | 'quick'): ValidateFunction {
  const memo = kind === 'full' ? byName : quickByName;
  let fn = memo.get(schema);
  if (!fn) {
    const [name, fragment] = schema.split('#') as [string, string | undefined];
    fn = validator(idOf(name) + (fragment ? `#${fragment}` : ''), kind);
    memo.set(schema, fn);
  }
  return fn;
}

/** True when the value matches the schema: the cheap test (stops at the first problem, collects nothing). */
export function isValid(schema: SchemaName | `${SchemaName}#${string}`, value: unknown): boolean {
  const quick = byNameOf(schema, 'quick');
  return quick(value) || (hasBigInt(value) && quick(withNumbers(value)));
}

/** Validates a value against a schema (or one of its $defs): every violation, at most MAX_SCHEMA_ERRORS. */
export function validate(schema: SchemaName | `${SchemaName}#${string}`, value: unknown, at = ''): SchemaError[] {
  // By the name as given: validate runs once per record (hundreds of thousands of times at a large merchant).
  const quick = byNameOf(schema, 'quick');
  if (quick(value)) return [];
  // Integers past 2^53 arrive as bigints (core/base/exact-json.ts), which a validator does not take for integers: judge
  // their number form. Only on failure, so a valid record pays nothing.
  if (hasBigInt(value)) {
    value = withNumbers(value);
    if (quick(value)) return [];
  }
  // Every problem of a value of bounded size; of a huge one (a list of millions inside a record), the first only.
  const fn = smallValue(value) ? byNameOf(schema, 'full') : quick;
  if (fn !== quick) fn(value);
  // anyOf/oneOf produce one error per branch; the deepest errors say the most, so keep distinct ones only.
  const seen = new Set<string>();
  const out: SchemaError[] = [];
  for (const e of fn.errors ?? []) {
    if (e.keyword === 'anyOf' || e.keyword === 'if') continue;
    const d = describe(e, at, value);
    const k = d.path + d.message;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(d);
    }
    if (out.length >= MAX_SCHEMA_ERRORS) break;
  }
  return out;
}

/** Schema violations in one line, the first `max` of them and how many more. */
export function formatErrors(errors: SchemaError[], max = 5): string {
  const shown = errors
    .slice(0, max)
    .map((e) => `${e.path} ${e.message}${e.received !== undefined ? `, got ${e.received}` : ''}`);
  if (errors.length > max) shown.push(`… and ${errors.length - max} more`);
  return shown.join('; ');
}

let documents: Map<string, AnySchemaObject> | undefined;
/** The raw schema object (a whole schema by name or $id, or a part of one by a "#/…" pointer), for introspection. */
export function schemaObject(ref: string): AnySchemaObject {
  documents ??= schemaDocuments();
  const [file, pointer] = (ref.startsWith('http') ? ref : idOf(ref)).split('#') as [string, string | undefined];
  let s = documents.get(file) as Record<string, unknown> | undefined;
  for (const part of (pointer ?? '').split('/').filter(Boolean)) s = s?.[part] as Record<string, unknown> | undefined;
  if (!s) throw new Error(`unknown schema ${ref}`);
  return s as AnySchemaObject;
}

type Json = Record<string, unknown>;

function resolveRef(ref: string, base: string): { schema: Json; base: string } {
  const [file, frag] = ref.split('#') as [string, string | undefined];
  const abs = file ? new URL(file, base).href : base;
  let s = schemaObject(abs) as Json;
  if (frag) for (const part of frag.split('/').filter(Boolean)) s = s[part] as Json;
  return { schema: s, base: abs };
}

type Declared = Map<string, { schema: Json; base: string }>;
const declaredCache = new WeakMap<Json, Declared>();

/** Property names a schema declares, following allOf and $ref (the spec's field tables). */
function declared(schema: Json, base: string): Declared {
  let out = declaredCache.get(schema);
  if (out) return out;
  out = new Map();
  if (typeof schema.$ref === 'string') {
    const r = resolveRef(schema.$ref, base);
    for (const [k, v] of declared(r.schema, r.base)) out.set(k, v);
  }
  for (const sub of (schema.allOf as Json[] | undefined) ?? [])
    for (const [k, v] of declared(sub, base)) if (!out.has(k)) out.set(k, v);
  for (const [k, v] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {}))
    if (!out.has(k)) out.set(k, { schema: v, base });
  declaredCache.set(schema, out);
  return out;
}

/**
 * Fields present in value that the schema does not declare: a server may add fields (extra properties are allowed),
 * and we report them as INFO notes. Each distinct path is listed once (array indexes folded to []).
 */
export function undeclaredFields(name: SchemaName, value: unknown, at = '', max = MAX_UNDECLARED): string[] {
  const found = new Set<string>();
  // The path is a stack of segments joined only for a finding: building a string per visited field cost more than
  // the walk itself on 50,000 orders. Primitives are not descended into.
  const path: string[] = [at];
  const walk = (schema: Json, base: string, v: unknown): void => {
    if (Array.isArray(v)) {
      const items = schema.items as Json | undefined;
      if (!items) return;
      path.push('[]');
      for (const el of v) if (el !== null && typeof el === 'object') walk(items, base, el);
      path.pop();
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const branch = objectBranch(schema);
    if (branch) {
      walk(branch, base, v);
      return;
    }
    const props = declared(schema, base);
    for (const k of Object.keys(v)) {
      const d = props.get(k);
      // Key names are the server's: bounded, and so is how many are kept (a record may have a million).
      if (!d) {
        if (found.size < max) found.add(`${path.join('')}.${k.length > NAME_CHARS ? `${k.slice(0, NAME_CHARS)}…` : k}`);
        continue;
      }
      // Only declared fields are walked, and the schemas nest a few levels: no depth to guard beyond that.
      const child = (v as Record<string, unknown>)[k];
      if (child === null || typeof child !== 'object') continue;
      path.push(`.${k}`);
      walk(d.schema, d.base, child);
      path.pop();
    }
  };
  const base = idOf(name);
  walk(schemaObject(base) as Json, base, value);
  return [...found];
}

/** Distinct undeclared field paths kept per value. */
const MAX_UNDECLARED = 100;

const branches = new WeakMap<Json, Json | null>();
/** The first non-null branch of an anyOf (a nullable object), cached per schema node. */
function objectBranch(schema: Json): Json | undefined {
  let b = branches.get(schema);
  if (b === undefined) {
    b = (schema.anyOf as Json[] | undefined)?.find((x) => x.type !== 'null') ?? null;
    branches.set(schema, b);
  }
  return b ?? undefined;
}
