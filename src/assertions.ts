import type { CheckContext } from './check.js';
import type { Reply } from './http.js';
import { isRecord, successData, type Rec } from './api.js';
import { formatErrors, undeclaredFields, validate, type SchemaError, type SchemaName } from './schemas.js';
import { stringifyJson } from './exact-json.js';

/** A short, safe rendering of a server value for messages (integers past 2^53 with their exact digits). */
export function show(v: unknown, max = 120): string {
  const s = v === undefined ? 'nothing' : stringifyJson(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** What an answer was, in one phrase: "HTTP 500, code 500, status \"ERROR\"". */
export function describeReply(r: Reply): string {
  // Redirects are never followed (src/http.ts): where one pointed is part of what happened.
  const location = r.status >= 300 && r.status < 400 ? r.headers.location : undefined;
  const http = `HTTP ${r.status}${location ? ` (a redirect to ${location}, not followed)` : ''}`;
  if (r.jsonError !== undefined) return `${http} with a body that is not JSON (${show(r.text, 60)})`;
  const j = r.json;
  if (!isRecord(j)) return `${http} with JSON that is not an object (${show(j, 60)})`;
  return `${http}, code ${show(j.code)}, status ${show(j.status)}`;
}

/** The data of a success envelope, or fail saying what came instead (§2.1, §4 rule 1). */
export function expectSuccess(ctx: CheckContext, r: Reply, what: string): unknown {
  const s = successData(r);
  if (!s.ok) ctx.fail(`${what}: expected status "SUCCESS" and code 200, got ${describeReply(r)}`);
  return s.ok ? s.data : undefined;
}

/**
 * Validates data (one record, or an array of records) against a schema, fails with the first errors, and notes
 * fields the spec does not list (allowed: a server may add fields).
 */
export function expectShape(ctx: CheckContext, schema: SchemaName, value: unknown, what: string, at = '/data'): void {
  const many = Array.isArray(value);
  const items: Array<[unknown, string]> = many ? value.map((v, i) => [v, `${at}/${i}`]) : [[value, at]];
  const errors = items.flatMap(([v, p]) => validate(schema, v, p));
  if (errors.length) ctx.fail(`${what} does not match the ${schema} shape (${errors.length} problem${errors.length > 1 ? 's' : ''}): ${formatErrors(errors)}`, errors.map((e) => shapeKey(schema, value, at, e)));
  const label = at.replace(/^\//, '').replace(/\//g, '.') + (many ? '[]' : '');
  const extra = new Set(items.flatMap(([v]) => undeclaredFields(schema, v, label)));
  if (extra.size) {
    const list = [...extra];
    ctx.note(`${what}: fields the spec does not list (allowed): ${list.slice(0, 10).join(', ')}${list.length > 10 ? ` and ${list.length - 10} more` : ''}`);
  }
}

/**
 * The fingerprint of a shape problem: the record by its id (not its place in the list, which may change) and the
 * path inside it, e.g. `dish:101/price`.
 */
function shapeKey(schema: SchemaName, value: unknown, at: string, e: SchemaError): string {
  const rest = e.path.slice(at.length);
  if (!Array.isArray(value)) return `${schema}${rest || '/'}`;
  const m = /^\/(\d+)(.*)$/.exec(rest);
  const rec: unknown = m ? value[Number(m[1])] : undefined;
  const id = isRecord(rec) && (typeof rec.id === 'string' || typeof rec.id === 'number') ? String(rec.id) : `#${m?.[1] ?? ''}`;
  return `${schema}:${id}${m?.[2] ?? rest}`;
}

/** The envelope code of an error answer, or undefined when the body is no envelope. */
export function envelopeCode(r: Reply): unknown {
  return isRecord(r.json) ? r.json.code : undefined;
}

/**
 * §7: an error is defined by the envelope's code; the HTTP status may be 200 or the matching error status,
 * status is any string other than SUCCESS, msg may be absent.
 */
export function expectError(ctx: CheckContext, r: Reply, codes: number[], what: string): void {
  const errors = validate('envelope.error', r.json);
  const code = envelopeCode(r);
  if (r.jsonError !== undefined || !isRecord(r.json)) ctx.fail(`${what}: expected an error envelope with code ${codes.join(' or ')}, got ${describeReply(r)}`);
  if (!codes.includes(code as number)) ctx.fail(`${what}: expected code ${codes.join(' or ')}, got ${describeReply(r)}`);
  if (errors.length) ctx.fail(`${what}: the error body is not an error envelope (§7): ${formatErrors(errors)}`);
  if (r.status !== 200 && r.status !== code) ctx.note(`${what}: HTTP ${r.status} with envelope code ${show(code)}`);
}

/** True when an envelope carries a payload (data present and not null, {} or []). */
export function carriesData(r: Reply): boolean {
  if (!isRecord(r.json)) return false;
  const d = r.json.data;
  if (d === undefined || d === null) return false;
  if (Array.isArray(d)) return d.length > 0;
  if (isRecord(d)) return Object.keys(d).length > 0;
  return true;
}

export const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRecord) : []);
