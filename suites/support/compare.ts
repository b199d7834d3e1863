import { createHash } from 'node:crypto';
import type { CheckContext } from '../../core/model/check.js';
import { isRecord, successData, type Rec } from '../../core/session/api.js';
import type { ListPath, Noun, Resource, Who } from '../../core/spec/resources.js';
import { show } from '../../core/redact/quote.js';
import { validate } from '../../core/spec/schemas.js';
import { isIdLike } from '../../core/base/exact-json.js';
import { isDiskList } from '../../core/transport/disk-list.js';
import type { RecordId } from '../../core/spec/endpoints.js';
import { NetworkError, type Reply } from '../../core/transport/exchange.js';
export { Findings, recordKey } from '../../core/model/findings.js';

/**
 * Field-by-field comparison of two renderings of the same record (a list item and its detail, an embedded dish
 * and its /dishes entry). Consistency checks judge only values that are well-formed: a malformed value is the
 * business of the shape checks (DISH-0x, SEAT-0x, ORD-01), so one broken rule fails one check, not three.
 */

/** The spec's fields of each record (§2.2, §2.3), id left out: the id is how the two sides were paired. */
export const SPEC_FIELDS: Record<Noun, readonly string[]> = {
  dish: ['name', 'price', 'stock', 'unit', 'category_id', 'user_id', 'created_at', 'updated_at'],
  seat: ['table_number', 'remark', 'status', 'merchant_id', 'user_id', 'created_at', 'updated_at'],
};

const FIELD_SCHEMA = {
  dish: 'dish#/properties/',
  seat: 'seat#/$defs/embedded/properties/',
  order: 'order#/properties/',
  pivot: 'order-dish#/properties/pivot/properties/',
} as const;

/**
 * Latitude (issue 2): fields typed string in the field table and shown as numbers in the sample may come either
 * way. 5 and "5" are the same value here; "05" and 5 are not (a table label is text).
 */
const NUMBER_OR_STRING: Record<Noun, ReadonlySet<string>> = {
  dish: new Set(),
  seat: new Set(['table_number', 'status']),
};

// Each field's schema name built once: fieldValid runs for several fields of every record of every list.
const fieldSchemas = new Map<string, Map<string, `dish#${string}`>>();

/** True when the value is well-formed for that field of the spec's shape. */
export function fieldValid(shape: keyof typeof FIELD_SCHEMA, field: string, value: unknown): boolean {
  let fields = fieldSchemas.get(shape);
  if (!fields) fieldSchemas.set(shape, (fields = new Map()));
  let schema = fields.get(field);
  if (!schema) fields.set(field, (schema = `${FIELD_SCHEMA[shape]}${field}` as `dish#${string}`));
  return validate(schema, value).length === 0;
}

/** JSON equality (key order ignored). Iterative: server data may nest 100,000 deep, past any call stack. */
export function sameJson(x: unknown, y: unknown): boolean {
  const pairs: Array<[unknown, unknown]> = [[x, y]];
  while (pairs.length) {
    const [a, b] = pairs.pop()!;
    if (a === b) continue;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    // A list read from disk (core/transport/disk-list.ts) is compared record by record, never read whole at once.
    if (isDiskList(a) || isDiskList(b)) {
      const [xs, ys] = [a as unknown[], b as unknown[]];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) if (!sameJson(xs[i], ys[i])) return false;
      continue;
    }
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.hasOwn(b, k)) return false;
      pairs.push([(a as Rec)[k], (b as Rec)[k]]);
    }
  }
  return true;
}

/**
 * JSON equality in which no array's order counts (nor key order): §4 defines which records a list holds ("all dishes
 * of the current merchant"), not their order, and no rule orders an order's dishes, so two answers that hold the same
 * records in another order hold the same content. The same order is tried first (the common case costs no more than
 * sameJson); otherwise each element of the top-level arrays is reduced to a digest of its canonical text and the
 * digests are compared as multisets, so a large list is never held twice as text.
 */
export function sameContent(x: unknown, y: unknown): boolean {
  if (sameJson(x, y)) return true;
  if (Array.isArray(x) && Array.isArray(y)) {
    if (x.length !== y.length) return false;
    const digests = (xs: unknown[]): string[] => {
      const out: string[] = [];
      for (let i = 0; i < xs.length; i++) out.push(createHash('sha256').update(canonicalText(xs[i])).digest('base64'));
      return out.sort();
    };
    const [a, b] = [digests(x), digests(y)];
    return a.every((d, i) => d === b[i]);
  }
  return canonicalText(x) === canonicalText(y);
}

/** A canonical text past this length stands in its parent as its digest: a deep nesting stays linear, not quadratic. */
const CANONICAL_INLINE = 64;
const short = (text: string): string =>
  text.length > CANONICAL_INLINE ? `#${createHash('sha256').update(text).digest('base64')}` : text;

/**
 * One text per JSON value whatever the order of its arrays and keys (both sorted); a member longer than a few dozen
 * characters is written as its digest, so equal texts mean equal content (but for a hash collision). Iterative, as
 * sameJson: server data may nest past any call stack.
 */
export function canonicalText(root: unknown): string {
  interface Frame {
    keys: string[] | undefined;
    values: unknown[];
    texts: string[];
  }
  const frames: Frame[] = [];
  /** A leaf's text, or undefined once an object or array has been opened as a frame. */
  const enter = (v: unknown): string | undefined => {
    if (typeof v === 'bigint') return String(v);
    if (typeof v !== 'object' || v === null) return short(v === undefined ? 'undefined' : JSON.stringify(v));
    if (Array.isArray(v)) {
      const values: unknown[] = [];
      for (let i = 0; i < v.length; i++) values.push(v[i]);
      frames.push({ keys: undefined, values, texts: [] });
    } else {
      const keys = Object.keys(v).sort();
      frames.push({ keys, values: keys.map((k) => (v as Rec)[k]), texts: [] });
    }
    return undefined;
  };
  const first = enter(root);
  if (first !== undefined) return first;
  for (;;) {
    const f = frames[frames.length - 1]!;
    if (f.texts.length < f.values.length) {
      const t = enter(f.values[f.texts.length]);
      if (t !== undefined) f.texts.push(t);
      continue;
    }
    frames.pop();
    const text = short(
      f.keys
        ? `{${f.keys.map((k, i) => `${JSON.stringify(k)}:${f.texts[i]}`).join(',')}}`
        : `[${f.texts.sort().join(',')}]`,
    );
    const parent = frames[frames.length - 1];
    if (!parent) return text;
    parent.texts.push(text);
  }
}

/** 5 and "5": the same text, one side a number. */
export function sameText(a: unknown, b: unknown): boolean {
  const numeric = (x: unknown): boolean => typeof x === 'number' || typeof x === 'bigint';
  return (
    // Strict equality with a number's text already requires the other side to be a string.
    (numeric(a) && String(a) === b) || (numeric(b) && String(b) === a)
  );
}

/** Two ids name the same record: compared as text, since an id of the wrong type is the shape checks' finding. */
export const sameId = (a: unknown, b: unknown): boolean => isIdLike(a) && isIdLike(b) && String(a) === String(b);

/** One field that differs between two renderings of a record, with both values. */
export interface FieldDiff {
  field: string;
  a: unknown;
  b: unknown;
}

/** Two renderings of one record compared: what is a finding, what the spec allows, what it does not cover. */
export interface Comparison {
  /** Spec fields that differ, both sides well-formed: a finding. */
  diffs: FieldDiff[];
  /** Spec fields that differ only as number vs numeric string where the spec allows both: a note. */
  latitude: FieldDiff[];
  /** Fields the spec does not list, present on both sides with different values: a note (not the spec's rule). */
  extra: string[];
}

/** Compares the spec fields present on both sides; fields present on one side only are the shape checks' finding. */
export function compareRecords(kind: Noun, a: Rec, b: Rec): Comparison {
  const out: Comparison = { diffs: [], latitude: [], extra: [] };
  for (const field of SPEC_FIELDS[kind]) {
    if (!Object.hasOwn(a, field) || !Object.hasOwn(b, field)) continue;
    const x = a[field];
    const y = b[field];
    if (sameJson(x, y)) continue;
    if (NUMBER_OR_STRING[kind].has(field) && sameText(x, y)) {
      out.latitude.push({ field, a: x, b: y });
      continue;
    }
    if (!fieldValid(kind, field, x) || !fieldValid(kind, field, y)) continue;
    out.diffs.push({ field, a: x, b: y });
  }
  const spec = KNOWN_FIELDS[kind];
  for (const k of Object.keys(a)) if (!spec.has(k) && Object.hasOwn(b, k) && !sameJson(a[k], b[k])) out.extra.push(k);
  return out;
}

/** The fields compareRecords does not report as extra: the spec's, the id, an order dish's pivot. */
const KNOWN_FIELDS: Record<Noun, ReadonlySet<string>> = {
  dish: new Set([...SPEC_FIELDS.dish, 'id', 'pivot']),
  seat: new Set([...SPEC_FIELDS.seat, 'id', 'pivot']),
};

/** "list has price 38.5, detail has 38; list has unit null, detail has "plate"". */
export function describeDiffs(diffs: FieldDiff[], sideA: string, sideB: string): string {
  return diffs.map((d) => `${sideA} has ${d.field} ${show(d.a, 60)}, ${sideB} has ${show(d.b, 60)}`).join('; ');
}

/** The record a detail answered, or undefined when it answered none: that is the detail check's finding. */
export function recordIn(reply: Reply): Rec | undefined {
  const s = successData(reply);
  return s.ok && isRecord(s.data) ? s.data : undefined;
}

/**
 * The detail record of an id outside the run's sweeps (one the list lacks), or undefined when the detail did not
 * answer a record: that is the detail check's finding, not consistency's. No response ends the check as incomplete;
 * a failure of the suite's own (a recorded body it cannot read) is the suite's error, never "answers no such record".
 */
export async function detailRecord(
  ctx: CheckContext,
  resource: Resource,
  id: RecordId,
  who: Who = 'app',
): Promise<Rec | undefined> {
  return recordIn(await ctx.api.detail(resource, id, who));
}

/** A list of the run, or undefined with a note when it is unavailable (its own check reports why). */
export async function optionalList(
  ctx: CheckContext,
  path: ListPath,
  who: Who = 'app',
): Promise<readonly Rec[] | undefined> {
  try {
    return await ctx.api.list(path, who);
  } catch (e) {
    if (e instanceof NetworkError) throw e;
    ctx.note(`${path}${who === 'app' ? '' : ` with ${who}'s token`} not checked: ${(e as Error).message}`);
    return undefined;
  }
}

/** One index per list, however many checks pair its records: at 200,000 dishes each index is some 11 MB. */
const indexes = new WeakMap<readonly Rec[], ReadonlyMap<string, Rec>>();

/**
 * Records by id (as text); the first of duplicate ids wins (duplicates are CONS-04's finding). Built once per list
 * and shared by every caller, hence read-only.
 */
export function byId(items: readonly Rec[]): ReadonlyMap<string, Rec> {
  const known = indexes.get(items);
  if (known) return known;
  const m = new Map<string, Rec>();
  for (const i of items) {
    const k = isIdLike(i.id) ? String(i.id) : undefined;
    if (k !== undefined && !m.has(k)) m.set(k, i);
  }
  indexes.set(items, m);
  return m;
}
