/**
 * suites/support/observations.ts: the phrases the INFO checks observe with, for each kind of answer, and how
 * labels are grouped and cut.
 */
import { describe, expect, test } from 'vitest';
import { errorPhrase, grouped } from '../../suites/support/observations.js';
import { replyOf } from './assertions-replies.js';

describe('errorPhrase', () => {
  test('a success, a body that is no JSON object, an error with and without its msg', () => {
    expect(errorPhrase(replyOf(201, '{"status":"SUCCESS","code":200,"data":[]}'))).toBe('SUCCESS over HTTP 201');
    expect(errorPhrase(replyOf(502, 'Bad gateway'))).toBe('HTTP 502 with a body that is not a JSON object');
    expect(errorPhrase(replyOf(200, '[]'))).toBe('HTTP 200 with a body that is not a JSON object');
    const error = replyOf(404, '{"status":"ERROR","code":404,"msg":"not found"}');
    expect(errorPhrase(error, true)).toBe('code 404 over HTTP 404, status "ERROR", msg "not found"');
    expect(errorPhrase(error)).toBe('code 404 over HTTP 404, status "ERROR"');
    expect(errorPhrase(replyOf(404, '{"status":"ERROR","code":404,"msg":7}'), true)).toBe(
      'code 404 over HTTP 404, status "ERROR"',
    );
  });
});

describe('grouped', () => {
  const items = (labels: string[], phrase = 'X') => labels.map((label) => ({ label, phrase }));
  test('one phrase for everything reads as the whole; two are grouped by phrase', () => {
    expect(grouped(items(['a', 'b']), 'every request')).toBe('every request: X');
    expect(grouped([...items(['a']), ...items(['b'], 'Y')], 'every request')).toBe('a: X; b: Y');
  });
  test('six labels are all named; seven are cut to five and how many more', () => {
    const six = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(grouped(items(six))).toBe('a, b, c, d, e, f: X');
    expect(grouped(items([...six, 'g']))).toBe('a, b, c, d, e and 2 more: X');
  });
});
