import type { CheckContext } from './check.js';
import { diskRecords, eachElement, isDiskList } from '../transport/disk-list.js';
import { Blocked } from '../session/check-errors.js';
import type { Reply } from '../transport/exchange.js';
import { isRecord, successData, type Rec } from '../session/api.js';
import {
  formatErrors,
  isValid,
  undeclaredFields,
  validate,
  type SchemaName,
  type SchemaError,
} from '../spec/schemas.js';
import { filtered, show } from '../redact/quote.js';

/** What an answer was, in one phrase: "HTTP 500, code 500, status \"ERROR\"". */
export function describeReply(r: Reply): string {
  // Redirects are never followed (core/transport/http.ts): where one pointed is part of what happened.
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
  if (!s.ok) {
    ctx.shows(r, 'finding');
    ctx.fail(`${what}: expected status "SUCCESS" and code 200, got ${describeReply(r)}`);
  }
  return s.ok ? s.data : undefined;
}

/**
 * A refusal: the error envelope of §7 (code not 200, status not SUCCESS), or HTTP 401/403 whatever the body. An
 * answer that is neither a refusal nor the success envelope is a malformed answer, not a refusal.
 */
export function isRefusal(r: Reply): boolean {
  if (r.status === 401 || r.status === 403) return true;
  // The error envelope's status is never "SUCCESS" (schemas/envelope.error.schema.json): a list's answer is settled
  // here, not by validating (and walking) the whole list against the error envelope. A body that is not JSON has no
  // json (core/transport/exchange.ts), which the error envelope rejects.
  if (isRecord(r.json) && r.json.status === 'SUCCESS') return false;
  return validate('envelope.error', r.json).length === 0;
}

/**
 * The data of an endpoint's answer, for a check that judges what the data holds. Each fault is one check's: a
 * refusal is the token's (AUTH-05), an answer without an envelope carrying data is the envelope's (ENV-01); both
 * block this check instead of failing it a second time. A malformed envelope around data (code "200", status
 * "success") still shows the data, so its shape is judged.
 */
export function answeredData(r: Reply, what: string): unknown {
  if (isRefusal(r))
    throw new Blocked(
      `${what} was refused (${describeReply(r)}), so its data could not be judged (AUTH-05 reports the refusal)`,
    );
  if (!isRecord(r.json) || !('data' in r.json)) {
    throw new Blocked(
      `${what} answered no envelope with data (${describeReply(r)}), so its data could not be judged (ENV-01 reports the envelope)`,
    );
  }
  return r.json.data;
}

/**
 * Validates one record against a schema, fails with the first errors, and notes fields the spec does not list
 * (allowed: a server may add fields). An array is not one record.
 */
export function expectShape(ctx: CheckContext, schema: SchemaName, value: unknown, what: string): void {
  if (Array.isArray(value))
    return ctx.fail(`${what}: expected one ${schema} record at ${DATA_AT}, got an array of ${value.length}`, [
      `${schema}:array`,
    ]);
  const judge = new ShapeJudge(schema, false);
  judge.add(value, 0);
  judge.report(ctx, what, value, 1);
}

/** expectShape for a list of records, judged element by element in one pass (shared for a list read from disk). */
export async function expectShapes(
  ctx: CheckContext,
  schema: SchemaName,
  list: readonly unknown[],
  what: string,
): Promise<void> {
  const judge = new ShapeJudge(schema, true);
  await eachElement(list, (v, i) => judge.add(v, i));
  judge.report(ctx, what, list, list.length);
}

/** The shape verdict on records, taken one record at a time (a list read from disk is never held whole). */
class ShapeJudge {
  // The problems of the first records are listed (up to SHAPE_PROBLEMS); past that, records are only counted as
  // matching or not: two million {} must not become eighteen million error objects.
  private readonly errors: SchemaError[] = [];
  private invalid = 0;
  private listed = 0;
  private readonly extra = new Set<string>();
  private readonly label: string;
  constructor(
    private readonly schema: SchemaName,
    private readonly many: boolean,
  ) {
    this.label = many ? 'data[]' : 'data';
  }

  add(item: unknown, i: number): void {
    if (this.errors.length < SHAPE_PROBLEMS) {
      const e = validate(this.schema, item, this.many ? `${DATA_AT}/${i}` : DATA_AT);
      if (e.length) {
        this.invalid++;
        this.listed++;
        this.errors.push(...e.slice(0, SHAPE_PROBLEMS - this.errors.length));
      }
    } else if (!isValid(this.schema, item)) this.invalid++;
    // Extra fields are only worth a note on records that pass (a failure is reported instead).
    if (!this.errors.length && this.extra.size <= 100)
      for (const f of undeclaredFields(this.schema, item, this.label)) this.extra.add(f);
  }

  report(ctx: CheckContext, what: string, value: unknown, count: number): void {
    const { errors, schema } = this;
    if (errors.length) {
      const counted =
        errors.length < SHAPE_PROBLEMS
          ? `${errors.length} problem${errors.length > 1 ? 's' : ''}`
          : `${this.invalid} of ${count} record${count > 1 ? 's' : ''} with problems`;
      // Fingerprints of the problems listed; the records only counted share one (a stable key, not their number).
      const keys = errors.map((e) => shapeKey(schema, value, e));
      ctx.fail(
        `${what} does not match the ${schema} shape (${counted}): ${formatErrors(errors)}`,
        this.invalid > this.listed ? [...keys, `${schema}:more-records`] : keys,
      );
    }
    if (this.extra.size) {
      const list = [...this.extra];
      ctx.note(
        `${what}: fields the spec does not list (allowed): ${list
          .slice(0, 10)
          .map((f) => filtered(f))
          .join(', ')}${list.length > 10 ? ` and ${list.length - 10}${list.length > 100 ? '+' : ''} more` : ''}`,
      );
    }
  }
}

/** Schema problems listed in a shape failure before records are only counted. */
const SHAPE_PROBLEMS = 20;
/** Where the records a shape judgement reads sit in an answer: its envelope's data (every caller's). */
const DATA_AT = '/data';

/**
 * The fingerprint of a shape problem: the record by its id (not its place in the list, which may change) and the
 * path inside it, e.g. `dish:101/price`.
 */
function shapeKey(schema: SchemaName, value: unknown, e: SchemaError): string {
  const rest = e.path.slice(DATA_AT.length);
  if (!Array.isArray(value)) return `${schema}${rest || '/'}`;
  // A list's problem is always at `/data/<index>…` (ShapeJudge.add validates each element there): the match is
  // never null, and the `s` flag lets the rest hold any character.
  const [, index, inner] = /\/(\d+)(.*)/s.exec(rest)! as unknown as [string, string, string];
  const rec: unknown = value[Number(index)];
  const idText =
    isRecord(rec) && (typeof rec.id === 'string' || typeof rec.id === 'number') ? String(rec.id) : `#${index}`;
  // The server chooses ids (a 5 MB one): a cut keeps the key stable and small.
  const id = idText.length > 200 ? `${idText.slice(0, 200)}…` : idText;
  return `${schema}:${id}${inner}`;
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
  ctx.shows(r, isRecord(r.json) && codes.includes(code as number) && !errors.length ? 'correct' : 'finding');
  if (!isRecord(r.json))
    ctx.fail(`${what}: expected an error envelope with code ${codes.join(' or ')}, got ${describeReply(r)}`);
  if (!codes.includes(code as number))
    ctx.fail(`${what}: expected code ${codes.join(' or ')}, got ${describeReply(r)}`);
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

/** The data an answer that should carry none carries, quoted for a finding ("the refusal carries data …"). */
export const carriedData = (r: Reply): string => show((r.json as { data?: unknown }).data, 80);

/** The JSON objects of a list (anything else in it is left to the shape checks). */
export const records = (v: unknown): Rec[] =>
  // A disk list stays one (its records read from the file as the check goes; core/transport/disk-list.ts).
  Array.isArray(v) ? (isDiskList(v) ? (diskRecords(v) as Rec[]) : v.filter(isRecord)) : [];
