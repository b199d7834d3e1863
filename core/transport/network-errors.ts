/** Why a request got no usable response, in words a user can act on (the cause of a NetworkError). */

/** The most bytes of response headers read (every header line of one answer together); past it, the answer is refused. */
export const MAX_HEADER_BYTES = 256 * 1024;

/** Errors of a kept-alive connection the server closed while it sat idle (see HttpClient.send). */
export const STALE_CONNECTION = new Set(['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE']);

const TLS_FIX =
  'give the CA that signed it with tls.ca_file / --ca-file, or accept any certificate with tls.insecure / --insecure (testing only)';
const KNOWN_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name does not resolve',
  EAI_AGAIN: 'host name does not resolve (temporary DNS failure)',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'the server closed the connection',
  UND_ERR_SOCKET: 'the server closed the connection before the response was complete',
  UND_ERR_CLOSED: 'the server closed the connection before the response was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'the server closed the connection before the body reached its Content-Length',
  UND_ERR_CONNECT_TIMEOUT: 'no connection could be established in time',
  DEPTH_ZERO_SELF_SIGNED_CERT: `the server certificate is self-signed and not trusted: ${TLS_FIX}`,
  SELF_SIGNED_CERT_IN_CHAIN: `the server certificate chain ends in a CA that is not trusted: ${TLS_FIX}`,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: `the server certificate is not trusted: ${TLS_FIX}`,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: `the server certificate is signed by a CA that is not trusted: ${TLS_FIX}`,
  UNABLE_TO_GET_ISSUER_CERT: `the server certificate is signed by a CA that is not trusted: ${TLS_FIX}`,
  CERT_UNTRUSTED: `the server certificate is not trusted: ${TLS_FIX}`,
  CERT_HAS_EXPIRED: 'the server certificate has expired (tls.insecure / --insecure accepts it, for testing only)',
  ERR_TLS_CERT_ALTNAME_INVALID:
    'the server certificate does not name this host (tls.insecure / --insecure accepts it, for testing only)',
  EPROTO: 'TLS handshake failed (is the server speaking HTTPS?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the server speaking HTTPS?)',
  UND_ERR_INFO: 'the server sent an invalid HTTP response',
  HPE_INVALID_CONSTANT: 'the server sent an invalid HTTP response',
  UND_ERR_INVALID_ARG: 'the request could not be sent (invalid header or URL)',
  UND_ERR_HEADERS_OVERFLOW: `the response headers exceed ${MAX_HEADER_BYTES / 1024} KiB, the most the suite reads: not read`,
};

/** A one-line, stack-free account of why a request got no usable response. */
export function describeError(
  e: unknown,
  timeoutMs: number,
  deadlinePassed: boolean,
): { code: string; message: string } {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (deadlinePassed)
    return {
      code: 'DEADLINE',
      message: 'the deadline of the whole run (deadline_ms) passed before the response completed',
    };
  const code = err.cause?.code ?? err.code ?? err.name ?? 'ERROR';
  if (err.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { code: 'TIMEOUT', message: `no complete response within ${timeoutMs} ms (timeout_ms)` };
  }
  if (err.name === 'AbortError') return { code: 'ABORTED', message: 'the request was aborted' };
  const known = KNOWN_ERRORS[code];
  if (known) return { code, message: known };
  const text = (err.cause?.message || err.message || String(e)).split('\n')[0]!;
  if (/CERT|SSL|TLS/.test(code)) return { code, message: `TLS error ${code} (${text}): ${TLS_FIX}` };
  return { code, message: text };
}

/** The error that aborts a response past max_body_bytes (code BODY_TOO_LARGE). */
export const tooLarge = (message: string): Error => Object.assign(new Error(message), { code: 'BODY_TOO_LARGE' });
