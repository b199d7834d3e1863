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

/** The methods §1 and §3 rule out ("read-only; no operation changes any state"). Sent only with unsafe_methods. */
export const UNSAFE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** What one unsafe method on one path got: the reply, or why none came. */
export interface UnsafeAnswer {
  method: string;
  path: string;
  reply?: Reply;
  error?: string;
}
/** The read-only probe's exchanges: the GETs before, the unsafe requests, the GETs after. */
export interface UnsafeProbe {
  paths: string[];
  before: Reply[];
  /** The same GETs asked once more before the unsafe requests (RO-02's). */
  again: Reply[];
  answers: UnsafeAnswer[];
  after: Reply[];
}

/**
 * GET every data endpoint (lists and a real detail), send each unsafe method to each, GET them again.
 * Every request goes through ctx.api.once, so the checks that share this probe send it once between them; and
 * since each check walks the same steps in the same order and awaits each step before asking for the next, the
 * "before" GETs are complete before any unsafe request starts, and the "after" GETs start after all of them.
 */
export async function unsafeProbe(ctx: CheckContext): Promise<UnsafeProbe> {
  const token = await ctx.api.token();
  const paths = (await dataEndpointPaths(ctx)).map((p) => p.path);
  // Before: the run's shared GETs (every other check has run on them already, and sent only GET); after: fresh ones.
  const before = await Promise.all(paths.map((path) => ctx.api.get(path)));
  // The same GETs asked again before any unsafe request (RO-02's, shared): a path whose GET alone changes what it
  // answers is RO-02's finding, and shows nothing of what the unsafe methods did.
  const again = await Promise.all(paths.map((path) => askAgain(ctx, path)));
  // One at a time on a path, in a fixed order, so a server that changes state there changes it the same way on every
  // run; the paths side by side, so the run's chain of round trips is one path's four methods, not a resource's
  // eight. A server that changes state through two paths of one resource (the list and a detail) may show the
  // changes in either order: the words of RO-01's finding may differ from run to run; any change GET shows fails it
  // whatever the order.
  const unsafe = async (path: string, method: (typeof UNSAFE_METHODS)[number]): Promise<UnsafeAnswer> => {
    try {
      return { method, path, reply: await ctx.api.once(`readonly:${method}:${path}`, { method, path, token }) };
    } catch (e) {
      if (!(e instanceof NetworkError)) throw e;
      return { method, path, error: e.message };
    }
  };
  const perPath = await Promise.all(
    paths.map(async (path) => {
      const out: UnsafeAnswer[] = [];
      for (const method of UNSAFE_METHODS) out.push(await unsafe(path, method));
      return out;
    }),
  );
  // Reported in the order of the paths.
  const answers = perPath.flat();
  const after = await Promise.all(paths.map((path) => ctx.api.once(`readonly:after:${path}`, { path, token })));
  return { paths, before, again, answers, after };
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

/** A data endpoint's answer to the run's GET and to the same GET asked once more afterwards. */
export interface RepeatedGet {
  ep: Endpoint;
  path: string;
  first: Reply;
  again: Reply;
}

/**
 * Every data endpoint asked twice with app's token (§3: "no operation changes any state", so a GET does not change
 * what a later GET answers): the run's shared GET, and once every one of those has been answered, the same GET again.
 * The second is shared (ERR-06 reads it too, to tell a list that changes by itself from parameters applied).
 */
export async function repeatedGets(ctx: CheckContext): Promise<RepeatedGet[]> {
  const paths = await dataEndpointPaths(ctx);
  const first = await Promise.all(paths.map(({ path }) => ctx.api.get(path)));
  const again = await Promise.all(paths.map(({ path }) => askAgain(ctx, path)));
  return paths.map(({ ep, path }, i) => ({ ep, path, first: first[i]!, again: again[i]! }));
}

/** The same GET once more with app's token, sent once per run whichever check asks first. */
export async function askAgain(ctx: CheckContext, path: string): Promise<Reply> {
  return ctx.api.once(`readonly:again:${path}`, { path, token: await ctx.api.token() });
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
      for (const { ep, path, first, again } of await repeatedGets(ctx)) {
        const [b, a] = [successData(first), successData(again)];
        // A first GET that did not succeed is its endpoint's finding; nothing to compare.
        if (!b.ok) {
          ctx.note(`GET ${path} did not succeed the first time (${b.why}); not compared`);
          continue;
        }
        if (!a.ok) {
          found.add(`GET ${path} answered SUCCESS, then ${describeReply(again)}`, `GET ${ep.path}`);
          continue;
        }
        const changes = dataChanges(b.data, a.data);
        if (changes.length)
          found.add(
            `GET ${path}: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? ` and ${changes.length - 5} more` : ''}`,
            `GET ${ep.path}`,
          );
      }
      if (found.length)
        ctx.fail(
          `§3: no operation changes any state, so a GET asked again answers the same data (in any order); got: ${found.items.join(' | ')} (the comparison assumes no other client changes the merchant during the run)`,
          found.fingerprints,
        );
    },
  },
  {
    id: 'RO-01',
    title: 'POST, PUT, PATCH and DELETE change no data (checked through GET before and after)',
    level: 'MUST',
    spec: '§1, §3',
    requires: ['unsafe_methods'],
    async run(ctx) {
      const { paths, before, again, after } = await unsafeProbe(ctx);
      const problems: string[] = [];
      paths.forEach((path, i) => {
        const [b, a, g] = [successData(before[i]!), successData(after[i]!), successData(again[i]!)];
        if (!b.ok) {
          ctx.note(`GET ${path} did not succeed before the unsafe requests (${b.why}); not compared`);
          return;
        }
        if (!g.ok || dataChanges(b.data, g.data).length) {
          ctx.note(`GET ${path} answered other data when asked again before any unsafe request (RO-02); not compared`);
          return;
        }
        if (!a.ok) {
          problems.push(`GET ${path} answered SUCCESS before and ${describeReply(after[i]!)} after`);
          return;
        }
        const changes = dataChanges(b.data, a.data);
        if (changes.length)
          problems.push(
            `GET ${path}: ${changes.slice(0, 5).join('; ')}${changes.length > 5 ? ` and ${changes.length - 5} more` : ''}`,
          );
      });
      if (problems.length) {
        ctx.fail(
          `after POST, PUT, PATCH and DELETE to ${paths.join(', ')}, expected the same data through GET as before, got: ${problems.join(' | ')} ` +
            '(the comparison assumes no other client changes the merchant during the run)',
        );
      }
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
            label: `${a.method} ${a.path}`,
            phrase: a.reply ? errorPhrase(a.reply) : `no response (${a.error})`,
          })),
          `all ${answers.length} requests (POST, PUT, PATCH and DELETE to ${[...new Set(answers.map((a) => a.path))].join(', ')})`,
        ),
      );
    },
  },
]);
