import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { Redactor } from './redact.js';

export const SPEC_CONTENT_TYPE = 'application/json; charset=utf-8';
const EXCERPT_CHARS = 4096;

export interface RequestSpec {
  method?: string;
  /** Path relative to base_url (leading slash), sent as given: fuzzed ids are not re-encoded. */
  path: string;
  query?: Record<string, string>;
  /** Value of the open-token header; undefined sends none. */
  token?: string;
  /** Send the spec's Content-Type header (§4); default true. */
  contentType?: boolean;
  /** Use another origin or base than base_url (transport checks). */
  baseUrl?: string;
}

/** One request/response as it goes into a report: secrets already redacted, body cut to an excerpt. */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string> };
  response?: { status: number; headers: Record<string, string>; body_excerpt: string; body_bytes: number; truncated: boolean };
  error?: string;
  duration_ms: number;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  bytes: number;
  utf8: boolean;
  /** Parsed body, or undefined when it is not JSON (see jsonError). */
  json: unknown;
  jsonError?: string;
  durationMs: number;
  exchange: Exchange;
}

/** The request got no usable response (timeout, reset, refused, TLS, too large). */
export class NetworkError extends Error {
  constructor(message: string, readonly exchange: Exchange, readonly code: string) { super(message); }
}

export interface ClientOptions {
  baseUrl: string;
  timeoutMs: number;
  deadlineMs: number;
  concurrency: number;
  rateLimit?: number;
  maxBodyBytes: number;
  tls: { insecure: boolean; ca_file?: string };
  redactor: Redactor;
}

/** Most requests in flight at once, and a minimum spacing between starts when a rate is set. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private nextStart = 0;
  constructor(private readonly limit: number, private readonly rate?: number) {}

  async enter(): Promise<void> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    if (this.rate) {
      const now = Date.now();
      const at = Math.max(now, this.nextStart);
      this.nextStart = at + 1000 / this.rate;
      if (at > now) await new Promise((r) => setTimeout(r, at - now));
    }
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next(); else this.active--;
  }
}

function describeError(e: unknown, timeoutMs: number): { code: string; message: string } {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.cause?.code ?? err.code ?? err.name;
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { code: 'TIMEOUT', message: `no complete response within ${timeoutMs} ms` };
  }
  if (err.name === 'AbortError') return { code: 'DEADLINE', message: 'the run deadline passed before the response completed' };
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ENOTFOUND: 'host name does not resolve',
    EAI_AGAIN: 'host name does not resolve (temporary DNS failure)',
    ECONNRESET: 'connection reset by the server',
    UND_ERR_SOCKET: 'the server closed the connection',
    EPIPE: 'the server closed the connection',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed and not trusted (give tls.ca_file / --ca-file, or tls.insecure / --insecure for testing)',
    SELF_SIGNED_CERT_IN_CHAIN: 'the server certificate chain is not trusted (give tls.ca_file / --ca-file, or tls.insecure / --insecure for testing)',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate is not trusted (give tls.ca_file / --ca-file, or tls.insecure / --insecure for testing)',
    CERT_HAS_EXPIRED: 'the server certificate has expired',
    ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not match the host name',
    EPROTO: 'TLS handshake failed (is the server speaking HTTPS?)',
    ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the server speaking HTTPS?)',
    UND_ERR_INFO: 'the server sent an invalid HTTP response',
    HPE_INVALID_CONSTANT: 'the server sent an invalid HTTP response',
  };
  const base = known[code] ?? (err.cause?.message || err.message || String(e)).split('\n')[0]!;
  return { code, message: base };
}

export class HttpClient {
  private readonly agent: Agent;
  private readonly gate: Gate;
  private readonly deadline: AbortSignal;
  readonly base: URL;

  constructor(private readonly opts: ClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.agent = new Agent({
      connections: opts.concurrency,
      connect: {
        timeout: opts.timeoutMs,
        rejectUnauthorized: !opts.tls.insecure,
        ...(opts.tls.ca_file ? { ca: readFileSync(opts.tls.ca_file) } : {}),
      },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
    });
    this.gate = new Gate(opts.concurrency, opts.rateLimit);
    this.deadline = AbortSignal.timeout(opts.deadlineMs);
  }

  get redactor(): Redactor { return this.opts.redactor; }

  url(spec: Pick<RequestSpec, 'path' | 'query' | 'baseUrl'>): string {
    const base = (spec.baseUrl ?? this.opts.baseUrl).replace(/\/+$/, '');
    const q = spec.query ? new URLSearchParams(spec.query).toString() : '';
    return `${base}${spec.path}${q ? `?${q}` : ''}`;
  }

  async send(spec: RequestSpec): Promise<Reply> {
    const method = spec.method ?? 'GET';
    const url = this.url(spec);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.contentType !== false) headers['content-type'] = SPEC_CONTENT_TYPE;
    if (spec.token !== undefined) headers['open-token'] = spec.token;
    const r = this.opts.redactor;
    const recordRequest = { method, url: r.redact(url), headers: r.redactDeep(headers) };

    await this.gate.enter();
    const started = performance.now();
    try {
      const signal = AbortSignal.any([AbortSignal.timeout(this.opts.timeoutMs), this.deadline]);
      const res = await request(url, { method, headers, signal, dispatcher: this.agent });
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > this.opts.maxBodyBytes) {
          res.body.destroy();
          throw Object.assign(new Error(`response body exceeds the ${this.opts.maxBodyBytes}-byte cap`), { code: 'BODY_TOO_LARGE' });
        }
        chunks.push(chunk);
      }
      const buf = Buffer.concat(chunks);
      chunks.length = 0;
      let utf8 = true;
      let text: string;
      try { text = new TextDecoder('utf-8', { fatal: true }).decode(buf); } catch { utf8 = false; text = buf.toString('utf8'); }
      let json: unknown;
      let jsonError: string | undefined;
      try { json = JSON.parse(text); } catch (e) { jsonError = (e as Error).message; }
      this.learnTokens(json);
      const durationMs = performance.now() - started;
      const resHeaders: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) resHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
      const exchange: Exchange = {
        request: recordRequest,
        response: {
          status: res.statusCode,
          headers: r.redactDeep(resHeaders),
          body_excerpt: r.redact(text.length > EXCERPT_CHARS ? text.slice(0, EXCERPT_CHARS) : text),
          body_bytes: bytes,
          truncated: text.length > EXCERPT_CHARS,
        },
        duration_ms: Math.round(durationMs),
      };
      return { status: res.statusCode, headers: resHeaders, text, bytes, utf8, json, ...(jsonError ? { jsonError } : {}), durationMs, exchange };
    } catch (e) {
      const d = (e as { code?: string }).code === 'BODY_TOO_LARGE'
        ? { code: 'BODY_TOO_LARGE', message: (e as Error).message }
        : describeError(e, this.opts.timeoutMs);
      const message = r.redact(d.message);
      const exchange: Exchange = { request: recordRequest, error: message, duration_ms: Math.round(performance.now() - started) };
      throw new NetworkError(`${method} ${recordRequest.url}: ${message}`, exchange, d.code);
    } finally {
      this.gate.leave();
    }
  }

  /** Every token a server issues becomes a secret the moment it is seen (§2.6 app_token). */
  private learnTokens(json: unknown): void {
    const token = (json as { data?: { app_token?: unknown } } | undefined)?.data?.app_token;
    if (typeof token === 'string') this.opts.redactor.add(token, 'token');
  }

  async close(): Promise<void> { await this.agent.close(); }
}

