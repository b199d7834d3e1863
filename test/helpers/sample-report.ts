import type { Exchange } from '../../core/transport/exchange.js';
import { buildReport, withOutcome, type CheckRecord, type Report } from '../../core/model/report.js';
import type { Area, Level, Status } from '../../core/model/check.js';

/** A recorded exchange as core/transport/http.ts writes it (already redacted). */
export function exchange(
  over: { url?: string; status?: number; body?: string; headers?: Record<string, string>; error?: string } = {},
): Exchange {
  const body = over.body ?? '{"status":"ERROR","code":401,"msg":"Application not authenticated"}';
  return {
    request: {
      method: 'GET',
      url: over.url ?? 'https://api.example/open/dishes',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json; charset=utf-8',
        'open-token': '[REDACTED:token]',
      },
    },
    ...(over.error
      ? { error: over.error }
      : {
          response: {
            status: over.status ?? 200,
            headers: over.headers ?? { 'content-type': 'application/json; charset=utf-8' },
            body_excerpt: body.slice(0, 4096),
            body_bytes: Buffer.byteLength(body),
            truncated: body.length > 4096,
          },
        }),
    duration_ms: 12,
  };
}

export function record(id: string, status: Status, over: Partial<Omit<CheckRecord, 'outcome'>> = {}): CheckRecord {
  return withOutcome({
    id,
    title: `title of ${id}`,
    level: 'MUST' as Level,
    spec: '§4',
    area: 'auth' as Area,
    status,
    message: status === 'passed' ? 'as the spec requires' : `message of ${id}`,
    evidence: [],
    notes: [],
    duration_ms: 5,
    ...over,
  });
}

/** A report whose catalogue is exactly its checks (so it is complete unless a check is skipped). */
export function reportOf(checks: CheckRecord[], errors: string[] = []): Report {
  return buildReport({
    checks,
    catalogue: checks,
    strict: false,
    baseUrl: 'https://api.example/open',
    startedAt: new Date('2026-01-02T03:04:05.678Z'),
    durationMs: 1234,
    fuzz: { seed: 7, runs: 10 },
    config: { tls: { insecure: false, ca_file: '/etc/ca.pem' } },
    errors,
  });
}

/** A large report: `checks` failing checks of `perCheck` exchanges each, bodies at the excerpt limit. */
export function bigReport(checks: number, perCheck: number): Report {
  const body = JSON.stringify({
    status: 'SUCCESS',
    code: 200,
    data: Array.from({ length: 60 }, (_, i) => ({ id: i, name: `<b>dish ${i}</b>`, price: 1.5 })),
  });
  const areas: Area[] = ['auth', 'envelope', 'dishes', 'seats', 'orders', 'errors'];
  return reportOf(
    Array.from({ length: checks }, (_, i) =>
      record(`BIG-${i}`, i % 3 ? 'failed' : 'passed', {
        area: areas[i % areas.length]!,
        evidence: Array.from({ length: perCheck }, (_, j) =>
          exchange({ url: `https://api.example/open/dishes/${j}`, body: `${body}${' '.repeat(j)}` }),
        ),
      }),
    ),
  );
}
