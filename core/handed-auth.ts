import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { ExchangeSource } from './exchange-source.js';
import type { Exchange, Reply, RequestSpec } from './exchange.js';
import { AUTH_PATH } from './endpoints.js';
import { isRecord, successData } from './api.js';
import { parseJsonExact } from './exact-json.js';
import { learnTokens } from './issued-tokens.js';
import type { Redactor } from './redact.js';
import type { Who } from './resources.js';

/**
 * The preflight's /auth answers, handed from the CLI to the checks' process: the run's first token of each
 * application is the one the preflight was issued, and the run does not ask /auth for it again (a round trip less
 * before the first list at a distance). The checks that judge /auth read the preflight's exchange itself as their
 * evidence, as they read the worker's own before. Only a clean answer is handed (sent without a token, UTF-8 JSON,
 * a success envelope carrying an app_token): for anything else the checks' process asks /auth itself, as it always
 * did, so what the checks judge of an odd /auth is what they see for themselves.
 */
export interface HandedAuth {
  who: Who;
  reply: Reply;
}

/** What goes over: the reply without its parsed body (parsed again on arrival, with the client's exact parser). */
interface Wire {
  who: Who;
  reply: Omit<Reply, 'json' | 'jsonError' | 'raw'>;
}

/** Longer than any /auth answer a server means: a body this long goes the ordinary way. */
const MAX_HANDED_BYTES = 64 * 1024;

/** The file beside the start gate that carries the answers (in the run's private scratch folder). */
const fileOf = (gate: string): string => `${gate}-auth.json`;

/** The answer is one the run would have taken its token from: sent without a token, a success with an app_token. */
export function handable(r: Reply): boolean {
  const s = successData(r);
  return (
    r.utf8 &&
    r.raw === undefined &&
    r.bytes <= MAX_HANDED_BYTES &&
    r.text.length > 0 &&
    !Object.keys(r.exchange.request.headers).some((h) => h.toLowerCase() === 'open-token') &&
    s.ok &&
    isRecord(s.data) &&
    typeof s.data.app_token === 'string' &&
    s.data.app_token !== ''
  );
}

/**
 * Writes the answers beside the start gate, before the gate opens (the checks' process reads them once it passes
 * it). The file holds tokens: readable by its owner only, in the run's private folder, and removed by the reader.
 */
export function handAuth(gate: string, answers: readonly HandedAuth[]): void {
  const wire: Wire[] = answers
    .filter((a) => handable(a.reply))
    .map(({ who, reply }) => {
      const { json: _json, jsonError: _e, raw: _raw, ...rest } = reply;
      return { who, reply: rest };
    });
  if (!wire.length) return;
  const file = fileOf(gate);
  writeFileSync(`${file}.tmp`, JSON.stringify(wire), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The answers the CLI handed over (none when it handed none), removed from disk once read. */
export function takeHandedAuth(gate: string): HandedAuth[] {
  let text: string;
  try {
    text = readFileSync(fileOf(gate), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  rmSync(fileOf(gate), { force: true });
  return (JSON.parse(text) as Wire[]).map(({ who, reply }) => ({
    who,
    reply: { ...reply, json: parseJsonExact(reply.text) },
  }));
}

/**
 * An exchange source that answers the run's first GET /auth of each handed key pair with the preflight's answer
 * (once: a renewal, or a check that asks for a token of its own, goes to the server), and sends everything else on.
 */
export class HandedAuthSource implements ExchangeSource {
  private readonly waiting: HandedAuth[];

  constructor(
    private readonly inner: ExchangeSource,
    answers: readonly HandedAuth[],
  ) {
    this.waiting = [...answers];
    // The tokens are secrets of this process's redactor too, from before any check can quote them.
    for (const { reply } of answers)
      learnTokens(inner.redactor, reply.json, reply.text, reply.exchange.request.url, reply.headers);
  }

  get redactor(): Redactor {
    return this.inner.redactor;
  }

  send(spec: RequestSpec): Promise<Reply> {
    const i = this.waiting.findIndex((a) => sameAuthRequest(spec, a.reply.exchange));
    if (i < 0) return this.inner.send(spec);
    const [{ reply }] = this.waiting.splice(i, 1) as [HandedAuth];
    return Promise.resolve(reply);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The request is the plain GET /auth?secret&key the preflight sent: no token, no other header, query, origin. */
function sameAuthRequest(spec: RequestSpec, sent: Exchange): boolean {
  if ((spec.method ?? 'GET') !== 'GET' || spec.path !== AUTH_PATH) return false;
  if (spec.token !== undefined || spec.headers || spec.baseUrl || spec.derived || spec.contentType === false)
    return false;
  const q = spec.query ?? {};
  const keys = Object.keys(q);
  if (keys.length !== 2 || q.secret === undefined || q.key === undefined) return false;
  const url = new URL(sent.request.url);
  return (
    (sent.request.method ?? 'GET') === 'GET' &&
    [...url.searchParams.keys()].length === 2 &&
    url.searchParams.get('secret') === q.secret &&
    url.searchParams.get('key') === q.key
  );
}
