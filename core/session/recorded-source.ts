/**
 * A recording as an exchange source: each request a check asks for gets the recorded answer of the same request
 * (method, path, query, open-token, the request body if any, and the Content-Type header when the check leaves it
 * out); nothing is sent.
 * A request the recording does not hold fails with NotRecorded, and the check that asked is skipped, saying so
 * (run-check.ts): a recording can show a finding, never prove that a request would have been answered well.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, linkSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { DISK_LIST_BYTES, readDiskList, type DiskListBody } from '../transport/disk-list.js';
import { join } from 'node:path';
import type { Who } from '../spec/resources.js';
import { placeholderOf, type Redactor } from '../redact/redact.js';
import type { ExchangeSource } from '../transport/exchange-source.js';
import type { RequestChain } from '../transport/pacing.js';
import {
  EXCERPT_CHARS,
  EXCERPT_HEAD_BYTES,
  EXCERPT_MARGIN,
  NetworkError,
  SPEC_CONTENT_TYPE,
  type Exchange,
  type Reply,
  type RequestSpec,
} from '../transport/exchange.js';
import { parseJsonExact } from '../base/exact-json.js';
import { textOnDemand } from '../transport/rendered-text.js';
import { parseJsonBuffer } from '../transport/json-buffer.js';
import { BIG_BODY_BYTES } from '../transport/body-sink.js';
import { learnTokens } from '../transport/issued-tokens.js';
import {
  carryToken,
  TOKEN_FIELD,
  tokenField,
  tokenOfRequest,
  withPublicKey,
  withSecretKey,
} from '../spec/auth-scheme.js';
import { withBom, withoutBom } from '../transport/content-coding.js';

/** One recorded request and its answer, whole. Header names are lower case. */
export interface RecordedExchange {
  /** body: the request body, when one was sent (HAR postData.text): a replay matches it exactly. */
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /**
   * The answer; absent when there was none (then error says why: a refused connection, a timeout). A body too long
   * to hold is in a file of its own (file: its bytes as they came, body then empty).
   */
  response?: {
    status: number;
    headers: Record<string, string>;
    body: string;
    encoding?: 'base64';
    file?: string;
    /** The issued token's characters that no header value may carry (HarEntry _token_chars), as code points. */
    tokenChars?: string;
    /**
     * A live answer on its way to a HAR (Reply.wire): its bytes as they came (body then empty), in memory or in a
     * file the writer removes; `utf8` says whether they are text, `bom` that a byte order mark came before them.
     */
    wire?: { bytes: Buffer | { file: string }; utf8: boolean; bom: boolean };
  };
  error?: string;
  /** How long the answer took, as recorded (the timing profile reads it). */
  duration_ms?: number;
  /** When the request went out (ISO 8601), for a HAR's timeline. */
  started_at?: string;
}

/** A recorded body's bytes, as they came. */
export const bodyBytes = (r: NonNullable<RecordedExchange['response']>): Buffer =>
  r.file !== undefined ? readFileSync(r.file) : Buffer.from(r.body, r.encoding === 'base64' ? 'base64' : 'utf8');

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

/**
 * The parts of a request that choose its recorded answer: method and absolute path (what holds() looks up), then
 * query (in any order), token and the request body, if any (exactly). Absolute: a capture's base URL may only be
 * known once all of it was read.
 */
function requestKey(
  method: string,
  url: URL,
  token: string | undefined,
  body?: string,
): { path: string; rest: string } {
  const query = [...url.searchParams].sort(([a, x], [b, y]) =>
    a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1,
  );
  // Joined, not concatenated: one flat string, not a rope of the URL's parts (a million keys of a capture).
  return {
    path: [method.toUpperCase(), ' ', url.origin, url.pathname].join(''),
    // A request without a body keeps the key it had before bodies were recorded.
    rest: JSON.stringify(body === undefined ? [query, token ?? null] : [query, token ?? null, body]),
  };
}

/** The recorded answers of one request, in order, with and without the Content-Type request header. */
interface Slot {
  typed: number[];
  untyped: number[];
  next: number;
}

/**
 * The answers of one request: a Slot, or while there is one answer only, its reference (ref * 2, plus 1 when the
 * request carried Content-Type). A capture of a million details holds a million of these: a number costs nothing.
 */
type Answers = Slot | number;
/** The requests of one method and path: one (its rest and answers), or several by their rest. */
type PathAnswers = { rest: string; answers: Answers } | Map<string, Answers>;

/**
 * Answers kept per request and Content-Type: a request asked again gets the next one, the last once used up, and a
 * check asks the same request a few times at most. The first ones and the last are kept; a capture of a client that
 * polled /dishes 100,000 times holds one index entry per answer no more.
 */
const ANSWERS_KEPT = 32;

/**
 * Distinct requests (method, path, query, token) a recording indexes, at about 200 bytes each: past it, exchanges of
 * further requests are left out and counted, so that a capture of any size is judged within a bounded memory.
 */
export const MAX_REQUESTS = 2_000_000;
/** Characters of the index's keys (a hostile capture's URLs may be megabytes each): past it, as MAX_REQUESTS. */
const MAX_INDEX_CHARS = 256 * 1024 * 1024;

/**
 * Exchanges kept as JSON text in memory, all together; past this they are appended to a file, and read back one at
 * a time when a check asks for one: a capture of a million exchanges costs its index, not its objects.
 */
const MEMORY_BUDGET_CHARS = 32 * 1024 * 1024;

/**
 * A recording, indexed by request: what RecordedSource answers from. Its exchanges are added one at a time (a HAR
 * is read as a stream, core/session/har-stream.ts); each is kept as JSON text, in memory within a budget, then in a file
 * of the recording's own directory (removed by close()).
 */
export class Recording {
  /** Per method and path, the answers by query and token (the same rest string shared: see intern). */
  private readonly byPath = new Map<string, PathAnswers>();
  /** Query-and-token strings, each kept once (a token repeats in every request of a capture). */
  private readonly rests = new Map<string, string>();
  private readonly held: string[] = [];
  private heldChars = 0;
  /** Exchanges in the file: [offset, length] by index past `held`. */
  private readonly spilled: number[] = [];
  private fd: number | undefined;
  private fileBytes = 0;
  private count = 0;
  /** Failed attempts (no response) set aside because the same request's retry was recorded after them. */
  retriedFailures = 0;
  /** Distinct requests indexed, and exchanges of further distinct requests left out (MAX_REQUESTS). */
  private requests = 0;
  private indexChars = 0;
  beyondIndex = 0;

  /** @param dir where spilled exchanges (and bodies kept in files) go; none: everything stays in memory */
  constructor(readonly dir?: string) {}

  /** How many exchanges the recording holds. */
  get size(): number {
    return this.count;
  }

  add(x: RecordedExchange): void {
    let url: URL;
    try {
      url = new URL(x.request.url);
    } catch {
      return;
    }
    const { path, rest } = requestKey(x.request.method, url, tokenOfRequest(x.request.headers), x.request.body);
    const typed = x.request.headers['content-type'] !== undefined;
    const found = this.answers(path, rest);
    if (found === undefined) {
      if (this.requests >= MAX_REQUESTS || this.indexChars + path.length + rest.length > MAX_INDEX_CHARS) {
        this.beyondIndex++;
        return;
      }
      this.requests++;
      this.indexChars += path.length + rest.length;
      this.put(path, this.intern(rest), this.store(x) * 2 + (typed ? 1 : 0));
      return;
    }
    const slot = this.slotOf(path, rest, found);
    const list = typed ? slot.typed : slot.untyped;
    // Devtools records a failed attempt (status 0: reset, offline, blocked) before the retry that got an answer: the
    // client's network, not the server's. The retry stands for the request; the failure is set aside and counted.
    if (x.response)
      while (list.length && this.at(list[list.length - 1]!).response === undefined) {
        list.pop();
        this.retriedFailures++;
      }
    const ref = this.store(x);
    if (list.length >= ANSWERS_KEPT) list[list.length - 1] = ref;
    else list.push(ref);
  }

  private intern(rest: string): string {
    const known = this.rests.get(rest);
    if (known !== undefined) return known;
    if (this.rests.size < 100_000) this.rests.set(rest, rest);
    return rest;
  }

  private answers(path: string, rest: string): Answers | undefined {
    const p = this.byPath.get(path);
    if (p === undefined) return undefined;
    if (p instanceof Map) return p.get(rest);
    return p.rest === rest ? p.answers : undefined;
  }

  private put(path: string, rest: string, answers: Answers): void {
    const p = this.byPath.get(path);
    if (p === undefined) this.byPath.set(path, { rest, answers });
    else if (p instanceof Map) p.set(rest, answers);
    else if (p.rest === rest) p.answers = answers;
    else
      this.byPath.set(
        path,
        new Map([
          [p.rest, p.answers],
          [rest, answers],
        ]),
      );
  }

  /** The Slot of a request's answers, made from a single reference the first time it is needed. */
  private slotOf(path: string, rest: string, a: Answers): Slot {
    if (typeof a !== 'number') return a;
    const ref = Math.floor(a / 2);
    const slot: Slot = a % 2 ? { typed: [ref], untyped: [], next: 0 } : { typed: [], untyped: [ref], next: 0 };
    this.put(path, rest, slot);
    return slot;
  }

  private store(x: RecordedExchange): number {
    const text = JSON.stringify(x);
    const ref = this.count++;
    if (this.dir === undefined || (!this.spilled.length && this.heldChars + text.length <= MEMORY_BUDGET_CHARS)) {
      this.held.push(text);
      this.heldChars += text.length;
      return ref;
    }
    this.fd ??= openSync(join(this.dir, 'exchanges.jsonl'), 'w+');
    const buf = Buffer.from(text);
    writeSync(this.fd, buf, 0, buf.length, this.fileBytes);
    this.spilled.push(this.fileBytes, buf.length);
    this.fileBytes += buf.length;
    return ref;
  }

  /** The exchange of a reference add() gave. */
  at(ref: number): RecordedExchange {
    if (ref < this.held.length) return JSON.parse(this.held[ref]!) as RecordedExchange;
    const i = (ref - this.held.length) * 2;
    const buf = Buffer.allocUnsafe(this.spilled[i + 1]!);
    readSync(this.fd!, buf, 0, buf.length, this.spilled[i]!);
    return JSON.parse(buf.toString('utf8')) as RecordedExchange;
  }

  /** The recorded answers to a request (method, URL, token and body), in order. */
  slot(method: string, url: URL, token: string | undefined, body?: string): Slot | undefined {
    const { path, rest } = requestKey(method, url, token, body);
    const a = this.answers(path, rest);
    return a === undefined ? undefined : this.slotOf(path, rest, a);
  }

  holds(method: string, url: URL): boolean {
    return this.byPath.has(`${method.toUpperCase()} ${url.origin}${url.pathname}`);
  }

  /** Removes what the recording wrote to its directory (the directory is the caller's). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** The recording of a list of exchanges, all in memory (a check's unit test, a run's own exchanges). */
export function recordingOf(exchanges: Iterable<RecordedExchange>): Recording {
  const r = new Recording();
  for (const x of exchanges) r.add(x);
  return r;
}

/** Answers each request from the recording, in the order recorded; sends nothing (see the top of this file). */
export class RecordedSource implements ExchangeSource {
  private readonly base: URL;
  private readonly recording: Recording;

  /**
   * @param tokens tokens the recording used for an application without recording its /auth (a browser's cached
   * token): the checks read the recorded answers with them, and what needs /auth itself is not in the recording
   */
  constructor(
    recording: Recording | readonly RecordedExchange[],
    baseUrl: string,
    readonly redactor: Redactor,
    private readonly opts: {
      tokens?: Partial<Record<Who, string>>;
      /** max_body_bytes: a recorded body past it is not read, as a live one would not be. */
      maxBodyBytes?: number;
    } = {},
  ) {
    this.base = new URL(baseUrl);
    this.recording = recording instanceof Recording ? recording : recordingOf(recording);
  }

  recordedToken(who: Who): string | undefined {
    return this.opts.tokens?.[who];
  }

  private urlOf(spec: RequestSpec): URL {
    return new URL(
      `${(spec.baseUrl ?? this.base.href).replace(/\/+$/, '')}${spec.path}${spec.query ? `?${new URLSearchParams(spec.query).toString()}` : ''}`,
    );
  }

  /** The recorded answers to a request, in order. */
  private answersTo(spec: RequestSpec, url: URL): { slot?: Slot; answers: number[] } {
    // A derived credential is recorded as it was sent (a check's unit recording) or as its kind's stand-in (a HAR,
    // core/session/har.ts): looked up as it is, then as the stand-in.
    let slot = this.recording.slot(spec.method ?? 'GET', url, spec.token, spec.body);
    if (!slot && spec.derived === 'token')
      slot = this.recording.slot(spec.method ?? 'GET', url, placeholderOf('derived-token'), spec.body);
    if (!slot && spec.derived === 'key') {
      const standIn = withSecretKey(url, placeholderOf('derived-key'));
      slot = this.recording.slot(spec.method ?? 'GET', standIn, spec.token, spec.body);
    }
    if (!slot && spec.derived === 'public-key') {
      const standIn = withPublicKey(url, placeholderOf('derived-public-key'));
      slot = this.recording.slot(spec.method ?? 'GET', standIn, spec.token, spec.body);
    }
    // A check that leaves Content-Type out asks what the server does without it: only such a recording answers.
    // One that sends it takes an answer recorded without it too (a browser sends none on a GET).
    const answers =
      spec.contentType === false ? (slot?.untyped ?? []) : slot?.typed.length ? slot.typed : (slot?.untyped ?? []);
    return { ...(slot ? { slot } : {}), answers };
  }

  holds(spec: RequestSpec): boolean {
    return this.recording.holds(spec.method ?? 'GET', this.urlOf(spec));
  }

  async send(spec: RequestSpec): Promise<Reply> {
    const method = spec.method ?? 'GET';
    const url = this.urlOf(spec);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.contentType !== false) headers['content-type'] = SPEC_CONTENT_TYPE;
    carryToken(headers, spec.token);
    if (spec.headers) for (const [k, v] of Object.entries(spec.headers)) headers[k.toLowerCase()] = v;
    const { slot, answers } = this.answersTo(spec, url);
    const request = { method, url: url.href, headers, ...(spec.body !== undefined ? { body: spec.body } : {}) };
    if (!answers.length) {
      const asked = `${method} ${spec.baseUrl ? url.href : `${spec.path}${url.search}`}`;
      const exchange: Exchange = { request, error: `not in the recording: ${asked}`, duration_ms: 0 };
      unrecorded.set(exchange, asked);
      throw new NotRecorded(asked, exchange);
    }
    // The same request asked again gets the next recorded answer, the last one once they are used up.
    const x = this.recording.at(answers[Math.min(slot!.next++, answers.length - 1)]!);
    if (!x.response) {
      const why = x.error ?? 'no response';
      throw new NetworkError(
        `${method} ${url.href}: ${why}`,
        { request, error: why, duration_ms: 0 },
        'RECORDED_ERROR',
        true,
      );
    }
    const max = this.opts.maxBodyBytes;
    const size = x.response.file !== undefined ? statSync(x.response.file).size : 0;
    if (max !== undefined && size > max) {
      const why = `response body of ${size} bytes exceeds the ${max}-byte cap (max_body_bytes); not read`;
      throw new NetworkError(
        `${method} ${url.href}: ${why}`,
        { request, error: why, duration_ms: 0 },
        'BODY_TOO_LARGE',
      );
    }
    // A body past DISK_LIST_BYTES is read as a live one is: a list envelope record by record from its file.
    const list = size >= DISK_LIST_BYTES ? await diskListOf(x.response.file!, size) : undefined;
    return replyOf(x.response, request, this.redactor, x.duration_ms ?? 0, list && { list, bytes: size });
  }

  async close(): Promise<void> {
    /* nothing open: the recording is its owner's */
  }
}

/**
 * The recorded answer as the HTTP client would have given it, its tokens learnt by the redactor as live. A big body
 * is parsed from its bytes and its text rendered on demand, as the client does (core/transport/http.ts).
 */
function replyOf(
  response: NonNullable<RecordedExchange['response']>,
  request: Exchange['request'],
  redactor: Redactor,
  durationMs: number,
  /** The body read as a disk list (its envelope and first bytes), and its length. */
  disk?: { list: DiskListBody; bytes: number },
): Reply {
  // Read as the HTTP client reads a live answer: a leading byte order mark off, and said (Reply.bom).
  const { body: buf, bom } = disk ? { body: disk.list.head, bom: false } : withoutBom(bodyBytes(response));
  const bytes = disk ? disk.bytes : buf.length;
  const utf8 = disk !== undefined || isUtf8(buf);
  const big = utf8 && bytes >= BIG_BODY_BYTES;
  let text = big ? undefined : buf.toString('utf8');
  let json: unknown = disk?.list.json;
  let jsonError: string | undefined;
  if (!disk)
    try {
      json = text !== undefined ? parseJsonExact(text) : parseJsonBuffer(buf);
    } catch (e) {
      jsonError = (e as Error).message;
      text ??= buf.toString('utf8');
    }
  // The recording's placeholder of a token no header could carry gets those characters back: judged as live.
  const data = (json as { data?: unknown } | undefined)?.data;
  const token = tokenField(data);
  if (response.tokenChars && typeof token === 'string')
    (data as Record<string, unknown>)[TOKEN_FIELD] =
      token + String.fromCodePoint(...response.tokenChars.split(', ').map((u) => parseInt(u.slice(2), 16)));
  learnTokens(redactor, json, text, request.url, response.headers);
  const head = text ?? buf.subarray(0, EXCERPT_HEAD_BYTES).toString('utf8');
  const exchange: Exchange = {
    request,
    response: {
      status: response.status,
      headers: response.headers,
      body_excerpt: head.slice(0, EXCERPT_CHARS + EXCERPT_MARGIN),
      body_bytes: bytes,
      truncated: text === undefined || text.length > EXCERPT_CHARS,
    },
    duration_ms: durationMs,
  };
  const reply: Reply = {
    status: response.status,
    headers: response.headers,
    text: text ?? '',
    bytes,
    utf8,
    json,
    ...(jsonError !== undefined ? { jsonError } : {}),
    ...(utf8 ? {} : { raw: buf }),
    ...(bom ? { bom: true as const } : {}),
    durationMs,
    exchange,
  };
  if (text === undefined) textOnDemand(reply, json, disk !== undefined);
  return reply;
}

/**
 * A recorded body's file read as a disk list (core/transport/disk-list.ts), or undefined when it is no list envelope.
 * readDiskList takes its file over (unlinks it): it is given a link of its own, so the recording keeps the body
 * for the next check that asks.
 */
async function diskListOf(file: string, bytes: number): Promise<DiskListBody | undefined> {
  const link = `${file}-list-${randomUUID()}`;
  linkSync(file, link);
  try {
    return await readDiskList(link, bytes, EXCERPT_HEAD_BYTES);
  } finally {
    rmSync(link, { force: true });
  }
}

/** A source that keeps every exchange another source answered, whole (for --record-har and test fixtures). */
export class Recorder implements ExchangeSource {
  /** What was exchanged, in order; empty when each exchange goes to `sink` as it happens. */
  readonly exchanges: RecordedExchange[] = [];
  constructor(
    private readonly inner: ExchangeSource,
    /** Takes each exchange as it happens (a HAR written as the run goes) instead of keeping it. */
    private readonly sink: (x: RecordedExchange) => void = (x) => this.exchanges.push(x),
  ) {}
  get redactor(): Redactor {
    return this.inner.redactor;
  }

  async send(spec: RequestSpec, chain?: RequestChain): Promise<Reply> {
    const started_at = new Date().toISOString();
    let r: Reply;
    try {
      r = await this.inner.send(spec, chain);
    } catch (e) {
      if (e instanceof NetworkError)
        this.sink({ request: e.exchange.request, error: e.exchange.error ?? e.message, started_at });
      throw e;
    }
    // The bytes as they came (a client that keeps them for a recording), taken off the reply: the checks hold
    // replies, and a long body must not stay in memory twice for as long as they do.
    const wire = r.wire;
    delete r.wire;
    this.sink({
      started_at,
      request: r.exchange.request,
      duration_ms: Math.round(r.durationMs),
      response: {
        status: r.status,
        headers: r.headers,
        // The body as it came (decoded from any content coding, as a HAR holds it), its byte order mark back on.
        ...(wire
          ? { body: '', wire: { bytes: wire, utf8: r.utf8, bom: r.bom === true } }
          : r.raw
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
