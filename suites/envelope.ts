import { defineChecks, type CheckContext } from '../core/model/check.js';
import { isRecord } from '../core/session/api.js';
import { formatErrors, validate } from '../core/spec/schemas.js';
import { describeReply, isRefusal } from '../core/model/assertions.js';
import { show } from '../core/redact/quote.js';
import { otherApplicationsAnswers, ownAnswers, type Answer } from './support/answers.js';

/**
 * The successful answers of endpoints 1–7, each fetched once per run; and the second merchant's answers to /auth,
 * /merchant and the lists, which the run reads anyway (its details are asked for with app's token only).
 */
async function successReplies(ctx: CheckContext): Promise<Answer[]> {
  return [...(await ownAnswers(ctx)), ...(await otherApplicationsAnswers(ctx))];
}

/** The checks of the success envelope every data answer is wrapped in (§2.1). */
export const envelopeChecks = defineChecks('envelope', [
  {
    id: 'ENV-01',
    title: 'Every successful answer is the envelope with status SUCCESS, code 200 and data',
    level: 'MUST',
    spec: '§2.1, §4 rule 1',
    async run(ctx) {
      const problems: string[] = [];
      for (const { request, reply } of await successReplies(ctx)) {
        // A refusal is judged as a refusal (AUTH-01, AUTH-05, the error checks), not as a broken success.
        if (isRefusal(reply)) continue;
        // The client reads the JSON after a byte order mark (a reader MAY ignore one), so the rest is judged too.
        if (reply.bom)
          problems.push(
            `${request}: the body starts with a byte order mark (U+FEFF), which a JSON sender MUST NOT add (RFC 8259 §8.1; the answers are JSON, §1)`,
          );
        if (reply.jsonError !== undefined) {
          problems.push(`${request}: ${describeReply(reply)}`);
          continue;
        }
        const errors = validate('envelope.success', reply.json);
        if (errors.length) problems.push(`${request}: ${describeReply(reply)}: ${formatErrors(errors, 3)}`);
        else if (!isRecord(reply.json) || !('data' in reply.json)) problems.push(`${request}: no data member`);
      }
      if (problems.length)
        ctx.fail(`expected {status: "SUCCESS", code: 200, data} on every success: ${problems.join('; ')}`);
    },
  },
  {
    id: 'ENV-02',
    title: 'msg is absent on success',
    // §2.1's field table: "It is absent on success" (a field table is normative: MUST).
    level: 'MUST',
    spec: '§2.1',
    async run(ctx) {
      const withMsg = (await successReplies(ctx)).filter(
        ({ reply }) => isRecord(reply.json) && reply.json.status === 'SUCCESS' && 'msg' in reply.json,
      );
      if (withMsg.length)
        ctx.fail(
          `§2.1 says msg is absent on success; it is present on ${withMsg.map((x) => `${x.request} (msg ${show((x.reply.json as { msg: unknown }).msg)})`).join(', ')}`,
        );
    },
  },
]);
