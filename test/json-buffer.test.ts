import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { damagedEnvelope, envelope } from './helpers/json-arbitraries.js';
import { KEEP_UP_TO, MAX_LIST_ELEMENTS, parseJsonBuffer, TooManyElements } from '../core/transport/json-buffer.js';
import { parseJsonExact, stringifyJson } from '../core/base/exact-json.js';

/**
 * The same value with the same key order, or the same error message, as JSON.parse of the decoded bytes (with
 * integers past 2^53 exact, as parseJsonExact gives them: test/exact-json.test.ts shows that is JSON.parse otherwise).
 */
function expectSameAsJsonParse(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let expected: { value: string } | { error: string };
  try {
    expected = { value: stringifyJson(parseJsonExact(bytes.toString('utf8'))) ?? '' };
  } catch (e) {
    expected = { error: (e as Error).message };
  }
  let actual: { value: string } | { error: string };
  try {
    actual = { value: stringifyJson(parseJsonBuffer(bytes)) ?? '' };
  } catch (e) {
    actual = { error: (e as Error).message };
  }
  expect(actual).toEqual(expected);
}

describe('parseJsonBuffer: JSON.parse of a big body, element by element (core/transport/json-buffer.ts)', () => {
  test('any envelope, compact or indented, parses to the same value with the same key order', () => {
    fc.assert(
      fc.property(envelope, fc.constantFrom(undefined, 1, 2, '\t'), (env, indent) => {
        expectSameAsJsonParse(JSON.stringify(env, null, indent));
      }),
      { numRuns: 500 },
    );
  });

  test('any JSON text at all, envelope or not, parses the same', () => {
    fc.assert(
      fc.property(fc.json(), (text) => expectSameAsJsonParse(text)),
      { numRuns: 500 },
    );
  });

  test('an envelope with one character deleted, doubled or replaced: the same value, or the same error', () => {
    fc.assert(
      fc.property(damagedEnvelope, (text) => expectSameAsJsonParse(text)),
      { numRuns: 2000 },
    );
  });

  test.each([
    ['an empty list', '{"status":"SUCCESS","code":200,"data":[]}'],
    ['a list of white space', '{"data":[ \n ],"code":200}'],
    ['data before the other keys', '{"data":[1,{"a":[2,3]}],"status":"SUCCESS"}'],
    ['strings holding brackets, commas, quotes and backslashes', '{"data":["a,b]","c\\"],[","\\\\",{"k}":"v{"}]}'],
    ['a "data" key inside the records', '{"data":[{"data":[1,2]},{"data":{"x":"]"}}]}'],
    ['two "data" keys (the last wins)', '{"data":[1,2],"data":[3]}'],
    ['an escaped spelling of "data" after the real one', '{"data":[1,2],"d\\u0061ta":[3]}'],
    ['data that is not an array', '{"data":{"a":[1,2]}}'],
    ['non-ASCII text and escapes', '{"data":["金龙酒家","Crème brûlée","\\u00e9","😀 \\ud83d\\ude00"]}'],
    ['a trailing comma', '{"data":[1,2,]}'],
    ['a missing comma', '{"data":[1 2]}'],
    ['trailing garbage', '{"data":[1]}x'],
    ['an unclosed list', '{"data":[1,2'],
    ['a byte order mark', '\ufeff{"data":[1]}'],
    ['a list at the top', '[{"data":[1]}]'],
    [
      'snowflake ids past 2^53',
      '{"data":[{"id":1300000000000000101,"seat_id":0},{"id":-9007199254740993}],"code":200}',
    ],
    ['white space around everything', ' \r\n\t{ "data" : [ 1 , 2 ] } \n'],
  ])('%s', (_name, text) => expectSameAsJsonParse(text));
});

describe('parseJsonBuffer: lists longer than a scan keeps', () => {
  test('a list past KEEP_UP_TO within MAX_LIST_ELEMENTS parses whole (a second pass); one past MAX_LIST_ELEMENTS is refused', () => {
    const list = (n: number): Buffer =>
      Buffer.from(`{"status":"SUCCESS","code":200,"data":[${'{"id":1},'.repeat(n - 1)}{"id":2}]}`);
    const long = parseJsonBuffer(list(KEEP_UP_TO + 3)) as { data: Array<{ id: number }> };
    expect(long.data.length).toBe(KEEP_UP_TO + 3);
    expect([long.data[0], long.data.at(-1)]).toEqual([{ id: 1 }, { id: 2 }]);
    expect(() => parseJsonBuffer(list(MAX_LIST_ELEMENTS + 1))).toThrow(TooManyElements);
  });
});
