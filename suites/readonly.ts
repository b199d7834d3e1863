import { defineChecks, type CheckContext } from '../core/model/check.js';
import { isRecord, successData } from '../core/session/api.js';
import { NetworkError, type Reply } from '../core/transport/exchange.js';
import { describeReply } from '../core/model/assertions.js';
import { jsonText, show } from '../core/redact/quote.js';
import { dataEndpointPaths } from './support/paths.js';
import { sameJson } from './support/compare.js';
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
  return { paths, before, answers, after };
}

function fieldDiff(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => !sameJson(a[k], b[k]))
    .map((k) => `${k} ${show(a[k], 40)} → ${show(b[k], 40)}`);
}

/** What changed between two payloads of one endpoint; lists are compared by id, whatever their order. */
export function dataChanges(before: unknown, after: unknown): string[] {
  // sameJson returns at once for the very same tree, which an unchanged big list is (the client parses identical
  // big bodies once).
  if (sameJson(before, after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    const index = (xs: unknown[]): Map<string, unknown> =>
      new Map(xs.map((x, i) => [isRecord(x) && x.id !== undefined ? jsonText(x.id) : `#${i}`, x]));
    const [b, a] = [index(before), index(after)];
    const out: string[] = [];
    for (const [id, x] of b) {
      const y = a.get(id);
      if (y === undefined) out.push(`record ${id} is gone`);
      else if (!sameJson(x, y))
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

/** The checks that the API is read-only (§1, §3); they send unsafe methods only with unsafe_methods. */
export const readonlyChecks = defineChecks('readonly', [
  {
    id: 'RO-01',
    title: 'POST, PUT, PATCH and DELETE change no data (checked through GET before and after)',
    level: 'MUST',
    spec: '§1, §3',
    requires: ['unsafe_methods'],
    async run(ctx) {
      const { paths, before, after } = await unsafeProbe(ctx);
      const problems: string[] = [];
      paths.forEach((path, i) => {
        const [b, a] = [successData(before[i]!), successData(after[i]!)];
        if (!b.ok) {
          ctx.note(`GET ${path} did not succeed before the unsafe requests (${b.why}); not compared`);
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
