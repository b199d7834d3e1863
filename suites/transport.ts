import { defineChecks, type CheckContext } from '../core/model/check.js';
import { Blocked } from '../core/session/check-errors.js';
import { isRecord, successData } from '../core/session/api.js';
import { NetworkError, type Reply } from '../core/transport/exchange.js';
import { AUTH_PATH } from '../core/spec/endpoints.js';
import { endpointLabel } from '../core/spec/resources.js';
import { describeReply, envelopeCode } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { dataEndpointPaths, endpointPath } from './support/paths.js';
import { Findings } from '../core/model/findings.js';
import { judgedApplications } from './support/tenants.js';
import { authQuery } from '../core/spec/auth-scheme.js';
import type { Endpoint } from '../core/spec/endpoints.js';
import { otherApplicationsAnswers, ownAnswers, type Answer } from './support/answers.js';
import { unknownInterface } from './errors.js';
import { errorPhrase, grouped, sendOrError } from './support/observations.js';
import { contentTypeProblem } from './support/media-type.js';

/**
 * The answers every transport check judges: endpoint 1, endpoints 2–7 (shared requests), one error answer, and the
 * other configured applications' /auth, /merchant and lists.
 */
export async function sampleReplies(ctx: CheckContext): Promise<Answer[]> {
  const out = await ownAnswers(ctx);
  try {
    // The token asked for again: after a renewal /auth may refuse (§5.6), and only this answer is then not judged.
    const e = await unknownInterface(ctx, true);
    out.push({ request: e.request, reply: e.reply });
  } catch (e) {
    if (!(e instanceof Blocked)) throw e;
  }
  return [...out, ...(await otherApplicationsAnswers(ctx))];
}

export { contentTypeProblem } from './support/media-type.js';

/** Where in a body decoded with replacement characters the first invalid byte sat: a JSON path, else a snippet. */
function invalidUtf8At(reply: Reply): string {
  const find = (v: unknown, at: string): string | undefined => {
    if (typeof v === 'string') return v.includes('\uFFFD') ? `${at} (${show(v, 60)})` : undefined;
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) {
        const f = find(x, `${at}/${i}`);
        if (f) return f;
      }
      return undefined;
    }
    if (isRecord(v)) {
      const id = v.id !== undefined ? `[id ${show(v.id)}]` : '';
      for (const [k, x] of Object.entries(v)) {
        const f = find(x, `${at}${id}/${k}`);
        if (f) return f;
      }
    }
    return undefined;
  };
  // A body that did not parse has no json: the text is searched.
  const inJson = find(reply.json, '');
  if (inJson) return `at ${inJson}`;
  // A body that is not UTF-8 is always decoded whole into text with a U+FFFD for each bad byte (only a UTF-8 body is
  // kept undecoded, core/transport/http.ts and recorded-source.ts): the search always finds one.
  const i = reply.text.indexOf('\uFFFD');
  // Worded without a template: a returned template is counted as a failure reason (bench/failure-statements.ts).
  return 'near ' + show(reply.text.slice(Math.max(0, i - 20), i + 20));
}

/** A request as a fingerprint: the endpoint, with a detail's id folded to :id (ids change with the data). */

export const transportChecks = defineChecks('transport', [
  {
    id: 'TRANS-01',
    title: 'Responses carry a JSON content type, with charset UTF-8 or none',
    level: 'MUST',
    spec: '§1, §4',
    async run(ctx) {
      const problems: string[] = [];
      const keys: string[] = [];
      for (const { request, reply } of await sampleReplies(ctx)) {
        const p = contentTypeProblem(reply.headers['content-type']);
        if (p) {
          problems.push(`${request}: ${p}`);
          keys.push(endpointLabel(request));
        }
      }
      if (problems.length)
        ctx.fail(`expected Content-Type application/json (charset utf-8 or none), got ${problems.join('; ')}`, keys);
    },
  },
  {
    id: 'TRANS-02',
    title: 'Response bodies are valid UTF-8',
    level: 'MUST',
    spec: '§1, §4',
    async run(ctx) {
      const bad = (await sampleReplies(ctx)).filter(({ reply }) => !reply.utf8);
      if (bad.length)
        ctx.fail(
          `expected UTF-8 bodies (§1), got ${bad.map(({ request, reply }) => `${request}: invalid UTF-8 ${invalidUtf8At(reply)}`).join('; ')} (U+FFFD marks the bytes that are not UTF-8)`,
          bad.map(({ request }) => endpointLabel(request)),
        );
    },
  },
  {
    id: 'TRANS-03',
    title: 'The plain http:// origin of an https base_url serves no merchant data',
    level: 'MUST',
    spec: '§1, §4 ("Only HTTPS is supported")',
    requires: ['https'],
    async run(ctx) {
      // Same host; an explicit port stays (a server could speak both on it), else the http default port 80.
      const plain = new URL(ctx.config.base_url);
      plain.protocol = 'http:';
      // The config strips every trailing slash from base_url: the URL's text ends in at most the one slash the URL
      // parser adds to an empty path.
      const base = plain.toString().replace(/\/$/, '');
      const probe = async (spec: { path: string; token?: string; query?: Record<string, string> }) => {
        try {
          return await ctx.send({ ...spec, baseUrl: base });
        } catch (e) {
          if (e instanceof NetworkError) return e.message;
          throw e;
        }
      };
      const servesData = (r: Reply): boolean => successData(r).ok;
      const found = new Findings();
      const served = (what: string, key: string, r: Reply): void => {
        ctx.shows(r, 'finding');
        found.add(
          `GET ${base}${what} over plain HTTP: expected no merchant data (only HTTPS is supported), got ${describeReply(r)} with data ${show((r.json as { data?: unknown }).data, 80)}`,
          key,
        );
      };
      // Every endpoint first without a credential (endpoint 1 without its key pair, a detail at an id of app's list),
      // at once: a plain listener may serve some paths only.
      const endpoints = [
        { ep: undefined as Endpoint | undefined, path: AUTH_PATH },
        ...(await dataEndpointPaths(ctx)).map(({ ep, path }) => ({ ep: ep as Endpoint | undefined, path })),
      ];
      const first = await Promise.all(endpoints.map(({ path }) => probe({ path })));
      const speaking: typeof endpoints = [];
      endpoints.forEach((e, i) => {
        const r = first[i]!;
        if (typeof r === 'string') return;
        if (servesData(r)) served(`${e.path}, without a credential,`, `${e.ep?.path ?? e.path}`, r);
        else if (isRecord(r.json)) speaking.push(e);
      });
      if (!speaking.length && !found.length) {
        const said = [
          ...new Set(
            first.map((r) => (typeof r === 'string' ? `refused: ${r}` : `answers ${describeReply(r)}, not the API`)),
          ),
        ];
        return ctx.observe(`plain HTTP ${said.slice(0, 3).join('; ')}`);
      }
      // The API answers on plain HTTP there (an error envelope): only the credentials show whether it would serve
      // data. They cross plain HTTP only here, after the origin has shown it speaks the API at that path anyway:
      // each configured application's token at each such data endpoint (a detail at an id of its own list), its key
      // pair at /auth.
      const withCredentials = await Promise.all(
        judgedApplications(ctx).flatMap(({ who, suffix }) =>
          speaking.map(async ({ ep, path }) => {
            try {
              const spec = ep
                ? { path: await endpointPath(ctx, ep, who), token: await ctx.api.token(who) }
                : { path, query: authQuery(ctx.api.credentials(who)) };
              return { who, suffix, ep, spec, r: await probe(spec) };
            } catch (e) {
              if (!(e instanceof Blocked)) throw e;
              ctx.note(`GET ${path} over plain HTTP with ${who}'s credentials: not sent (${e.message})`);
              return undefined;
            }
          }),
        ),
      );
      // A credential that got no answer shows nothing: the note says which, and why (the first few).
      const unanswered: string[] = [];
      for (const x of withCredentials) {
        if (x && typeof x.r === 'string') unanswered.push(`GET ${base}${x.spec.path}: ${x.r}`);
        if (!x || typeof x.r === 'string' || !servesData(x.r)) continue;
        const how = x.ep ? `with ${x.who}'s token` : `with ${x.who}'s key pair`;
        served(
          `${x.spec.path} ${how}`,
          `${x.who === 'app' ? '' : `${x.who}:`}${x.ep?.path ?? AUTH_PATH}:credential`,
          x.r,
        );
      }
      if (found.length) ctx.fail(found.items.join('; '), found.fingerprints);
      ctx.note(
        `the plain HTTP origin answers API envelopes at ${speaking.map((e) => e.path).join(', ')} but ${
          unanswered.length
            ? `gave no answer to ${unanswered.length} of the ${withCredentials.length} requests with credentials (${unanswered.slice(0, 3).join('; ')}${unanswered.length > 3 ? '; …' : ''}), and served no data to the others`
            : 'served no data with the credentials'
        }`,
      );
    },
  },
  // The implementation profile: what the server chose where the spec leaves it open (INFO, never fails).
  {
    id: 'INFO-TRANS-NO-CONTENT-TYPE',
    title: 'What happens to a request without the Content-Type header',
    level: 'INFO',
    spec: '§4 (Content-Type required)',
    mintsTokens: true,
    async run(ctx) {
      const token = await ctx.api.token();
      const c = ctx.config.app;
      // /merchant first, with the run's token while every other check still uses it: the engine holds this check's
      // /auth until they have all ended, since it may issue a token that ends the run's (§5.6).
      const merchant = await sendOrError(ctx, { path: '/merchant', token, contentType: false });
      const auth = await sendOrError(ctx, {
        path: AUTH_PATH,
        query: { secret: c.secret, key: c.key },
        contentType: false,
      });
      const phrase = (r: Reply | string): string =>
        typeof r === 'string'
          ? `no response (${r})`
          : successData(r).ok
            ? 'answered as usual (SUCCESS)'
            : `refused (${errorPhrase(r)})`;
      ctx.observe(
        grouped([
          { label: `GET ${AUTH_PATH}`, phrase: phrase(auth) },
          { label: 'GET /merchant', phrase: phrase(merchant) },
        ]) + ' — without Content-Type',
      );
    },
  },
  {
    id: 'INFO-TRANS-TIMING',
    title: 'Response time per endpoint',
    level: 'INFO',
    spec: '§8',
    async run(ctx) {
      const times: string[] = [`GET ${AUTH_PATH} ${Math.round((await ctx.api.auth()).durationMs)} ms`];
      for (const { ep, path } of await dataEndpointPaths(ctx)) {
        const r = await ctx.api.get(path);
        times.push(
          `GET ${ep.path} ${Math.round(r.durationMs)} ms (${r.bytes} bytes${envelopeCode(r) !== 200 ? `, ${errorPhrase(r)}` : ''})`,
        );
      }
      ctx.observe(
        // No concurrency named: a recording's times (check-har) are the recorder's, at a concurrency it does not say.
        `${times.join('; ')} — the first call of each`,
      );
    },
  },
]);
