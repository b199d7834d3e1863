/**
 * A recording as an exchange source: each request a check asks for gets the recorded answer of the same request
 * (method, path, query, open-token, and the Content-Type header when the check leaves it out); nothing is sent.
 * A request the recording does not hold fails with NotRecorded, and the check that asked is skipped, saying so
 * (run-check.ts): a recording can show a finding, never prove that a request would have been answered well.
 */
import { isUtf8 } from 'node:buffer';
import type { Redactor } from './redact.js';
import type { ExchangeSource } from './exchange-source.js';
import {
  EXCERPT_CHARS,
  EXCERPT_MARGIN,
  NetworkError,
  SPEC_CONTENT_TYPE,
  type Exchange,
  type Reply,
  type RequestSpec,
} from './exchange.js';
import { parseJsonExact } from './exact-json.js';
import { learnTokens } from './issued-tokens.js';
import { withBom, withoutBom } from './content-coding.js';

/** One recorded request and its answer, whole. Header names are lower case. */
export interface RecordedExchange {
  request: { method: string; url: string; headers: Record<string, string> };
  /** The answer; absent when there was none (then error says why: a refused connection, a timeout). */
  response?: { status: number; headers: Record<string, string>; body: string; encoding?: 'base64' };
  error?: string;
  /** How long the answer took, as recorded (the timing profile reads it). */
  duration_ms?: number;
  /** When the request went out (ISO 8601), for a HAR's timeline. */
  started_at?: string;
}

/** A recorded body's bytes, as they came. */
export const bodyBytes = (r: NonNullable<RecordedExchange['response']>): Buffer =>
  Buffer.from(r.body, r.encoding === 'base64' ? 'base64' : 'utf8');

/** The request was not in the recording: nothing can be said of its answer. */
export class NotRecorded extends NetworkError {
  constructor(
    readonly request: string,
    exchange: Exchange,
  ) {
    super(`not in the recording: ${request}`, exchange, 'NOT_RECORDED', true);
  }
}

/**
 * The request (method and path from base_url) of an exchange a NotRecorded carried: runCheck tells a check that
 * asked for one apart from a check that got answers.
 */
const unrecorded = new WeakMap<Exchange, string>();
/** Why an exchange of a RecordedSource has no answer ("not in the recording: …"), or undefined. */
export const unrecordedRequest = (e: Exchange): string | undefined => unrecorded.get(e);

/** The parts of a request that choose its recorded answer. */
function requestKey(method: string, url: URL, base: URL, token: string | undefined): string {
  const basePath = base.pathname.replace(/\/+$/, '');
  const inBase = url.origin === base.origin && (url.pathname === basePath || url.pathname.startsWith(`${basePath}/`));
  const where = inBase ? url.pathname.slice(basePath.length) : `${url.origin}${url.pathname}`;
  const query = [...url.searchParams].sort(([a, x], [b, y]) =>
    a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1,
  );
  return JSON.stringify([method.toUpperCase(), where, query, token ?? null]);
}

/** An ExchangeSource that answers from a recording and sends nothing: checks run in milliseconds. */
interface Slot {
  typed: RecordedExchange[];
  untyped: RecordedExchange[];
  next: number;
}

/** Answers each request from the recording, in the order recorded; sends nothing (see the top of this file). */
export class RecordedSource implements ExchangeSource {
  private readonly base: URL;
  /** Per request key: its recorded answers in order, with and without the Content-Type request header. */
  private readonly byKey = new Map<string, Slot>();
  /** Method and path of every recorded request (whatever its token): what holds() looks up. */
  private readonly paths = new Set<string>();

  constructor(
    recording: readonly RecordedExchange[],
    baseUrl: string,
    readonly redactor: Redactor,
  ) {
    this.base = new URL(baseUrl);
    for (const x of recording) {
      let url: URL;
      try {
        url = new URL(x.request.url);
      } catch {
        continue;
      }
      const key = requestKey(x.request.method, url, this.base, x.request.headers['open-token']);
      this.paths.add(`${x.request.method.toUpperCase()} ${url.origin}${url.pathname}`);
      let slot = this.byKey.get(key);
      if (!slot) this.byKey.set(key, (slot = { typed: [], untyped: [], next: 0 }));
      (x.request.headers['content-type'] !== undefined ? slot.typed : slot.untyped).push(x);
    }
  }

  private urlOf(spec: RequestSpec): URL {
    return new URL(
      `${(spec.baseUrl ?? this.base.href).replace(/\/+$/, '')}${spec.path}${spec.query ? `?${new URLSearchParams(spec.query).toString()}` : ''}`,
    );
  }

  /** The recorded answers to a request, in order. */
  private answersTo(spec: RequestSpec, url: URL): { slot?: Slot; answers: RecordedExchange[] } {
    const slot = this.byKey.get(requestKey(spec.method ?? 'GET', url, this.base, spec.token));
    // A check that leaves Content-Type out asks what the server does without it: only such a recording answers.
    // One that sends it takes an answer recorded without it too (a browser sends none on a GET).
    const answers =
      spec.contentType === false ? (slot?.untyped ?? []) : slot?.typed.length ? slot.typed : (slot?.untyped ?? []);
    return { ...(slot ? { slot } : {}), answers };
  }

  holds(spec: RequestSpec): boolean {
    const url = this.urlOf(spec);
    return this.paths.has(`${(spec.method ?? 'GET').toUpperCase()} ${url.origin}${url.pathname}`);
  }

  async send(spec: RequestSpec): Promise<Reply> {
    const method = spec.method ?? 'GET';
    const url = this.urlOf(spec);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.contentType !== false) headers['content-type'] = SPEC_CONTENT_TYPE;
    if (spec.token !== undefined) headers['open-token'] = spec.token;
    const { slot, answers } = this.answersTo(spec, url);
    const request = { method, url: url.href, headers };
    if (!answers.length) {
      const asked = `${method} ${spec.baseUrl ? url.href : `${spec.path}${url.search}`}`;
      const exchange: Exchange = { request, error: `not in the recording: ${asked}`, duration_ms: 0 };
      unrecorded.set(exchange, asked);
      throw new NotRecorded(asked, exchange);
    }
    // The same request asked again gets the next recorded answer, the last one once they are used up.
    const x = answers[Math.min(slot!.next++, answers.length - 1)]!;
    if (!x.response) {
      const why = x.error ?? 'no response';
      throw new NetworkError(
        `${method} ${url.href}: ${why}`,
        { request, error: why, duration_ms: 0 },
        'RECORDED_ERROR',
        true,
      );
    }
    return replyOf(x.response, request, this.redactor, x.duration_ms ?? 0);
  }

  async close(): Promise<void> {
    /* nothing open */
  }
}

/** The recorded answer as the HTTP client would have given it, its tokens learnt by the redactor as live. */
function replyOf(
  response: NonNullable<RecordedExchange['response']>,
  request: Exchange['request'],
  redactor: Redactor,
  durationMs: number,
): Reply {
  // Read as the HTTP client reads a live answer: a leading byte order mark off, and said (Reply.bom).
  const { body: buf, bom } = withoutBom(bodyBytes(response));
  const utf8 = isUtf8(buf);
  const text = buf.toString('utf8');
  let json: unknown;
  let jsonError: string | undefined;
  try {
    json = parseJsonExact(text);
  } catch (e) {
    jsonError = (e as Error).message;
  }
  learnTokens(redactor, json, text, request.url, response.headers);
  const exchange: Exchange = {
    request,
    response: {
      status: response.status,
      headers: response.headers,
      body_excerpt: text.slice(0, EXCERPT_CHARS + EXCERPT_MARGIN),
      body_bytes: buf.length,
      truncated: text.length > EXCERPT_CHARS,
    },
    duration_ms: durationMs,
  };
  return {
    status: response.status,
    headers: response.headers,
    text,
    bytes: buf.length,
    utf8,
    json,
    ...(jsonError !== undefined ? { jsonError } : {}),
    ...(bom ? { bom: true as const } : {}),
    durationMs,
    exchange,
  };
}

/** A source that keeps every exchange another source answered, whole (for --record-har and test fixtures). */
export class Recorder implements ExchangeSource {
  readonly exchanges: RecordedExchange[] = [];
  constructor(private readonly inner: ExchangeSource) {}
  get redactor(): Redactor {
    return this.inner.redactor;
  }

  async send(spec: RequestSpec): Promise<Reply> {
    const started_at = new Date().toISOString();
    let r: Reply;
    try {
      r = await this.inner.send(spec);
    } catch (e) {
      if (e instanceof NetworkError)
        this.exchanges.push({ request: e.exchange.request, error: e.exchange.error ?? e.message, started_at });
      throw e;
    }
    this.exchanges.push({
      started_at,
      request: r.exchange.request,
      duration_ms: Math.round(r.durationMs),
      response: {
        status: r.status,
        headers: r.headers,
        // The body as it came (decoded from any content coding, as a HAR holds it), its byte order mark back on.
        ...(r.raw
          ? { body: withBom(r.raw, r.bom).toString('base64'), encoding: 'base64' as const }
          : { body: r.bom ? `\uFEFF${r.text}` : r.text }),
      },
    });
    return r;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
