import { defineChecks, type Check, type CheckContext, type CheckDeclaration } from '../core/model/check.js';
import { RESOURCES, type Resource } from '../core/spec/resources.js';
import { detailPath } from '../core/spec/endpoints.js';
import { formatErrors, isValid, validate } from '../core/spec/schemas.js';
import { answeredData, expectShape, expectShapes, expectSuccess, records } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { Findings } from '../core/model/findings.js';
import { Blocked } from '../core/session/check-errors.js';
import { everyRecord, type Details } from '../core/session/api.js';
import type { Reply } from '../core/transport/exchange.js';
import { judgedApplications, type Judged } from './support/tenants.js';

const NOT_ANSWERED = Symbol('not answered');

/**
 * The data of an application's answer. app's refusal or broken envelope blocks the check (another check owns it);
 * the second merchant's only leaves its part unjudged, said in a note: app's answers were still judged.
 */
function answerOf(
  ctx: CheckContext,
  app: Judged,
  reply: Reply,
  what: string,
  read: (ctx: CheckContext, reply: Reply, what: string) => unknown = (_ctx, r, w) => answeredData(r, w),
): unknown {
  try {
    return read(ctx, reply, what);
  } catch (e) {
    if (app.who === 'app' || !(e instanceof Blocked)) throw e;
    ctx.note(e.message);
    return NOT_ANSWERED;
  }
}

/** §4 endpoints 3, 5, 7: the list answers an array of records of the resource's shape. */
function listShape(id: string, resource: 'dishes' | 'seats' | 'orders', spec: string): CheckDeclaration {
  const { path, schema } = RESOURCES[resource];
  return {
    id,
    level: 'MUST',
    spec,
    title: `GET ${path} answers an array of ${resource} of the shape of ${spec.split(',')[0]}`,
    async run(ctx) {
      for (const app of judgedApplications(ctx)) {
        const what = `GET ${path}${app.suffix}`;
        const data = answerOf(ctx, app, await ctx.api.get(path, app.who), what);
        if (data === NOT_ANSWERED) continue;
        if (!Array.isArray(data))
          return ctx.fail(`${what}: expected data to be an array, got ${data === null ? 'null' : typeof data}`);
        await expectShapes(ctx, schema, data, what);
        if (data.length === 0) ctx.note(`${what} is empty: the record checks built on it had nothing to check`);
      }
    },
  };
}

/**
 * §4 endpoints 4 and 6: the detail of every listed id (or a seeded sample) answers one record of the shape, for
 * every configured application (#35: the second merchant's details are the ones ISO-04 reads, judged like app's).
 */
function detailShape(id: string, resource: Resource, spec: string): CheckDeclaration {
  const { noun, schema } = RESOURCES[resource];
  return {
    id,
    level: 'MUST',
    spec,
    reads: [`${resource}:app`, `${resource}:other_app`],
    title: `GET /${resource}/:id answers the ${noun} of §${spec.split(',')[0]!.replace('§', '')} for every listed id, for every configured application`,
    async run(ctx) {
      const found = new Findings();
      let asked = 0;
      for (const app of judgedApplications(ctx)) {
        const details = await detailsOf(ctx, app, resource);
        if (!details) continue;
        if (details.sampled)
          ctx.note(
            `checked a seeded sample of ${details.ids.length} of ${details.total} ${resource}${app.suffix} (seed ${ctx.config.fuzz.seed})`,
          );
        asked += details.ids.length;
        const mark = app.who === 'app' ? '' : `${app.who}:`;
        let firstData: unknown = NOT_ANSWERED;
        for await (const { id, reply } of details) {
          const what = `GET ${detailPath(resource, id)}${app.suffix}`;
          const data = answerOf(ctx, app, reply, what, expectSuccess);
          if (data === NOT_ANSWERED) continue;
          if (id === details.ids[0]) firstData = data;
          const errors = validate(schema, data, '/data');
          if (errors.length) {
            ctx.shows(reply, 'finding');
            found.add(
              `${what}: ${formatErrors(errors, 3)}`,
              ...(errors.map((e) => `${mark}${noun}:${String(id)}${e.path.replace(/^\/data/, '')}`) as [
                string,
                ...string[],
              ]),
            );
          }
        }
        const first = details.ids[0];
        if (first !== undefined && firstData !== NOT_ANSWERED && !found.length)
          expectShape(ctx, schema, firstData, `GET ${detailPath(resource, first)}${app.suffix}`);
      }
      if (found.length) ctx.fail(found.summary(`details do not match the ${noun} shape`, asked), found.fingerprints);
    },
  };
}

/** An application's details of a resource: app's as ever (what blocks them blocks the check), another's optionally. */
async function detailsOf(ctx: CheckContext, app: Judged, resource: Resource): Promise<Details | undefined> {
  if (app.who === 'app') return ctx.api.details(resource);
  try {
    return await ctx.api.details(resource, app.who);
  } catch (e) {
    if (!(e instanceof Blocked)) throw e;
    ctx.note(`GET /${resource}/:id${app.suffix} not judged: ${e.message}`);
    return undefined;
  }
}

/** The shape checks of each resource's list and detail (§2.2–§2.5, §4 endpoints 2–7). */
export const resourceChecks: Check[] = [
  ...defineChecks('merchant', [
    {
      id: 'MER-01',
      level: 'MUST',
      spec: '§2.5, §4 endpoint 2',
      title: 'GET /merchant answers the merchant record of §2.5',
      async run(ctx: CheckContext) {
        for (const app of judgedApplications(ctx)) {
          const what = `GET /merchant${app.suffix}`;
          const data = answerOf(ctx, app, await ctx.api.get('/merchant', app.who), what);
          if (data !== NOT_ANSWERED) expectShape(ctx, 'merchant', data, what);
        }
      },
    },
  ]),
  ...defineChecks('dishes', [
    listShape('DISH-01', 'dishes', '§2.2, §4 endpoint 3'),
    detailShape('DISH-02', 'dishes', '§2.2, §4 endpoint 4'),
  ]),
  ...defineChecks('seats', [
    listShape('SEAT-01', 'seats', '§2.3, §3, §4 endpoint 5'),
    detailShape('SEAT-02', 'seats', '§2.3, §3, §4 endpoint 6'),
  ]),
  ...defineChecks('orders', [
    listShape('ORD-01', 'orders', '§2.4, §2.2, §4 endpoint 7'),
    {
      id: 'ORD-02',
      level: 'SHOULD',
      spec: '§2.4 (device)',
      title:
        "Each order device also carries the sample's members (device_id, remark, status, created_at, updated_at, seat_id, version_name)",
      async run(ctx) {
        // The first few problems as text, the rest counted (two million orders must not become two million strings).
        const problems: string[] = [];
        let problemCount = 0;
        let orderCount = 0;
        for (const app of judgedApplications(ctx)) {
          const orders = records(await ctx.api.list('/orders', app.who));
          orderCount += orders.length;
          await everyRecord(orders, (o, i) => {
            if (problemCount >= 3) {
              if (!isValid('device#/$defs/complete', o.device)) problemCount++;
              return;
            }
            const errors = validate('device#/$defs/complete', o.device, `/data/${i}/device`);
            if (errors.length) {
              problemCount++;
              problems.push(`order ${show(o.id, 40)}${app.suffix}: ${formatErrors(errors, 4)}`);
            }
          });
        }
        if (problemCount)
          ctx.fail(
            `§2.4: a builder should emit the members of both device lists; the sample's (device_id, remark, status, created_at, updated_at, seat_id, version_name) are missing in ${problemCount} of ${orderCount} orders (the field table's id, uuid, name, ip, data are ORD-01's, at MUST): ${problems.join('; ')}`,
          );
      },
    },
  ]),
];
