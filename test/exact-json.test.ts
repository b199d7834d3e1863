import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { hasLongDigitRun, idKey, parseJsonExact, stringifyJson, withNumbers } from '../core/base/exact-json.js';
import { parseJsonBuffer } from '../core/transport/json-buffer.js';
import { validate } from '../core/spec/schemas.js';
import { show } from '../core/redact/quote.js';
import { detailPath } from '../core/spec/endpoints.js';
import { byId, sameId } from '../suites/support/compare.js';

const SNOWFLAKE = '1300000000000000101';

describe('exact integers (core/base/exact-json.ts): ids past 2^53 are never rounded', () => {
  test('integers past 2^53 arrive as exact bigints; every other number is the number JSON.parse gives', () => {
    const v = parseJsonExact(
      `{"id":${SNOWFLAKE},"neg":-9007199254740993,"safe":9007199254740991,"price":38.5,"f":12345678901234567.5,"s":"${SNOWFLAKE}"}`,
    ) as Record<string, unknown>;
    expect(v).toEqual({
      id: BigInt(SNOWFLAKE),
      neg: -9007199254740993n,
      safe: 9007199254740991,
      price: 38.5,
      f: 12345678901234567.5,
      s: SNOWFLAKE,
    });
  });

  test('any JSON without a 16-digit run parses exactly as JSON.parse', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        fc.pre(!/[0-9]{16}/.test(text));
        expect(parseJsonExact(text)).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  test("malformed text fails with JSON.parse's message; duplicate keys keep the last, as JSON.parse does", () => {
    for (const bad of [`{"id":${SNOWFLAKE},}`, `[${SNOWFLAKE}`, `{"id":${SNOWFLAKE}x}`]) {
      let expected = '';
      try {
        JSON.parse(bad);
      } catch (e) {
        expected = (e as Error).message;
      }
      expect(() => parseJsonExact(bad)).toThrow(expected);
    }
    expect(parseJsonExact(`{"a":1,"a":${SNOWFLAKE}}`)).toEqual(JSON.parse(`{"a":1,"a":${SNOWFLAKE}}`));
  });

  test('a big body parsed element by element keeps every id exact', () => {
    const body = `{"status":"SUCCESS","code":200,"data":[${Array.from({ length: 50 }, (_, i) => `{"id":${BigInt(SNOWFLAKE) + BigInt(i)},"name":"d${i}"}`).join(',')}]}`;
    const ids = (parseJsonBuffer(Buffer.from(body)) as { data: Array<{ id: bigint }> }).data.map((d) => d.id);
    expect(ids[49]).toBe(BigInt(SNOWFLAKE) + 49n);
  });

  test('messages, paths, pairing and re-serialization print the exact digits', () => {
    const id = BigInt(SNOWFLAKE);
    expect(show({ id })).toBe(`{"id":${SNOWFLAKE}}`);
    expect(stringifyJson({ id, x: [1, 'a'] }, 2)).toBe(`{\n  "id": ${SNOWFLAKE},\n  "x": [\n    1,\n    "a"\n  ]\n}`);
    expect(detailPath('dishes', id)).toBe(`/dishes/${SNOWFLAKE}`);
    expect(sameId(id, SNOWFLAKE)).toBe(true);
    expect(sameId(id, id + 1n)).toBe(false);
    expect(byId([{ id }, { id: id + 1n }]).size).toBe(2);
  });

  test('schemas see integers: a bigint id is an integer, a bigint price a number, a bigint name still no string', () => {
    const dish = {
      id: BigInt(SNOWFLAKE),
      name: 'Mapo Tofu',
      price: 38.5,
      stock: 20,
      unit: null,
      category_id: 1,
      user_id: BigInt(SNOWFLAKE) + 7n,
      created_at: '2024-03-01 12:30',
      updated_at: '2024-03-01 12:30',
    };
    expect(validate('dish', dish)).toEqual([]);
    expect(validate('dish', { ...dish, name: 10n ** 20n }).map((e) => e.path)).toEqual(['/name']);
    const own = withNumbers(parseJsonExact(`{"__proto__":${SNOWFLAKE}}`)) as object;
    expect(Object.getPrototypeOf(own)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(own, '__proto__')?.value).toBe(Number(SNOWFLAKE));
  });
});

test('hasLongDigitRun finds a run of 16 digits wherever it sits, and only such a run', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(fc.stringMatching(/^[0-9]{1,20}$/), fc.string({ maxLength: 5 }), fc.constantFrom(',', '"', ' ')),
        { maxLength: 30 },
      ),
      (pieces) => {
        const text = pieces.join('');
        const expected = /[0-9]{16}/.test(text);
        expect(hasLongDigitRun(text)).toBe(expected);
        expect(hasLongDigitRun(Buffer.from(text, 'latin1'))).toBe(
          /[0-9]{16}/.test(Buffer.from(text, 'latin1').toString('latin1')),
        );
      },
    ),
    { numRuns: 2000 },
  );
});

test('idKey: two ids share a key exactly when their texts are equal (5, "5" and 5n alike; "05", 1e15, 2^60 as text)', () => {
  const id = fc.oneof(
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.integer({ min: -1e6, max: 1e6 }).map(String),
    fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }),
    fc.bigInt({ min: -(10n ** 17n), max: 10n ** 17n }).map(String),
    fc.double(),
    fc.constantFrom(
      -0,
      0,
      '0',
      '-0',
      '05',
      '',
      ' 5',
      '5.0',
      1e15,
      '1000000000000000',
      999999999999999,
      2 ** 60,
      '1e+21',
      1e21,
    ),
    fc.string({ maxLength: 4 }),
  );
  fc.assert(
    fc.property(id, id, (a, b) => {
      // A Set compares keys as SameValueZero does.
      expect(new Set([idKey(a)]).has(idKey(b))).toBe(String(a) === String(b));
    }),
    { numRuns: 5000 },
  );
});
