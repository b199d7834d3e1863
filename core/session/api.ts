import type { Config, Credentials } from '../config/config.js';
import type { ExchangeSource } from '../transport/exchange-source.js';
import type { Exchange, Reply, RequestSpec } from '../transport/exchange.js';
import { NetworkError, requestLine } from '../transport/exchange.js';
import type { Redactor } from '../redact/redact.js';
import { requestChain, type RequestChain } from '../transport/pacing.js';
import { Blocked } from './check-errors.js';
import type { ListPath, Resource, Sweep, Who } from '../spec/resources.js';
import { AUTH_PATH, detailPath, type RecordId } from '../spec/endpoints.js';
import { authRequest, issuedToken, TOKEN_FIELD } from '../spec/auth-scheme.js';
import { isIdLike } from '../base/exact-json.js';
import { diskRecords, eachElement, isDiskList } from '../transport/disk-list.js';
import { show } from '../redact/quote.js';
import { RequestTally, type PlannedAs } from './progress.js';
import { counted } from '../base/counted.js';

/** A JSON object as a server sent it: its fields are untrusted and unknown until checked. */
export type Rec = Record<string, unknown>;

/** True for a JSON object (not null, not an array): the only values whose fields a check may read. */
export const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * For every record of a list, in its order: judge (synchronously; what it keeps, it keeps on its own). A long list
 * (a large merchant's 50,000 orders, or one read from disk) is walked once for every check that asks in the same
 * turn, letting requests in flight be answered meanwhile (core/transport/disk-list.ts).
 */
export function everyRecord<T>(list: readonly T[], judge: (record: T, i: number) => void): Promise<void> {
  return eachElement(list, judge);
}

/** The records of each list reply's data array (replies are read-only to checks, so this never goes stale). */
const recordsOf = new WeakMap<unknown[], Rec[]>();

/** A refusal of the credential (§5.4): code 401 in the envelope, or HTTP 401. */
export const refusesToken = (r: Reply): boolean => r.status === 401 || (isRecord(r.json) && r.json.code === 401);

/** The success envelope of §2.1 / §4 rule 1, without judging anything else. */
export function successData(reply: Reply): { ok: true; data: unknown } | { ok: false; why: string } {
  const j = reply.json;
  if (reply.jsonError !== undefined) return { ok: false, why: `body is not JSON (HTTP ${reply.status})` };
  if (!isRecord(j)) return { ok: false, why: `body is not a JSON object (HTTP ${reply.status})` };
  if (j.status !== 'SUCCESS' || j.code !== 200)
    return { ok: false, why: `answered status ${show(j.status)}, code ${show(j.code)} (HTTP ${reply.status})` };
  return { ok: true, data: j.data };
}

/**
 * A reply a check may judge. A 429 that is still a 429 once the client's retries are spent (live, or as a recording
 * holds it) answers nothing: §8 leaves rate limits to the server ("not shown"), so it is no finding, and the request
 * ends as one without an answer: its check could not finish (incomplete), as for a timeout.
 */
function judgeable(reply: Reply, redactor: Redactor): Reply {
  if (reply.status !== 429) return reply;
  const retried = reply.exchange.retries?.length ?? 0;
  throw new NetworkError(
    `${requestLine(reply.exchange.request.method, reply.exchange.request.url, redactor)}: HTTP 429 Too Many Requests${retried ? ` after retrying ${counted(retried, 'time')}` : ''}: rate limited, no answer to judge (§8: rate limits are the server's to set; a lower --rate-limit or --concurrency may get answers)`,
    reply.exchange,
    'RATE_LIMITED',
  );
}

/**
 * The checks that read one sweep's details (those that declare it in Check.reads) and what each has read: a detail
 * is kept until every reader still running has read it, then let go (a large merchant has 40,000 details).
 */
class DetailReaders {
  /** Each reader still running, and its bit in a detail's mask of readers (a reader's own, never reused). */
  private readonly bits = new Map<string, number>();
  /** How many 32-bit words a mask needs. */
  private readonly words: number;
  /**
   * Per detail still kept: which readers have read it (one bit each) and how many readers still running have not.
   * One small entry per detail, not a set per reader: each of a large run's 200,000 reads passes here.
   */
  private readonly kept = new Map<string, { read: number[]; left: number }>();

  constructor(readers: Iterable<string>) {
    for (const id of readers) this.bits.set(id, this.bits.size);
    this.words = Math.max(1, Math.ceil(this.bits.size / 32));
  }

  /** Whether a check is a reader still running. */
  has(reader: string): boolean {
    return this.bits.has(reader);
  }

  /** A reader read a detail: true when no running reader is left to read it (it can be let go). */
  read(key: string, reader: string): boolean {
    const bit = this.bits.get(reader);
    // Not a reader of this sweep, or one that has ended.
    if (bit === undefined) return false;
    let entry = this.kept.get(key);
    if (!entry) {
      entry = { read: new Array<number>(this.words).fill(0), left: this.bits.size };
      this.kept.set(key, entry);
    }
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    // A second read of the same id (a list repeats an id).
    if (entry.read[word]! & mask) return false;
    entry.read[word]! |= mask;
    if (--entry.left > 0) return false;
    this.kept.delete(key);
    return true;
  }

  /** A reader has ended: the details kept that it alone was still to read, now let go. */
  finished(reader: string): string[] {
    const bit = this.bits.get(reader);
    if (bit === undefined) return [];
    this.bits.delete(reader);
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    const gone: string[] = [];
    for (const [key, entry] of this.kept) {
      if (entry.read[word]! & mask) continue;
      if (--entry.left === 0) gone.push(key);
    }
    for (const key of gone) this.kept.delete(key);
    return gone;
  }
}

/**
 * Requests every check shares, sent once per run and memoized: the tokens, the lists, the details.
 * One instance per run; each check sees it through an Api view that records what it used.
 */
export class SharedRequests {
  private readonly cache = new Map<string, Promise<Reply>>();
  /**
   * Replies asked for outside a sweep too (a check's GET of one detail: the endpoint paths' first id): kept for the
   * run when the sweep lets its details go, so a later check (RO-01's "before") reads the run's answer, not a new one.
   */
  private readonly pinned = new Set<string>();
  /** What each check declared it reads (Check.reads): the details it will read, kept for it until it has. */
  private readonly readers = new Map<Sweep, DetailReaders>();

  /**
   * Token lifetime is not shown (§5.6): a server may end an application's tokens (a new one issued, an expiry).
   * The run's tokens, which application each is, which have worked, and the one renewal each application gets.
   */
  private readonly runTokens = new Map<string, Who>();
  private readonly worked = new Set<string>();
  private readonly authRound = new Map<Who, number>();
  private readonly renewal = new Map<Who, Promise<string | undefined>>();
  private readonly aliveProbe = new Map<string, Promise<boolean>>();
  /** What the server did to the run's tokens, for INFO-AUTH-TOKEN (the implementation profile). */
  readonly tokenEvents: string[] = [];

  /** What the run has sent and still plans to send (the CLI's progress line). */
  readonly tally: RequestTally;

  /**
   * Settles when a check that mints tokens may call /auth (Check.mintsTokens): open unless the engine holds it until
   * every check that uses the run's tokens has ended (holdMinting).
   */
  private mintingOpen: Promise<void> = Promise.resolve();

  /** readers: per sweep, the ids of the checks of this run that declare they read it (and will run). */
  constructor(
    readonly config: Config,
    readonly client: ExchangeSource,
    readers = new Map<Sweep, Set<string>>(),
  ) {
    this.tally = new RequestTally(new Set(readers.keys()));
    for (const [sweep, ids] of readers) this.readers.set(sweep, new DetailReaders(ids));
  }

  /**
   * Every request of the run's checks goes out here, so the tally counts it; `chain` is the sending check's, `kind`
   * what the tally had planned it as.
   */
  send(spec: RequestSpec, chain: RequestChain | undefined, kind: PlannedAs = 'unplanned'): Promise<Reply> {
    return this.tally.track(
      this.client.send(spec, chain).then((r) => judgeable(r, this.client.redactor)),
      kind,
    );
  }

  /** Holds every /auth of the token-minting checks until `open` settles (core/engine/engine.ts). */
  holdMinting(open: Promise<void>): void {
    this.mintingOpen = open;
  }

  /** Settles when a token-minting check may send its /auth. */
  mintingAllowed(): Promise<void> {
    return this.mintingOpen;
  }

  /** The current /auth round of an application: a renewal starts a new one. */
  authRoundOf(who: Who): number {
    return this.authRound.get(who) ?? 0;
  }

  /** The key of the current /auth of an application. */
  authKey(who: Who): string {
    return `auth:${who}:${this.authRoundOf(who)}`;
  }

  /** A token /auth issued to the run (Api.token). */
  isRunToken(token: string | undefined): Who | undefined {
    return token === undefined ? undefined : this.runTokens.get(token);
  }
  registerToken(token: string, who: Who): void {
    this.runTokens.set(token, who);
  }
  /** Every token /auth issued to the run so far, with its application. */
  issuedTokens(): Array<{ who: Who; token: string }> {
    return [...this.runTokens].map(([token, who]) => ({ who, token }));
  }

  /**
   * A request sent with one of the run's tokens came back: when it was refused and that token had worked before
   * and GET /merchant now refuses it too, the token has ended. The application authenticates once more (once per
   * run) and the request is sent again with the new token; what happened is noted, and the check goes on as if
   * nothing happened, since the spec leaves token lifetime open. Anything else returns the reply as it came.
   */
  async afterTokenReply(
    spec: RequestSpec,
    reply: Reply,
    retry: (token: string) => Promise<Reply>,
    send: (spec: RequestSpec) => Promise<Reply>,
    note: (text: string) => void,
  ): Promise<Reply> {
    const who = this.isRunToken(spec.token);
    if (!who || !spec.token || this.asItCame(spec.token, reply)) return reply;
    const fresh = await this.renewIfEnded(who, spec.token, `${spec.method ?? 'GET'} ${spec.path}`, send);
    if (fresh === undefined) return reply;
    note(
      `the run's token of ${who} was refused (401) after it had worked (§5.6: token lifetime not shown): authenticated once more and sent ${spec.method ?? 'GET'} ${spec.path} again with the new token`,
    );
    return retry(fresh);
  }

  /**
   * Whether a reply to a request sent with `token` is the answer as it came, with no renewal to try (afterTokenReply),
   * and notes a token that worked. Synchronous: every detail of a large merchant's 40,000 passes here.
   */
  asItCame(token: string | undefined, reply: Reply): boolean {
    if (token === undefined || !this.runTokens.has(token)) return true;
    if (!refusesToken(reply)) {
      if (!this.worked.has(token) && successData(reply).ok) this.worked.add(token);
      return true;
    }
    return !this.worked.has(token);
  }

  private async renewIfEnded(
    who: Who,
    stale: string,
    where: string,
    send: (spec: RequestSpec) => Promise<Reply>,
  ): Promise<string | undefined> {
    const pending = this.renewal.get(who);
    if (pending) {
      const t = await pending;
      return t !== stale ? t : undefined;
    }
    if (!(await this.stillWorks(stale, send))) {
      // Checked again after the wait: another request may have started the renewal meanwhile.
      const started = this.renewal.get(who);
      if (started) {
        const t = await started;
        return t !== stale ? t : undefined;
      }
      const renewing = (async (): Promise<string | undefined> => {
        this.authRound.set(who, (this.authRound.get(who) ?? 0) + 1);
        const c = this.config[who]!;
        const r = await send(authRequest(c));
        this.cache.set(this.authKey(who), Promise.resolve(r));
        const s = successData(r);
        const token = s.ok ? issuedToken(s.data) : undefined;
        if (token) this.registerToken(token, who);
        this.tokenEvents.push(
          `the token issued to ${who} at the start of the run was refused with 401 after it had worked (first at ${where}, and GET /merchant refused it too); the run authenticated once more and ${token ? 'went on with the new token' : `got no new token (${AUTH_PATH} ${s.ok ? `carried no ${TOKEN_FIELD}` : s.why})`}`,
        );
        return token;
      })();
      renewing.catch(() => undefined);
      this.renewal.set(who, renewing);
      const t = await renewing;
      return t !== stale ? t : undefined;
    }
    return undefined;
  }

  /** Whether GET /merchant still takes the token (asked at most once a second per token: a broken endpoint may refuse thousands). */
  private stillWorks(token: string, send: (spec: RequestSpec) => Promise<Reply>): Promise<boolean> {
    let p = this.aliveProbe.get(token);
    if (!p) {
      p = send({ path: '/merchant', token }).then(
        (r) => !refusesToken(r),
        () => true,
      );
      this.aliveProbe.set(token, p);
      void p.then(() => setTimeout(() => this.aliveProbe.delete(token), 1000).unref());
    }
    return p;
  }

  /** A request sent once per run, memoized by key; the first asker's chain (see send) is the one it waits in. */
  once(
    key: string,
    spec: RequestSpec,
    chain: RequestChain | undefined,
    detail = false,
    /** What the request is planned as when it goes out (asked of the check that sends it: its plan is spent). */
    plannedAs: () => PlannedAs = () => 'unplanned',
  ): Promise<Reply> {
    if (!detail) this.pinned.add(key);
    let p = this.cache.get(key);
    if (!p) {
      p = this.send(spec, chain, detail ? 'detail' : plannedAs());
      p.catch(() => undefined); // a failure is reported to each check that awaits it
      this.cache.set(key, p);
    }
    return p;
  }

  /** A detail of a sweep, read by a check: kept until every unfinished reader of the sweep has read it. */
  readDetail(sweep: Sweep, key: string, spec: RequestSpec, reader: string, chain: RequestChain): Promise<Reply> {
    const reply = this.once(key, spec, chain, true);
    if (this.readers.get(sweep)?.read(key, reader)) this.forget(key);
    return reply;
  }

  /** Whether a check named the sweep in its Check.reads (and so is one of the readers the run waits for). */
  declares(checkId: string, sweep: Sweep): boolean {
    return this.readers.get(sweep)?.has(checkId) ?? false;
  }

  /** A check has ended: the details it will never read are no longer kept for it. */
  finished(checkId: string): void {
    for (const readers of this.readers.values()) for (const key of readers.finished(checkId)) this.forget(key);
  }
  /** A sweep's detail no reader still needs: let go, unless a check asked for it outside the sweep. */
  private forget(key: string): void {
    if (!this.pinned.has(key)) this.cache.delete(key);
  }

  /** The requests as one check sees them: what it uses joins its evidence, what it reads of a sweep counts as read. */
  view(
    record: (e: Exchange) => void,
    checkId: string,
    sampled: (text: string) => void = () => undefined,
    note: (text: string) => void = () => undefined,
    mintsTokens = false,
  ): Api {
    return new Api(this, record, checkId, sampled, note, mintsTokens);
  }
}

/** The requests one check sees: shared, memoized ones (token, lists, details) whose exchanges join its evidence. */
export class Api {
  /** The check's chain of requests: the gate serves a check further along first (core/transport/pacing.ts). */
  private readonly chain = requestChain();
  /** Requests of its own the check planned (plan, ask) and has not sent yet. */
  private planned = 0;
  /** The token this check got per application, and the /auth round it came from. */
  private readonly tokens = new Map<Who, { round: number; token: string }>();

  constructor(
    private readonly shared: SharedRequests,
    private readonly record: (e: Exchange) => void,
    private readonly checkId: string,
    /** Told when the check reads a seeded sample of a resource instead of every record (the run's coverage). */
    private readonly sampled: (text: string) => void = () => undefined,
    /** A remark for the check's result (a renewed token). */
    private readonly note: (text: string) => void = () => undefined,
    /** The check mints tokens (Check.mintsTokens): its own /auth requests wait for SharedRequests.mintingAllowed. */
    private readonly mintsTokens = false,
  ) {}

  /** The tokens /auth issued to the run so far (never to be printed: the redactor knows them). */
  issuedTokens(): Array<{ who: Who; token: string }> {
    return this.shared.issuedTokens();
  }

  /** What the server did to the run's tokens during the run (renewals), for the implementation profile. */
  get tokenEvents(): readonly string[] {
    return this.shared.tokenEvents;
  }

  /**
   * Sends a request of the check's own (recorded as its evidence); one sent with a run's token that has ended is
   * sent again once the application has a new one (SharedRequests.afterTokenReply).
   */
  async send(spec: RequestSpec): Promise<Reply> {
    if (this.mintsTokens && spec.path === AUTH_PATH) await this.shared.mintingAllowed();
    const reply = await this.recorded(this.shared.send(spec, this.chain, this.plannedAs()));
    return this.shared.afterTokenReply(
      spec,
      reply,
      (t) => this.fresh({ ...spec, token: t }),
      (s) => this.fresh(s),
      this.note,
    );
  }

  /** A request of this check's own, recorded, sent as it is. */
  private fresh(spec: RequestSpec): Promise<Reply> {
    return this.recorded(this.shared.send(spec, this.chain, this.plannedAs()));
  }

  /**
   * What a request of the check's own was planned as: one of those it planned (plan, ask) while any are left. Counted
   * per check: another check's requests never use up this one's plan (they did, when the count was the run's, and
   * the token-minting checks' planned /auth calls were spent by the lists long before they went out).
   */
  private plannedAs(): PlannedAs {
    if (this.planned === 0) return 'unplanned';
    this.planned--;
    return 'planned';
  }

  get config(): Config {
    return this.shared.config;
  }

  credentials(who: Who): Credentials {
    const c = this.shared.config[who];
    if (!c) throw new Blocked(`${who} is not configured`);
    return c;
  }

  /** A shared request; its exchange joins the evidence of the check that awaits it. */
  async once(key: string, spec: RequestSpec): Promise<Reply> {
    const planned = (): PlannedAs => this.plannedAs();
    const reply = await this.recorded(this.shared.once(key, spec, this.chain, false, planned));
    return this.shared.afterTokenReply(
      spec,
      reply,
      (t) => this.recorded(this.shared.once(`${key}:token:${t}`, { ...spec, token: t }, this.chain, false, planned)),
      (s) => this.fresh(s),
      this.note,
    );
  }

  /** The reply, its exchange (or a failed one's) joined to the check's evidence. */
  private recorded(reply: Promise<Reply>): Promise<Reply> {
    return reply.then((r) => {
      this.record(r.exchange);
      return r;
    }, this.recordFailure);
  }

  /** A request that got no usable answer: its exchange joins the evidence, and the failure goes on. */
  private readonly recordFailure = (e: unknown): never => {
    if (e instanceof NetworkError) this.record(e.exchange);
    throw e;
  };

  /** GET /auth with an application's key pair (endpoint 1). */
  auth(who: Who = 'app'): Promise<Reply> {
    const c = this.credentials(who);
    return this.once(this.shared.authKey(who), authRequest(c));
  }

  /**
   * The /auth answer of the application, as auth(); undefined when the run reads a recording that holds only the
   * token the application used (its /auth is not in it): the check then judges the other answers, and says that it
   * judged a part (a sample of the run, as the coverage counts it).
   */
  async authAnswer(who: Who = 'app'): Promise<Reply | undefined> {
    if (this.shared.client.recordedToken?.(who) === undefined) return this.auth(who);
    this.sampled(`the recorded answers without GET ${AUTH_PATH} of ${who} (only its token is in the recording)`);
    return undefined;
  }

  async token(who: Who = 'app'): Promise<string> {
    const held = this.heldToken(who);
    if (held !== undefined) return held;
    const round = this.shared.authRoundOf(who);
    // A recording without this application's /auth: the token its requests carried (the checks of /auth itself
    // ask for it and find it not in the recording).
    const recorded = this.shared.client.recordedToken?.(who);
    if (recorded !== undefined) {
      this.shared.registerToken(recorded, who);
      this.tokens.set(who, { round, token: recorded });
      return recorded;
    }
    let r: Reply;
    // A request that got no response is not a finding of anyone: it propagates, and the check is incomplete.
    try {
      r = await this.auth(who);
    } catch (e) {
      throw e instanceof NetworkError ? e : new Blocked(`no token for ${who}: ${(e as Error).message}`);
    }
    const s = successData(r);
    const token = s.ok ? issuedToken(s.data) : undefined;
    if (token === undefined) {
      throw new Blocked(
        // The check that judges this application's /auth: AUTH-01 app's, AUTH-02 every other's (#35).
        `no token for ${who}: ${AUTH_PATH} ${s.ok ? `carried no ${TOKEN_FIELD}` : s.why} (see ${who === 'app' ? 'AUTH-01' : 'AUTH-02'})`,
      );
    }
    this.shared.registerToken(token, who);
    this.tokens.set(who, { round, token });
    return token;
  }

  /** The token this check already got for the application, while no renewal has replaced it. */
  private heldToken(who: Who): string | undefined {
    const held = this.tokens.get(who);
    return held?.round === this.shared.authRoundOf(who) ? held.token : undefined;
  }

  /**
   * A GET of a data endpoint with the application's token, shared by every check; read as part of a sweep (see
   * Check.reads), the reply is let go once every reader of the sweep has read it.
   */
  get(path: string, who: Who = 'app', sweep?: Sweep): Promise<Reply> {
    // Asked before each of 40,000 details, by each check that reads them: no async frame, and no wait for the
    // token once the check holds it.
    const held = this.heldToken(who);
    return held !== undefined
      ? this.getAs(held, path, who, sweep)
      : this.token(who).then((t) => this.getAs(t, path, who, sweep));
  }

  /**
   * The GET with a token, its exchange joined to the check's evidence, and sent once more with a new token if the
   * server ended this one (afterTokenReply). One `.then` per read: 200,000 detail reads pass here at the large size.
   */
  private getAs(token: string, path: string, who: Who, sweep: Sweep | undefined): Promise<Reply> {
    return this.getShared(token, path, who, sweep).then((reply) => {
      this.record(reply.exchange);
      return this.shared.asItCame(token, reply)
        ? reply
        : this.shared.afterTokenReply(
            { path, token },
            reply,
            (t) => this.recorded(this.getShared(t, path, who, sweep)),
            (s) => this.fresh(s),
            this.note,
          );
    }, this.recordFailure);
  }

  private getShared(token: string, path: string, who: Who, sweep: Sweep | undefined): Promise<Reply> {
    // The token is part of the key: after a renewal the same GET is a new request.
    const key = `get:${who}:${token}:${path}`;
    return sweep
      ? this.shared.readDetail(sweep, key, { path, token }, this.checkId, this.chain)
      : this.shared.once(key, { path, token }, this.chain);
  }

  /** The data of a successful GET; anything else blocks the check (the endpoint's own check reports it). */
  async data(path: string, who: Who = 'app'): Promise<unknown> {
    let r: Reply;
    try {
      r = await this.get(path, who);
    } catch (e) {
      if (e instanceof Blocked || e instanceof NetworkError) throw e;
      throw new Blocked(`GET ${path} failed: ${(e as Error).message}`);
    }
    const s = successData(r);
    if (!s.ok) throw new Blocked(`GET ${path} ${s.why}`);
    return s.data;
  }

  async merchant(who: Who = 'app'): Promise<Rec> {
    const d = await this.data('/merchant', who);
    if (!isRecord(d)) throw new Blocked('GET /merchant carried no merchant object');
    return d;
  }

  async list(path: ListPath, who: Who = 'app'): Promise<readonly Rec[]> {
    const d = await this.data(path, who);
    if (!Array.isArray(d)) throw new Blocked(`GET ${path} carried no array`);
    // Once per list, not once per check that reads it: a large merchant's list holds 50,000 orders.
    let records = recordsOf.get(d);
    // A disk list (a body too big to hold) stays one: its records are read from the file as a check goes.
    if (!records) recordsOf.set(d, (records = isDiskList(d) ? (diskRecords(d) as Rec[]) : d.filter(isRecord)));
    return records;
  }

  /**
   * The ids whose detail the run checks: all of them, or a seeded sample of max_details (issue: big merchants).
   * Deterministic for a given seed, so a finding replays.
   */
  async detailIds(resource: Resource, who: Who = 'app'): Promise<{ ids: RecordId[]; total: number; sampled: boolean }> {
    const items = await this.list(`/${resource}`, who);
    const ids = this.heldByTheSource(resource, items.map((i) => i.id).filter(isIdLike), who);
    const max = this.shared.config.max_details;
    this.shared.tally.planSweep(`${resource}:${who}`, max === undefined ? ids.length : Math.min(max, ids.length));
    if (max === undefined || ids.length <= max) return { ids, total: ids.length, sampled: false };
    // Loaded here, not with this module: the CLI's preflight reads envelopes with this module's helpers, and
    // fast-check's load would delay the start of the checks' process.
    const { default: fc } = await import('fast-check');
    const [sample] = fc.sample(fc.shuffledSubarray(ids, { minLength: max, maxLength: max }), {
      seed: this.shared.config.fuzz.seed,
      numRuns: 1,
    });
    this.sampled(
      `${max} of ${ids.length} ${resource}${who === 'app' ? '' : ` of ${who}`} (max_details, seed ${this.shared.config.fuzz.seed})`,
    );
    return { ids: sample ?? [], total: ids.length, sampled: true };
  }

  /**
   * The listed ids whose detail the exchange source can answer: all of them live; those in the recording for a
   * recording, said as a sample of the run (a capture of ordinary traffic holds a few details, and the checks judge
   * the details it holds rather than none).
   */
  private heldByTheSource(resource: Resource, listed: RecordId[], who: Who): RecordId[] {
    const source = this.shared.client;
    if (!source.holds) return listed;
    // Whatever the token: an isolation check reads the other merchant's ids with its own token.
    const held = listed.filter((id) => source.holds!({ path: detailPath(resource, id) }));
    if (held.length < listed.length)
      this.sampled(
        `${held.length} of ${listed.length} ${resource}${who === 'app' ? '' : ` of ${who}`} (the details in the recording)`,
      );
    return held;
  }

  /**
   * The details the run reads of a resource with an application's token: every listed id, or the max_details
   * sample. Iterate it to read each detail (`for await (const { id, reply } of details)`); the check must name the
   * sweep in its Check.reads, so the run keeps each reply until every reader has read it, and no longer.
   */
  async details(resource: Resource, who: Who = 'app'): Promise<Details> {
    const sweep: Sweep = `${resource}:${who}`;
    if (!this.shared.declares(this.checkId, sweep))
      throw new Error(`${this.checkId} reads the details of ${sweep} but does not name them in its reads`);
    const sample = await this.detailIds(resource, who);
    const lanes = this.lanes();
    return {
      ...sample,
      [Symbol.asyncIterator]: () =>
        answered(
          sample.ids,
          (id) => this.detail(resource, id, who),
          lanes,
          (id, reply) => ({ id, reply }),
        ),
    };
  }

  /**
   * Requests of the check's own that it sends itself (the token probes, some drawn by fast-check): planned now, so
   * the progress line's estimate counts them before they go out, as ask's are.
   */
  plan(requests: number): void {
    this.planned += requests;
    this.shared.tally.promise(requests);
  }

  /** The check ended: the requests it planned and never sent are no longer counted as still to come. */
  ended(): void {
    this.shared.tally.withdraw(this.planned);
    this.planned = 0;
  }

  /**
   * Requests of the check's own, one per item (`request` builds it), answered as they come: iterate the result to
   * judge each (`for await (const { item, reply } of answers)`). The progress line plans them all at once.
   */
  ask<T>(items: readonly T[], request: (item: T) => RequestSpec): AsyncIterable<{ item: T; reply: Reply }> {
    this.plan(items.length);
    return {
      [Symbol.asyncIterator]: () =>
        answered(
          items,
          (item) => this.send(request(item)),
          this.lanes(),
          (item, reply) => ({ item, reply }),
        ),
    };
  }

  /** Requests a check keeps in flight: twice the request concurrency, so the client's gate stays fed. */
  private lanes(): number {
    return Math.max(1, this.shared.config.concurrency * 2);
  }

  /** GET /:resource/:id with the application's token, read as part of the sweep (resource, who). */
  detail(resource: Resource, id: RecordId, who: Who = 'app'): Promise<Reply> {
    return this.get(detailPath(resource, id), who, `${resource}:${who}`);
  }
}

/** The details a check reads of one resource: which ids (all, or a seeded sample), and their replies as they come. */
export interface Details extends AsyncIterable<{ id: RecordId; reply: Reply }> {
  ids: RecordId[];
  /** How many ids the list holds (more than ids.length when sampled). */
  total: number;
  sampled: boolean;
}

/**
 * The answers to one request per item, `lanes` in flight at a time, in the order they come back, each shaped by
 * `shape`. Never one promise per item at once: 20,000 suspended request chains per check would hold hundreds of MB
 * and cost more in garbage collection than the requests themselves. The next request goes out before an answer is
 * handed on, so the lanes stay busy while the check judges it; a failure ends the iteration (the requests in flight
 * are left to finish). An iterator of its own, not an async generator: each of a large run's 200,000 detail reads
 * (40,000 details, five readers) passes here, and a generator's suspensions cost a second of them.
 */
function answered<T, R>(
  items: readonly T[],
  send: (item: T) => Promise<Reply>,
  lanes: number,
  shape: (item: T, reply: Reply) => R,
): AsyncIterator<R> {
  type Settled = { ok: true; value: R } | { ok: false; error: unknown };
  const ready: Settled[] = [];
  let waiter: { resolve: (r: IteratorResult<R>) => void; reject: (e: unknown) => void } | undefined;
  let next = 0;
  let pending = 0;
  let ended = false;
  const DONE: IteratorResult<R> = { done: true, value: undefined };
  const fill = (): void => {
    while (!ended && next < items.length && pending < lanes) start(items[next++]!);
  };
  const start = (item: T): void => {
    pending++;
    send(item).then(
      (reply) => arrived({ ok: true, value: shape(item, reply) }),
      (error: unknown) => arrived({ ok: false, error }),
    );
  };
  const arrived = (s: Settled): void => {
    pending--;
    if (ended) return;
    const w = waiter;
    if (!w) return void ready.push(s);
    waiter = undefined;
    if (s.ok) {
      fill();
      w.resolve({ done: false, value: s.value });
    } else {
      ended = true;
      w.reject(s.error);
    }
  };
  fill();
  return {
    next(): Promise<IteratorResult<R>> {
      if (ended) return Promise.resolve(DONE);
      const s = ready.shift();
      if (s) {
        if (!s.ok) {
          ended = true;
          return Promise.reject(s.error);
        }
        fill();
        return Promise.resolve({ done: false, value: s.value });
      }
      if (!pending) {
        ended = true;
        return Promise.resolve(DONE);
      }
      return new Promise((resolve, reject) => (waiter = { resolve, reject }));
    },
    return(): Promise<IteratorResult<R>> {
      ended = true;
      return Promise.resolve(DONE);
    },
  };
}
