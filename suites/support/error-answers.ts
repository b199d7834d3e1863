import type { Reply } from '../../core/transport/exchange.js';
import { isRecord } from '../../core/session/api.js';
import { formatErrors, validate } from '../../core/spec/schemas.js';
import { describeReply } from '../../core/model/assertions.js';
import { contentTypeProblem } from './media-type.js';

/** One problem of an error answer, and what its fingerprint ends with ('' for the envelope itself). */
export interface ErrorAnswerProblem {
  text: string;
  suffix: string;
}

/**
 * What is wrong with an error or a refusal as an answer (§1: JSON, UTF-8; §2.1 and §7: the envelope): a byte order
 * mark before the JSON (RFC 8259 §8.1), a body that is no JSON object, no error envelope (status a string other than
 * SUCCESS, code an integer), a media type that is not JSON, bytes that are not UTF-8. The one judgement of an error
 * answer (ERR-04 for every error it provokes, AUTH-07 for the key pairs it sends); `media: false` leaves the media type
 * and the bytes to the transport checks that read the same answer.
 */
export function errorAnswerProblems(reply: Reply, media = true): ErrorAnswerProblem[] {
  const problems: ErrorAnswerProblem[] = [];
  // The suite reads the JSON after one (a reader MAY ignore it), so the rest is judged too.
  if (reply.bom)
    problems.push({
      text: 'the body starts with a byte order mark (U+FEFF), which a JSON sender MUST NOT add (RFC 8259 §8.1)',
      suffix: ':bom',
    });
  if (reply.jsonError !== undefined || !isRecord(reply.json)) {
    problems.push({ text: describeReply(reply), suffix: '' });
    return problems;
  }
  const errors = validate('envelope.error', reply.json);
  if (errors.length) problems.push({ text: `${formatErrors(errors)} (got ${describeReply(reply)})`, suffix: '' });
  if (!media) return problems;
  const type = contentTypeProblem(reply.headers['content-type']);
  if (type) problems.push({ text: type, suffix: ':content-type' });
  if (!reply.utf8) problems.push({ text: 'the body is not valid UTF-8 (§1)', suffix: ':utf-8' });
  return problems;
}
