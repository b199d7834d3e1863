/**
 * Where the checks' exchanges come from. The Api reads every reply through one ExchangeSource: the live HTTP client
 * (core/transport/http.ts), or a recording (core/session/recorded-source.ts). Checks never know which.
 */
import type { Redactor } from '../redact/redact.js';
import type { Reply, RequestSpec } from './exchange.js';
import type { Who } from '../spec/resources.js';
import type { RequestChain } from './pacing.js';

/** Where the Api gets its replies: the live client or a recording, behind the same two members. */
export interface ExchangeSource {
  /** The run's redactor: secrets the source learns (tokens in /auth answers) are added to it. */
  readonly redactor: Redactor;
  /**
   * One request and its whole answer; a NetworkError when there is no usable answer. `chain` is the sender's chain
   * of requests (a check's), which the live client's gate serves by its progress.
   */
  send(spec: RequestSpec, chain?: RequestChain): Promise<Reply>;
  close(): Promise<void>;
  /**
   * Whether the source holds any answer for the request's method and path, whatever its token and query (a
   * recording); absent when it answers anything (live).
   */
  holds?(spec: RequestSpec): boolean;
  /**
   * The token a recording used for an application whose /auth it does not hold (a browser's cached token): the
   * checks read the recorded answers with it; absent live, where every token comes from /auth.
   */
  recordedToken?(who: Who): string | undefined;
}
