import { defineChecks, type Check, type CheckContext, type CheckDeclaration } from '../core/model/check.js';
import { RESOURCES, type Resource } from '../core/spec/resources.js';
import { detailPath } from '../core/spec/endpoints.js';
import { formatErrors, isValid, validate } from '../core/spec/schemas.js';
import { answeredData, expectShape, expectShapes, expectSuccess, records } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { Findings } from '../core/model/findings.js';
import { Blocked } from '../core/session/check-errors.js';
import { everyRecord } from '../core/session/api.js';
import type { Reply } from '../core/transport/exchange.js';
import { judgedApplications, type Judged } from './support/tenants.js';

const NOT_ANSWERED = Symbol('not answered');

/**
 * The data of an application's answer. app's refusal or broken envelope blocks the check (another check owns it);
 * the second merchant's only leaves its part unjudged, said in a note: app's answers were still judged.
 */
function answerOf(ctx: CheckContext, app: Judged, reply: Reply, what: string): unknown {
  try {
    return answeredData(reply, what);
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

/** §4 endpoints 4 and 6: the detail of every listed id (or a seeded sample) answers one record of the shape. */
function detailShape(id: string, resource: Resource, spec: string): CheckDeclaration {
  const { noun, schema } = RESOURCES[resource];
  return {
    id,
    level: 'MUST',
    spec,
    reads: [`${resource}:app`],
    title: `GET /${resource}/:id answers the ${noun} of §${spec.split(',')[0]!.replace('§', '')} for every listed id`,
    async run(ctx) {
      const details = await ctx.api.details(resource);
      if (details.sampled)
        ctx.note(
          `checked a seeded sample of ${details.ids.length} of ${details.total} ${resource} (seed ${ctx.config.fuzz.seed})`,
        );
      const found = new Findings();
      let firstData: unknown;
      for await (const { id, reply } of details) {
        const path = detailPath(resource, id);
        const data = expectSuccess(ctx, reply, `GET ${path}`);
        if (id === details.ids[0]) firstData = data;
        const errors = validate(schema, data, '/data');
        if (errors.length) {
          ctx.shows(reply, 'finding');
          found.add(
            `GET ${path}: ${formatErrors(errors, 3)}`,
            ...(errors.map((e) => `${noun}:${String(id)}${e.path.replace(/^\/data/, '')}`) as [string, ...string[]]),
          );
        }
      }
      if (found.length)
        ctx.fail(found.summary(`details do not match the ${noun} shape`, details.ids.length), found.fingerprints);
      const first = details.ids[0];
      if (first !== undefined) expectShape(ctx, schema, firstData, `GET ${detailPath(resource, first)}`);
    },
  };
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
