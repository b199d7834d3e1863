/**
 * The implementation profile: INFO checks that record what the server chose where the spec leaves it open
 * ("not shown"). They never fail; their observation is the message. Each sits in the area it observes.
 */
import { defineChecks, type CheckContext } from '../core/check.js';
import { Blocked } from '../core/check-errors.js';
import { isRecord, refusesToken, successData } from '../core/api.js';
import { NetworkError, type Reply } from '../core/exchange.js';
import { AUTH_PATH } from '../core/endpoints.js';
import { describeReply, envelopeCode } from '../core/assertions.js';
import { show } from '../core/quote.js';
import { allErrorProbes, listQueryProbes, unknownIdProbes } from './errors.js';
import { unsafeProbe } from './readonly.js';
import { sameJson } from './support/compare.js';
import { dataEndpointPaths } from './support/paths.js';

/** "code 404 over HTTP 404, status \"ERROR\", msg \"…\"" — an error answer in a phrase. */
function errorPhrase(r: Reply, withMsg = false): string {
  if (successData(r).ok) return `SUCCESS over HTTP ${r.status}`;
  if (!isRecord(r.json)) return `HTTP ${r.status} with a body that is not a JSON object`;
  const msg = withMsg && typeof r.json.msg === 'string' ? `, msg ${show(r.json.msg, 60)}` : '';
  return `code ${show(r.json.code)} over HTTP ${r.status}, status ${show(r.json.status)}${msg}`;
}

/** Groups identical phrases: "a, b: X; c: Y"; one phrase for everything reads "<all>: X". */
function grouped(items: Array<{ label: string; phrase: string }>, all?: string): string {
  const by = new Map<string, string[]>();
  for (const { label, phrase } of items) by.set(phrase, [...new Set([...(by.get(phrase) ?? []), label])]);
  if (all !== undefined && by.size === 1) return `${all}: ${[...by.keys()][0]}`;
  const names = (labels: string[]): string => (labels.length > 6 ? `${labels.slice(0, 5).join(', ')} and ${labels.length - 5} more` : labels.join(', '));
  return [...by].map(([phrase, labels]) => `${names(labels)}: ${phrase}`).join('; ');
}

const sendOrError = async (ctx: CheckContext, spec: Parameters<CheckContext['send']>[0]): Promise<Reply | string> => {
  try { return await ctx.send(spec); } catch (e) { if (e instanceof NetworkError) return e.message; throw e; }
};

export const profileChecks = [
  ...defineChecks('auth', [
    {
      id: 'INFO-AUTH-TOKEN',
      title: 'Whether /auth issues a new token on every call, and whether the earlier token still works',
      level: 'INFO',
      spec: '§5.2, §5.6',
      mintsTokens: true,
      async run(ctx) {
        const c = ctx.config.app;
        const mint = async (): Promise<string | undefined> => {
          const s = successData(await ctx.send({ path: AUTH_PATH, query: { secret: c.secret, key: c.key } }));
          const t = s.ok && isRecord(s.data) ? s.data.app_token : undefined;
          return typeof t === 'string' && t !== '' ? t : undefined;
        };
        const renewals = ctx.api.tokenEvents.length ? `; during the run: ${ctx.api.tokenEvents.join('; ')}` : '';
        const first = await mint();
        const second = first === undefined ? undefined : await mint();
        if (first === undefined || second === undefined) return ctx.observe(`a /auth call carried no app_token${renewals}`);
        // Tokens are never shown, only whether they are equal and still accepted.
        if (second === first) return ctx.observe(`the same token on every /auth call${renewals}`);
        const old = await ctx.send({ path: '/merchant', token: first });
        const fate = successData(old).ok ? 'the earlier token still works' : refusesToken(old) ? 'the earlier token is refused (401) once a new one is issued' : `the earlier token then gets ${describeReply(old)}`;
        ctx.observe(`a new token on every /auth call; ${fate}${renewals}`);
      },
    },
  ]),
  ...defineChecks('errors', [
    {
      id: 'INFO-ERR-STATUS',
      title: 'The HTTP status and envelope used for each kind of error',
      level: 'INFO',
      spec: '§7',
      async run(ctx) {
        const probes = await allErrorProbes(ctx);
        ctx.observe(grouped(probes.map((p) => ({ label: p.kind, phrase: errorPhrase(p.reply) }))));
      },
    },
    {
      id: 'INFO-ERR-UNKNOWN-ID',
      title: 'The error given for unknown dish and seat ids',
      level: 'INFO',
      spec: '§7, §4 endpoints 4 and 6',
      async run(ctx) {
        const probes = [...await unknownIdProbes(ctx, 'dishes'), ...await unknownIdProbes(ctx, 'seats')];
        ctx.observe(grouped(probes.map((p) => ({ label: p.request, phrase: errorPhrase(p.reply, true) }))));
      },
    },
    {
      id: 'INFO-ERR-LIST-QUERY',
      title: 'What list endpoints do with query parameters (ignore them or answer 400)',
      level: 'INFO',
      spec: '§4 rule 2',
      async run(ctx) {
        const items = (await listQueryProbes(ctx)).map(({ path, plain, query }) => {
          const [p, q] = [successData(plain), successData(query)];
          let phrase: string;
          if (!q.ok) phrase = `refused (${errorPhrase(query)})`;
          else if (!p.ok) phrase = 'SUCCESS (the plain list did not succeed, so not compared)';
          else phrase = sameJson(p.data, q.data) ? 'ignored (the same data as without them)' : 'SUCCESS with other data than without them (applied or the data changed)';
          return { label: path, phrase };
        });
        ctx.observe(`with ?page=2&limit=1&per_page=1&…: ${grouped(items)}`);
      },
    },
  ]),
  ...defineChecks('readonly', [
    {
      id: 'INFO-RO-METHODS',
      title: 'What the server answers to POST, PUT, PATCH and DELETE',
      level: 'INFO',
      spec: '§1, §3',
      requires: ['unsafe_methods'],
      async run(ctx) {
        const { answers } = await unsafeProbe(ctx);
        ctx.observe(grouped(answers.map((a) => ({ label: `${a.method} ${a.path}`, phrase: a.reply ? errorPhrase(a.reply) : `no response (${a.error})` })),
          `all ${answers.length} requests (POST, PUT, PATCH and DELETE to ${[...new Set(answers.map((a) => a.path))].join(', ')})`));
      },
    },
  ]),
  ...defineChecks('transport', [
    {
      id: 'INFO-TRANS-NO-CONTENT-TYPE',
      title: 'What happens to a request without the Content-Type header',
      level: 'INFO',
      spec: '§4 (Content-Type required)',
      mintsTokens: true,
      async run(ctx) {
        const token = await ctx.api.token();
        const c = ctx.config.app;
        // /merchant first: the /auth call may issue a token that ends the run's (§5.6).
        const merchant = await sendOrError(ctx, { path: '/merchant', token, contentType: false });
        const auth = await sendOrError(ctx, { path: AUTH_PATH, query: { secret: c.secret, key: c.key }, contentType: false });
        const phrase = (r: Reply | string): string => (typeof r === 'string' ? `no response (${r})` : successData(r).ok ? 'answered as usual (SUCCESS)' : `refused (${errorPhrase(r)})`);
        ctx.observe(grouped([{ label: `GET ${AUTH_PATH}`, phrase: phrase(auth) }, { label: 'GET /merchant', phrase: phrase(merchant) }]) + ' — without Content-Type');
      },
    },
    {
      id: 'INFO-TRANS-TIMING',
      title: 'Response time per endpoint',
      level: 'INFO',
      spec: '§8',
      async run(ctx) {
        const times: string[] = [`GET ${AUTH_PATH} ${Math.round((await ctx.api.auth()).durationMs)} ms`];
        const paths = await dataEndpointPaths(ctx).catch((e: unknown) => { if (e instanceof Blocked) return []; throw e; });
        for (const { ep, path } of paths) {
          const r = await ctx.api.get(path);
          times.push(`GET ${ep.path} ${Math.round(r.durationMs)} ms (${r.bytes} bytes${envelopeCode(r) !== 200 ? `, ${errorPhrase(r)}` : ''})`);
        }
        ctx.observe(`${times.join('; ')} — first call of each during the run, under concurrency ${ctx.config.concurrency}`);
      },
    },
  ]),
];
