/**
 * The floor of a conformance run: a bare undici script that sends exactly the requests a suite run sent (recorded
 * by the reference server), at the same concurrency, and parses and schema-validates every body through
 * core/spec/schemas.ts (compiled once). Nothing else: no Vitest, no evidence, no redaction, no report.
 *
 * It keeps only the dependencies any client has: a request carrying an issued token waits for that token's /auth,
 * and a detail request (/dishes/:id, /seats/:id) with a valid token waits for its list, where the ids come from.
 * Usage: node dist/bench/floor.js <plan.json>; prints one JSON line {requests, invalid, statuses, http_ms}.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { validate, type SchemaName } from '../core/spec/schemas.js';
import { AUTH_PATH, carryToken, tokenField } from '../core/spec/auth-scheme.js';

export interface PlannedRequest {
  method: string;
  /** Path and query as the server received them, e.g. /open/dishes/101. */
  url: string;
  /** An /auth request whose answer carries the token of this application. */
  issues?: string;
  /** The open-token header: a token issued during the run to this application, or a literal value. */
  token?: { issuedTo: string } | { literal: string };
}

export interface FloorPlan {
  origin: string;
  basePath: string;
  caFile?: string;
  concurrency: number;
  requests: PlannedRequest[];
}
export interface FloorResult {
  requests: number;
  invalid: number;
  statuses: Record<string, number>;
  http_ms: number;
  errors: number;
  first_error?: string;
}

type Json = Record<string, unknown>;

/** The schema of a successful answer's data, by endpoint (a list is validated record by record). */
function dataSchema(apiPath: string): { schema: SchemaName; list: boolean } | undefined {
  const p = apiPath.split('?')[0]!;
  if (p === AUTH_PATH) return { schema: 'auth-result', list: false };
  if (p === '/merchant') return { schema: 'merchant', list: false };
  if (p === '/dishes') return { schema: 'dish', list: true };
  if (p === '/seats') return { schema: 'seat', list: true };
  if (p === '/orders') return { schema: 'order', list: true };
  if (/^\/dishes\/[^/]+$/.test(p)) return { schema: 'dish', list: false };
  if (/^\/seats\/[^/]+$/.test(p)) return { schema: 'seat', list: false };
  return undefined;
}

/** Parses and validates one body the way the suite must at least: envelope, then the data's shape. */
function check(apiPath: string, text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  const j = body as Json;
  if (j?.status !== 'SUCCESS') return validate('envelope.error', body).length === 0;
  if (validate('envelope.success', body).length) return false;
  const s = dataSchema(apiPath);
  if (!s) return true;
  if (!s.list) return validate(s.schema, j.data).length === 0;
  return Array.isArray(j.data) && j.data.every((r) => validate(s.schema, r).length === 0);
}

class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private head = 0;
  constructor(private readonly limit: number) {}
  async enter(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }
  leave(): void {
    const next = this.head < this.waiting.length ? this.waiting[this.head++] : undefined;
    if (next) next();
    else this.active--;
  }
}

export async function runFloor(plan: FloorPlan): Promise<FloorResult> {
  const agent = new Agent({
    connections: plan.concurrency,
    connect: plan.caFile ? { ca: readFileSync(plan.caFile) } : {},
  });
  const gate = new Gate(plan.concurrency);
  const statuses: Record<string, number> = {};
  let invalid = 0;
  const errors: string[] = [];
  const apiPath = (url: string): string =>
    url.startsWith(plan.basePath) ? url.slice(plan.basePath.length) || '/' : url;

  // Dependencies: the first successful /auth of each application, and the lists the detail ids come from.
  const tokens = new Map<string, { promise: Promise<string>; resolve: (t: string) => void }>();
  const tokenOf = (app: string): { promise: Promise<string>; resolve: (t: string) => void } => {
    let t = tokens.get(app);
    if (!t) {
      let resolve!: (v: string) => void;
      const promise = new Promise<string>((r) => {
        resolve = r;
      });
      t = { promise, resolve };
      tokens.set(app, t);
    }
    return t;
  };
  const lists = new Map<string, Promise<void>>();

  const send = async (r: PlannedRequest): Promise<string> => {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json; charset=utf-8',
    };
    if (r.token) carryToken(headers, 'literal' in r.token ? r.token.literal : await tokenOf(r.token.issuedTo).promise);
    await gate.enter();
    try {
      let res;
      try {
        res = await request(plan.origin + r.url, { method: r.method as 'GET', headers, dispatcher: agent });
      } catch (e) {
        // As the suite's client does: a kept-alive connection the server closed while idle gets one more try.
        const code = (e as { code?: string }).code ?? '';
        if (
          !['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE'].includes(code) ||
          (r.method !== 'GET' && r.method !== 'HEAD')
        )
          throw e;
        res = await request(plan.origin + r.url, { method: r.method as 'GET', headers, dispatcher: agent });
      }
      const text = await res.body.text();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (!check(apiPath(r.url), text)) invalid++;
      if (r.issues) {
        const token = tokenField((JSON.parse(text) as { data?: unknown }).data) as string | undefined;
        if (token) tokenOf(r.issues).resolve(token);
      }
      return text;
    } catch (e) {
      errors.push(`${r.method} ${r.url}: ${(e as Error).message}`);
      return '';
    } finally {
      gate.leave();
    }
  };

  const started = performance.now();
  const detail = (r: PlannedRequest): string | undefined => {
    const m = /^\/(dishes|seats)\/[^/?]+$/.exec(apiPath(r.url));
    return m && r.token && 'issuedTo' in r.token ? `${r.token.issuedTo} /${m[1]}` : undefined;
  };
  // The first list request per application and resource starts at once: the details of that resource wait for it.
  const listed = new Set<PlannedRequest>();
  for (const r of plan.requests) {
    const p = apiPath(r.url);
    if ((p === '/dishes' || p === '/seats') && r.token && 'issuedTo' in r.token) {
      const key = `${r.token.issuedTo} ${p}`;
      if (!lists.has(key)) {
        listed.add(r);
        lists.set(
          key,
          send(r).then(() => undefined),
        );
      }
    }
  }
  const rest = plan.requests.filter((r) => !listed.has(r));
  await Promise.all([
    ...lists.values(),
    ...rest.map(async (r) => {
      const dep = detail(r);
      if (dep) await lists.get(dep);
      await send(r);
    }),
  ]);
  const http_ms = Math.round(performance.now() - started);
  await agent.close();
  return {
    requests: plan.requests.length,
    invalid,
    statuses,
    http_ms,
    errors: errors.length,
    ...(errors.length ? { first_error: errors[0] } : {}),
  };
}

// Run as a script: node dist/bench/floor.js plan.json
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as FloorPlan;
  const result = await runFloor(plan);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
