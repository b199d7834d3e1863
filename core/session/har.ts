/**
 * HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) to and from recorded exchanges: what browser devtools,
 * mitmproxy's HAR export and Playwright's recordHar write, and what a run writes with --record-har.
 */
import { placeholderOf, type Redactor } from '../redact/redact.js';
import type { RecordedExchange } from './recorded-source.js';
import type { Credentials } from '../config/config.js';
import {
  closeSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { basename, dirname, join, resolve } from 'node:path';
import { fileProblem } from '../config/config.js';
import { tool } from '../base/paths.js';
import { illegalHeaderChars, tokensIn } from '../transport/issued-tokens.js';

interface HarHeader {
  name: string;
  value: string;
}
/** A HAR entry as far as it is read (every field may be missing or of another type: the file is untrusted). */
export interface HarEntry {
  startedDateTime?: string;
  time?: number;
  request?: { method?: string; url?: string; headers?: HarHeader[]; postData?: { mimeType?: string; text?: string } };
  response?: {
    status?: number;
    headers?: HarHeader[];
    _error?: string;
    /** --record-har: the characters of the issued token no header value may carry, which its placeholder lacks. */
    _token_chars?: string;
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string; _file?: string };
  };
  _error?: string;
}

/** What a run wrote beside its exchanges (log._conformance): which placeholders stand for which application. */
export interface HarRoles {
  app?: Credentials;
  other_app?: Credentials;
  disabled_app?: Partial<Credentials> & { token?: string };
  fuzz?: { runs: number; seed: number };
}

/** The file is not a HAR (not JSON, no log.entries). */
export class HarError extends Error {}

/** Header lists as the rest of the suite has them: lower-case names, repeated headers joined, HTTP/2 pseudo-headers out. */
function headerMap(list: HarHeader[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of Array.isArray(list) ? list : []) {
    if (typeof h?.name !== 'string' || typeof h.value !== 'string' || h.name.startsWith(':')) continue;
    const k = h.name.toLowerCase();
    // defineProperty: a header named __proto__ stays an own key.
    Object.defineProperty(out, k, {
      value: Object.hasOwn(out, k) ? `${out[k]}, ${h.value}` : h.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

const isHttpUrl = (url: string): boolean => {
  try {
    return /^https?:$/.test(new URL(url).protocol);
  } catch {
    return false;
  }
};

/**
 * One HAR entry as a recorded exchange, or why it is left out (not an HTTP request, no body recorded). A body the
 * stream reader kept in a file (core/session/har-stream.ts) comes as `file`, its bytes decoded.
 */
export function exchangeOf(e: HarEntry | null | undefined, i: number, file?: string): RecordedExchange | string {
  const method = e?.request?.method;
  const url = e?.request?.url;
  if (typeof method !== 'string' || typeof url !== 'string' || !isHttpUrl(url))
    return `entry ${i}: not an HTTP request`;
  // A request body (HAR 1.2 postData.text): a replay matches it exactly (core/session/recorded-source.ts).
  const sent = e!.request!.postData?.text;
  const request = {
    method: method.toUpperCase(),
    url,
    headers: headerMap(e!.request!.headers),
    ...(typeof sent === 'string' ? { body: sent } : {}),
  };
  const time = typeof e!.time === 'number' && e!.time >= 0 ? { duration_ms: Math.round(e!.time) } : {};
  const status = e!.response?.status;
  const error = e!.response?._error ?? e!._error;
  // Devtools records a request that got no answer (refused, reset, blocked) with status 0.
  if (typeof status !== 'number' || status <= 0)
    return { request, error: typeof error === 'string' && error ? error : 'no response', ...time };
  const c = e!.response!.content ?? {};
  let body: { body: string; encoding?: 'base64'; file?: string };
  if (file !== undefined) body = { body: '', file };
  else if (typeof c.text === 'string')
    body = c.encoding === 'base64' ? { body: c.text, encoding: 'base64' } : { body: c.text };
  else if (c.size === 0) body = { body: '' };
  else
    return `${request.method} ${url}: ${c._file ? 'its body is in a separate file (recordHar content: "attach"), not in the HAR' : 'no body recorded'}`;
  const chars = e!.response!._token_chars;
  const tokenChars = typeof chars === 'string' && TOKEN_CHARS.test(chars) ? { tokenChars: chars } : {};
  return { request, response: { status, headers: headerMap(e!.response!.headers), ...body, ...tokenChars }, ...time };
}

/** A list of code points as illegalHeaderChars writes them: `U+001B, U+0007, U+202E`. */
const TOKEN_CHARS = /^U\+[0-9A-F]{4,6}(, U\+[0-9A-F]{4,6}){0,7}$/;

/** Text with every secret the redactor knows replaced by its kind's placeholder. */
function hider(redactor: Redactor): (s: string) => string {
  return (s) => redactor.replaceSecrets(s, placeholderOf);
}

/** Characters of a body written at a time (HarWriter.add), and what stands for the body meanwhile. */
const BODY_SLICE_CHARS = 1024 * 1024;
const BODY_MARK = '\u0000conformance-body\u0000';
/** What stands for a body's size until it is written (a number no size is). */
const SIZE_MARK = -987654321987;
/** A body whose bytes are read whole for an issued token no header can carry (an /auth answer is far shorter). */
const TOKEN_SCAN_BYTES = 16 * 1024 * 1024;

/**
 * A run's exchanges as HAR 1.2, every secret replaced by a placeholder of its kind (keys, tokens), consistently,
 * so that check-har still tells the applications apart; roles say which placeholders are which application's.
 * Written an entry at a time as the run goes (`add`), so a run of many or long bodies is never held whole nor one
 * string (V8's longest is 512 MiB). A secret is known before an exchange that carries it is recorded: a token is
 * learned from the answer that issues it, a derived value is registered before it is sent.
 */
export class HarWriter {
  private fd: number | undefined;
  private entries = 0;
  private readonly hide: (s: string) => string;
  private readonly started = new Date().toISOString();
  /** Why the recording stopped (a write failed): the file is then emptied, and the run goes on unchanged. */
  failed: string | undefined;

  constructor(
    private readonly file: string,
    private readonly redactor: Redactor,
    roles: HarRoles,
  ) {
    this.hide = hider(redactor);
    const hideRoles = (c: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
      c && Object.fromEntries(Object.entries(c).map(([k, v]) => [k, typeof v === 'string' ? this.hide(v) : v]));
    const head = JSON.stringify({
      version: '1.2',
      creator: { name: tool.name, version: tool.version },
      _conformance: {
        app: hideRoles(roles.app as unknown as Record<string, unknown>),
        other_app: hideRoles(roles.other_app as unknown as Record<string, unknown>),
        disabled_app: hideRoles(roles.disabled_app),
        fuzz: roles.fuzz,
      },
    });
    this.write(() => {
      this.fd = openSync(file, 'w');
      writeSync(this.fd, `{"log":${head.slice(0, -1)},"entries":[`);
    });
  }

  /** Appends one exchange (nothing once a write failed). */
  add(x: RecordedExchange): void {
    const wire = x.response?.wire;
    try {
      if (this.fd === undefined) return;
      if (wire) return this.addWire(x, wire);
      const entry = this.entryOf(x) as { response?: { content?: { text?: string } } };
      const content = entry.response?.content;
      const body = content?.text;
      // A long body is written a slice at a time, escaped slice by slice: the entry is never one string with the
      // body in it (a second copy of an 80 MB body, and a third as the bytes written).
      if (content && body !== undefined && body.length > BODY_SLICE_CHARS) content.text = BODY_MARK;
      const text = JSON.stringify(entry);
      this.write(() => {
        const comma = this.entries++ ? ',' : '';
        if (content?.text !== BODY_MARK) return void writeSync(this.fd!, `${comma}${text}`);
        const at = text.indexOf(JSON.stringify(BODY_MARK));
        writeSync(this.fd!, `${comma}${text.slice(0, at)}"`);
        for (let from = 0; from < body!.length;) {
          let to = Math.min(from + BODY_SLICE_CHARS, body!.length);
          // A surrogate pair stays whole in its slice.
          if (to < body!.length && /[\uD800-\uDBFF]/.test(body![to - 1]!)) to--;
          writeSync(this.fd!, JSON.stringify(body!.slice(from, to)).slice(1, -1));
          from = to;
        }
        writeSync(this.fd!, `"${text.slice(at + JSON.stringify(BODY_MARK).length)}`);
      });
    } finally {
      if (wire && !Buffer.isBuffer(wire.bytes)) rmSync(wire.bytes.file, { force: true });
    }
  }

  /**
   * An answer whose bytes came as they arrived (Reply.wire): written from them a slice of 1 MiB at a time, its
   * secrets replaced slice by slice (core/redact secretStream), UTF-8 as JSON text and other bytes as base64. The body
   * is never a string here, nor held a second time: what a recording costs is a slice.
   */
  private addWire(x: RecordedExchange, wire: NonNullable<NonNullable<RecordedExchange['response']>['wire']>): void {
    const { bytes, utf8, bom } = wire;
    const length = Buffer.isBuffer(bytes) ? bytes.length : statSync(bytes.file).size;
    // The code points of an issued token no header can carry: read from a body short enough to be an /auth answer.
    let tokenChars: string | undefined;
    if (utf8 && length <= TOKEN_SCAN_BYTES) {
      const text = Buffer.isBuffer(bytes) ? bytes.toString('utf8') : readFileSync(bytes.file, 'utf8');
      tokenChars = tokensIn(undefined, text).reverse().map(illegalHeaderChars).find(Boolean);
    }
    const entry = this.entryOf({ ...x, response: { ...x.response!, body: '' } }) as {
      response: { content: Record<string, unknown>; bodySize: number; _token_chars?: string };
    };
    const { mimeType } = entry.response.content;
    entry.response.content = { mimeType, text: BODY_MARK, ...(utf8 ? {} : { encoding: 'base64' }), size: SIZE_MARK };
    entry.response.bodySize = SIZE_MARK;
    if (tokenChars) entry.response._token_chars = tokenChars;
    else delete entry.response._token_chars;
    const text = JSON.stringify(entry);
    const at = text.indexOf(JSON.stringify(BODY_MARK));
    this.write(() => {
      writeSync(this.fd!, `${this.entries++ ? ',' : ''}${text.slice(0, at)}"`);
      const secrets = this.secretStream();
      const decoder = new StringDecoder(utf8 ? 'utf8' : 'latin1');
      let size = 0;
      /** Bytes of a non-UTF-8 body not yet in base64 (it is written in groups of three). */
      let carry = Buffer.alloc(0);
      const put = (settled: string, last = false): void => {
        if (utf8) {
          size += Buffer.byteLength(settled);
          if (settled) writeSync(this.fd!, JSON.stringify(settled).slice(1, -1));
          return;
        }
        const b = Buffer.concat([carry, Buffer.from(settled, 'latin1')]);
        size += b.length - carry.length;
        const whole = last ? b.length : b.length - (b.length % 3);
        carry = b.subarray(whole);
        if (whole) writeSync(this.fd!, b.subarray(0, whole).toString('base64'));
      };
      if (bom) put(secrets.push(decoder.write(Buffer.from([0xef, 0xbb, 0xbf]))));
      const fd = Buffer.isBuffer(bytes) ? undefined : openSync(bytes.file, 'r');
      try {
        const slice = fd === undefined ? undefined : Buffer.allocUnsafe(BODY_SLICE_CHARS);
        for (let from = 0; from < length; from += BODY_SLICE_CHARS) {
          const n = Math.min(BODY_SLICE_CHARS, length - from);
          const chunk =
            fd === undefined
              ? (bytes as Buffer).subarray(from, from + n)
              : slice!.subarray(0, readSync(fd, slice!, 0, n, from));
          put(secrets.push(decoder.write(chunk)));
        }
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      put(secrets.push(decoder.end()));
      put(secrets.end(), true);
      writeSync(
        this.fd!,
        `"${text
          .slice(at + JSON.stringify(BODY_MARK).length)
          .replace(`"size":${SIZE_MARK}`, `"size":${size}`)
          .replace(`"bodySize":${SIZE_MARK}`, `"bodySize":${size}`)}`,
      );
    });
  }

  /** replaceSecrets by placeholder over a body that comes in slices. */
  private secretStream(): { push(text: string): string; end(): string } {
    return this.redactor.secretStream(placeholderOf);
  }

  /** Ends the HAR; a recording that failed leaves an empty file (the CLI says nothing was written). */
  close(): void {
    if (this.fd !== undefined) this.write(() => writeSync(this.fd!, ']}}'));
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(step: () => void): void {
    try {
      step();
    } catch (e) {
      this.failed = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
      try {
        truncateSync(this.file, 0);
      } catch {
        /* gone: the CLI says nothing was written */
      }
    }
  }

  private entryOf(x: RecordedExchange): unknown {
    const hide = this.hide;
    const headers = (h: Record<string, string>): HarHeader[] =>
      Object.entries(h).map(([name, value]) => ({ name: hide(name), value: hide(value) }));
    const url = hide(x.request.url);
    let query: HarHeader[] = [];
    try {
      query = [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
    } catch {
      /* kept as it is */
    }
    const sent = x.request.body !== undefined ? hide(x.request.body) : undefined;
    const request = {
      method: x.request.method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: headers(x.request.headers),
      queryString: query,
      cookies: [],
      headersSize: -1,
      bodySize: sent !== undefined ? Buffer.byteLength(sent) : 0,
      // A request body (a probe of §4's "no body"), its secrets replaced as the URL's are.
      ...(sent !== undefined
        ? {
            postData: {
              mimeType: hide(
                Object.entries(x.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '',
              ),
              text: sent,
            },
          }
        : {}),
    };
    const time = x.duration_ms ?? 0;
    const base = {
      startedDateTime: x.started_at ?? this.started,
      time,
      request,
      cache: {},
      timings: { send: 0, wait: time, receive: 0 },
    };
    if (!x.response)
      return {
        ...base,
        response: {
          status: 0,
          statusText: '',
          httpVersion: 'HTTP/1.1',
          headers: [],
          cookies: [],
          content: { size: 0, mimeType: '' },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
          _error: hide(x.error ?? 'no response'),
        },
      };
    const r = x.response;
    // The body as the client read it: decoded from any content coding (HAR 1.2: content.text is the decoded
    // body; the Content-Encoding header stays, as browsers record it), so its secrets are found and replaced.
    // Bytes that are not UTF-8 stay base64; their secrets are found in a Latin-1 reading, byte for byte.
    const content =
      r.encoding === 'base64'
        ? {
            text: Buffer.from(hide(Buffer.from(r.body, 'base64').toString('latin1')), 'latin1').toString('base64'),
            encoding: 'base64',
          }
        : { text: hide(r.body) };
    const size = content.encoding ? Buffer.from(content.text, 'base64').length : Buffer.byteLength(content.text);
    // A token no header can carry is replaced by a placeholder that can: what it held that no header may carry is
    // written beside it (code points, no secret), so check-har judges the token as the live run did (AUTH-01).
    // tokensIn gives each token as written, then decoded (its JSON escapes read): the decoded form is the token.
    const illegal =
      r.encoding === 'base64' ? undefined : tokensIn(undefined, r.body).reverse().map(illegalHeaderChars).find(Boolean);
    return {
      ...base,
      response: {
        status: r.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        headers: headers(r.headers),
        cookies: [],
        content: { size, mimeType: r.headers['content-type'] ?? '', ...content },
        ...(illegal ? { _token_chars: illegal } : {}),
        redirectURL: r.headers.location ? hide(r.headers.location) : '',
        headersSize: -1,
        bodySize: size,
      },
    };
  }
}

/** Writes a whole run's exchanges as one HAR file (see HarWriter); a write that fails throws. */
export function writeHarFile(
  file: string,
  exchanges: readonly RecordedExchange[],
  redactor: Redactor,
  roles: HarRoles,
): void {
  const writer = new HarWriter(file, redactor, roles);
  for (const x of exchanges) writer.add(x);
  writer.close();
  if (writer.failed) throw new HarError(`cannot write ${file}: ${writer.failed}`);
}

/** Whether two paths name one file: the same path, the same file through links, or the same inode. */
function samePath(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  const real = (p: string): string => {
    // A symbolic link is followed even when its target does not exist yet (the HAR would create it).
    let at = resolve(p);
    for (let hops = 0; hops < 40 && lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink(); hops++)
      at = resolve(dirname(at), readlinkSync(at));
    try {
      return join(realpathSync(dirname(at)), basename(at));
    } catch {
      return at;
    }
  };
  if (real(a) === real(b)) return true;
  const sa = statSync(a, { throwIfNoEntry: false });
  const sb = statSync(b, { throwIfNoEntry: false });
  return !!sa && !!sb && sa.dev === sb.dev && sa.ino === sb.ino;
}

/**
 * Makes sure --record-har can write its file before the run sends a request: the file is created (empty) now, and
 * a path that cannot be written is a usage error (HarError) that costs no request.
 */
export function prepareHarFile(file: string, reserved: readonly string[] = []): void {
  // The run's own report files: a HAR written over report.json would leave no report, and the run would then
  // overwrite the HAR.
  const own = reserved.find((r) => samePath(file, r));
  if (own !== undefined)
    throw new HarError(
      `--record-har ${file}: that is the run's own ${basename(own)}, which the run writes: give the recording another path`,
    );
  try {
    closeSync(openSync(file, 'w'));
  } catch (e) {
    throw new HarError(`--record-har ${file}: cannot write there: ${fileProblem(e)}`);
  }
}
