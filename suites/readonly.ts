import { defineChecks, type CheckContext } from '../core/model/check.js';
import { isRecord, successData } from '../core/session/api.js';
import { NetworkError, type Reply } from '../core/transport/exchange.js';
import { describeReply } from '../core/model/assertions.js';
import { jsonText, show } from '../core/redact/quote.js';
import { dataEndpointPaths } from './support/paths.js';
import { Findings } from '../core/model/findings.js';
import type { Endpoint } from '../core/spec/endpoints.js';
import { sameContent } from './support/compare.js';
import { errorPhrase, grouped } from './support/observations.js';
import { judgedApplications } from './support/tenants.js';
import { Blocked } from '../core/session/check-errors.js';
import type { Who } from '../core/spec/resources.js';

/** The methods §1 and §3 rule out ("read-only; no operation changes any state"). Sent only with unsafe_methods. */
export const UNSAFE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** What one unsafe method on one path got: the reply, or why none came. */
export interface UnsafeAnswer {
  method: string;
  path: string;
  /** Whose token it carried; undefined when it carried none. */
  who?: Who;
  reply?: Reply;
  error?: string;
}
/** One application's data endpoints as the read-only probe reads them: before, again, and after each round. */
export interface ReadonlyReads {
  who: Who;
  suffix: string;
  paths: string[];
  before: Reply[];
  /** The same GETs asked once more before any unsafe request (RO-02's). */
  again: Reply[];
  /** After the unsafe requests that carried no token. */
  afterNone: Reply[];
  /** After the unsafe requests that carried the applications' tokens. */
  after: Reply[];
}
/** The read-only probe's exchanges: every application's GETs around the unsafe requests, and those requests. */
export interface UnsafeProbe {
  reads: ReadonlyReads[];
  answers: UnsafeAnswer[];
}

/**
 * GET every data endpoint (lists and a real detail) with each configured application's token; send each unsafe
 * method to each of those paths without a token, GET them all again; send each unsafe method to each application's
 * paths with its own token, GET them all again. Every request goes through ctx.api.once, so the checks that share
 * this probe send it once between them; and since each check walks the same steps in the same order and awaits each
 * step before asking for the next, every round's GETs are complete before the next round's unsafe requests start.
 */
export async function unsafeProbe(ctx: CheckContext, plan = false): Promise<UnsafeProbe> {
  const apps = (
    await Promise.all(
      judgedApplications(ctx).map(async ({ who, suffix }) => {
        try {
          const token = await ctx.api.token(who);
          return { who, suffix, token, paths: (await dataEndpointPaths(ctx, who)).map((p) => p.path) };
        } catch (e) {
          if (!(e instanceof Blocked)) throw e;
          ctx.note(`${who}'s data endpoints not probed with unsafe methods: ${e.message}`);
          return undefined;
        }
      }),
    )
  ).flatMap((a) => (a ? [a] : []));
  // No application's token: nothing to probe, and nothing any check of this probe could judge (the notes say why).
  if (!apps.length) throw new Blocked("no application's token to read the data endpoints with (see AUTH-01, AUTH-02)");
  const mark = (who: Who): string => (who === 'app' ? '' : `${who}:`);
  if (plan) {
    // Sent in turn at the end of the run: the progress line's estimate counts them now (RO-01 plans, INFO-RO-METHODS
    // reads the same answers). The unsafe methods without a token and with each token, and two rounds of GETs.
    const paths = apps.reduce((n, a) => n + a.paths.length, 0);
    ctx.api.plan(
      new Set(apps.flatMap((a) => a.paths)).size * UNSAFE_METHODS.length + paths * (UNSAFE_METHODS.length + 2),
    );
  }
  const gets = (step: string): Promise<Reply[][]> =>
    Promise.all(
      apps.map(({ who, token, paths }) =>
        Promise.all(paths.map((path) => ctx.api.once(`readonly:${step}:${mark(who)}${path}`, { path, token }))),
      ),
    );
  // Before: the run's shared GETs (every other check has run on them already, and sent only GET).
  const before = await Promise.all(
    apps.map(({ who, paths }) => Promise.all(paths.map((path) => ctx.api.get(path, who)))),
  );
  // The same GETs asked again before any unsafe request (RO-02's, shared): a path whose GET alone changes what it
  // answers is RO-02's finding, and shows nothing of what the unsafe methods did.
  const again = await Promise.all(
    apps.map(({ who, paths }) => Promise.all(paths.map((path) => askAgain(ctx, path, who)))),
  );
  // One at a time on a path, in a fixed order, so a server that changes state there changes it the same way on every
  // run; the paths side by side, so the run's chain of round trips is one path's four methods, not a resource's
  // eight. A server that changes state through two paths of one resource (the list and a detail) may show the
  // changes in either order: the words of RO-01's finding may differ from run to run; any change GET shows fails it
  // whatever the order.
  const unsafe = async (path: string, method: (typeof UNSAFE_METHODS)[number], who?: Who, token?: string) => {
    const key = `readonly:${method}:${who ? mark(who) : 'none:'}${path}`;
    try {
      const reply = await ctx.api.once(key, { method, path, ...(token !== undefined ? { token } : {}) });
      return { method, path, ...(who ? { who } : {}), reply };
    } catch (e) {
      if (!(e instanceof NetworkError)) throw e;
      return { method, path, ...(who ? { who } : {}), error: e.message };
    }
  };
  const round = async (targets: Array<{ path: string; who?: Who; token?: string }>): Promise<UnsafeAnswer[]> =>
    (
      await Promise.all(
        targets.map(async ({ path, who, token }) => {
          const out: UnsafeAnswer[] = [];
          for (const method of UNSAFE_METHODS) out.push(await unsafe(path, method, who, token));
          return out;
        }),
      )
    ).flat();
  // First without a token (§5.4: such a request is refused, and certainly changes nothing), at every path any
  // application reads (the lists are one path for all), then GET again.
  const bare = await round([...new Set(apps.flatMap((a) => a.paths))].map((path) => ({ path })));
  const afterNone = await gets('after-none');
  // Then each application's paths with its own token, and GET again.
  const tokened = await round(apps.flatMap(({ who, token, paths }) => paths.map((path) => ({ path, who, token }))));
  const after = await gets('after');
  return {
    reads: apps.map(({ who, suffix, paths }, i) => ({
      who,
      suffix,
      paths,
      before: before[i]!,
      again: again[i]!,
      afterNone: afterNone[i]!,
      after: after[i]!,
    })),
    // Reported in the order of the paths.
    answers: [...bare, ...tokened],
  };
}

function fieldDiff(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => !sameContent(a[k], b[k]))
    .map((k) => `${k} ${show(a[k], 40)} → ${show(b[k], 40)}`);
}

/** What changed between two payloads of one endpoint; lists are compared by id, whatever their order. */
export function dataChanges(before: unknown, after: unknown): string[] {
  // sameContent returns at once for the very same tree, which an unchanged big list is (the client parses identical
  // big bodies once). Order is not content: no rule orders a list or an order's dishes.
  if (sameContent(before, after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    const index = (xs: unknown[]): Map<string, unknown> =>
      new Map(xs.map((x, i) => [isRecord(x) && x.id !== undefined ? jsonText(x.id) : `#${i}`, x]));
    const [b, a] = [index(before), index(after)];
    const out: string[] = [];
    for (const [id, x] of b) {
      const y = a.get(id);
      if (y === undefined) out.push(`record ${id} is gone`);
      else if (!sameContent(x, y))
        out.push(
          `record ${id} changed: ${isRecord(x) && isRecord(y) ? fieldDiff(x, y).join(', ') : `${show(x, 40)} → ${show(y, 40)}`}`,
        );
    }
    for (const id of a.keys()) if (!b.has(id)) out.push(`record ${id} is new`);
    return out;
  }
  if (isRecord(before) && isRecord(after)) {
    const diff = fieldDiff(before, after);
    return diff.length ? [`fields changed: ${diff.join(', ')}`] : [];
  }
  return [`data ${show(before, 60)} → ${show(after, 60)}`];
}

/** Why RO-01 and RO-02 judged nothing: a comparison needs a GET that succeeded. */
const NOTHING_TO_COMPARE =
  'no data endpoint answered SUCCESS to compare with (see AUTH-05, MER-01, DISH-01, SEAT-01, ORD-01)';

/** A data endpoint's answer to the run's GET and to the same GET asked once more afterwards. */
export interface RepeatedGet {
  ep: Endpoint;
  path: string;
  first: Reply;
  again: Reply;
}

/**
 * Every data endpoint asked twice with an application's token (§3: "no operation changes any state", so a GET does
 * not change what a later GET answers): the run's shared GET, and once every one of those has been answered, the
 * same GET again. The second is shared (ERR-06 reads it too, to tell a list that changes by itself from parameters
 * applied).
 */
export async function repeatedGets(ctx: CheckContext, who: Who = 'app'): Promise<RepeatedGet[]> {
  const paths = await dataEndpointPaths(ctx, who);
  const first = await Promise.all(paths.map(({ path }) => ctx.api.get(path, who)));
  const again = await Promise.all(paths.map(({ path }) => askAgain(ctx, path, who)));
  return paths.map(({ ep, path }, i) => ({ ep, path, first: first[i]!, again: again[i]! }));
}

/** The same GET once more with an application's token, sent once per run whichever check asks first. */
export async function askAgain(ctx: CheckContext, path: string, who: Who = 'app'): Promise<Reply> {
  const key = who === 'app' ? `readonly:again:${path}` : `readonly:again:${who}:${path}`;
  return ctx.api.once(key, { path, token: await ctx.api.token(who) });
}

/** The checks that the API is read-only (§1, §3); they send unsafe methods only with unsafe_methods. */
export const readonlyChecks = defineChecks('readonly', [
  // First: the readonly phase runs its checks one by one in this order, so RO-02's second GETs come before RO-01's
  // unsafe methods (which a broken server may let change the data).
  {
    id: 'RO-02',
    title: 'A GET changes nothing: every data endpoint answers the same data when asked again',
    level: 'MUST',
    spec: '§1, §3',
    async run(ctx) {
      const found = new Findings();
      // Every configured application's data endpoints, each with its own token (app's fingerprints as before #35).
      const asked = await Promise.all(
        judgedApplications(ctx).map(async ({ who, suffix }) => {
          try {
            return { who, suffix, gets: await repeatedGets(ctx, who) };
          } catch (e) {
            if (!(e instanceof Blocked)) throw e;
            ctx.note(`${who}'s data endpoints not asked twice: ${e.message}`);
            return { who, suffix, gets: [] };
          }
        }),
      );
      let compared = 0;
      for (const { who, suffix, gets } of asked)
        for (const { ep, path, first, again } of gets) {
          const [b, a] = [successData(first), successData(again)];
          const [request, key] = [`GET ${path}${suffix}`, `${who === 'app' ? '' : `${who}:`}GET ${ep.path}`];
          // A first GET that did not succeed is its endpoint's finding; nothing to compare.
          if (!b.ok) {
            ctx.note(`${request} did not succeed the first time (${b.why}); not compared`);
            continue;
          }
          compared++;
          if (!a.ok) {
            found.add(`${request} answered SUCCESS, then ${describeReply(again)}`, key);
            continue;
          }
          const changes = dataChanges(b.data, a.data);
          if (changes.length)
            found.add(
              `${request}: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? ` and ${changes.length - 5} more` : ''}`,
              key,
            );
        }
      if (found.length)
        ctx.fail(
          `§3: no operation changes any state, so a GET asked again answers the same data (in any order); got: ${found.items.join(' | ')} (the comparison assumes no other client changes the merchant during the run)`,
          found.fingerprints,
        );
      if (!compared) throw new Blocked(NOTHING_TO_COMPARE);
    },
  },
  {
    id: 'RO-01',
    title: 'POST, PUT, PATCH and DELETE change no data (checked through GET before and after)',
    level: 'MUST',
    spec: '§1, §3',
    requires: ['unsafe_methods'],
    async run(ctx) {
      const { reads } = await unsafeProbe(ctx, true);
      const problems: string[] = [];
      const keys: string[] = [];
      const changed = (request: string, b: Reply, a: Reply): string | undefined => {
        const [x, y] = [successData(b), successData(a)];
        if (!x.ok) return undefined;
        if (!y.ok) return `${request} answered SUCCESS before and ${describeReply(a)} after`;
        const changes = dataChanges(x.data, y.data);
        return changes.length
          ? `${request}: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? ` and ${changes.length - 5} more` : ''}`
          : undefined;
      };
      let compared = 0;
      for (const { who, suffix, paths, before, again, afterNone, after } of reads)
        paths.forEach((path, i) => {
          const request = `GET ${path}${suffix}`;
          const [b, g] = [successData(before[i]!), successData(again[i]!)];
          if (!b.ok) {
            ctx.note(`${request} did not succeed before the unsafe requests (${b.why}); not compared`);
            return;
          }
          if (!g.ok || dataChanges(b.data, g.data).length) {
            ctx.note(`${request} answered other data when asked again before any unsafe request (RO-02); not compared`);
            return;
          }
          compared++;
          const mark = who === 'app' ? '' : `${who}:`;
          // Each round against the GETs before it: a change is the doing of that round's requests.
          const none = changed(request, before[i]!, afterNone[i]!);
          if (none) {
            problems.push(`without a token: ${none}`);
            keys.push(`${mark}${path}:without a token`);
            return;
          }
          const tokened = changed(request, afterNone[i]!, after[i]!);
          if (tokened) {
            problems.push(`with the applications' tokens: ${tokened}`);
            keys.push(`${mark}${path}:with a token`);
          }
        });
      if (problems.length) {
        ctx.fail(
          `after POST, PUT, PATCH and DELETE to every data endpoint, expected the same data through GET as before, got: ${problems.join(' | ')} ` +
            '(the comparison assumes no other client changes the merchant during the run)',
          keys,
        );
      }
      if (!compared) throw new Blocked(NOTHING_TO_COMPARE);
    },
  },
  // The implementation profile: what the server chose where the spec leaves it open (INFO, never fails).
  {
    id: 'INFO-RO-METHODS',
    title: 'What the server answers to POST, PUT, PATCH and DELETE',
    level: 'INFO',
    spec: '§1, §3',
    requires: ['unsafe_methods'],
    async run(ctx) {
      const { answers } = await unsafeProbe(ctx);
      ctx.observe(
        grouped(
          answers.map((a) => ({
            label: `${a.method} ${a.path} ${a.who ? `with ${a.who}'s token` : 'without a token'}`,
            phrase: a.reply ? errorPhrase(a.reply) : `no response (${a.error})`,
          })),
          `all ${answers.length} requests (POST, PUT, PATCH and DELETE to ${[...new Set(answers.map((a) => a.path))].join(', ')})`,
        ),
      );
    },
  },
]);
