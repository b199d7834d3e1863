import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  decodedSegment,
  isDetailSegment,
  isExactlyThatId,
  namedId,
  segmentArbitrary,
} from '../suites/support/fuzz-ids.js';
import { compareRecords, sameText } from '../suites/support/compare.js';

describe('which id a fuzzed segment names (suites/support/fuzz-ids.ts)', () => {
  test.each([
    ['7', 7, true],
    ['007', 7, true],
    ['0', 0, true],
    ['101', '101', true],
    ['7abc', 7, false],
    ['7.0', 7, false],
    ['7e0', 7, false],
    ['%207', 7, false],
    ['7%20', 7, false],
    ['-7', -7, false],
    ['%2B7', 7, false],
    ['0x7', 7, false],
    ['%EF%BC%97', 7, false],
    ['8', 7, false],
    ['9007199254740993', 9007199254740992, false],
    ['9007199254740992', 9007199254740992, false], // past 2^53 a number is not exact
    ['9007199254740993', 9007199254740993n, true],
    ['9007199254740993', 9007199254740992n, false],
    ['7', 7.5, false],
    ['7', '8', false],
    ['7', ' 7', false],
    ['7', '7 ', false],
    ['1', true, false],
    ['7', [7], false],
    ['7', null, false],
  ])('%s answering id %s is %s', (raw, id, ok) => {
    expect(isExactlyThatId(raw, id)).toBe(ok);
  });

  test('digits name an id however long; anything else names none', () => {
    expect(namedId('0000000000000000000000101')).toBe(101n);
    expect(namedId('18446744073709551617')).toBe(2n ** 64n + 1n);
    expect(namedId('%2F')).toBeUndefined();
    expect(decodedSegment('..%2Fmerchant')).toBe('../merchant');
    // Not percent-encoding as RFC 3986 writes it: the server sees the bytes as they are, naming no id.
    expect(decodedSegment('7%zz')).toBe('7%zz');
    expect(namedId('7%zz')).toBeUndefined();
  });

  test('dot segments and the empty segment are never detail segments', () => {
    for (const s of ['', '.', '..', '%2e', '%2E%2e', '.%2E']) expect(isDetailSegment(s)).toBe(false);
    for (const s of ['..%2F', '%2e%2e%2fmerchant', '...', '0']) expect(isDetailSegment(s)).toBe(true);
  });
});

describe('generated segments', () => {
  // Built in each test, not once for the file: Stryker activates a mutant only once the tests run.
  const arb = () => segmentArbitrary([101, 102, 103, 104], [201, 202]);

  test('are valid, already-encoded path segments the URL parser leaves alone', () => {
    fc.assert(
      fc.property(arb(), (raw) => {
        expect(raw.length).toBeGreaterThan(0);
        expect(isDetailSegment(raw)).toBe(true);
        expect(raw.length).toBeLessThan(4000);
        expect(raw).not.toMatch(/[/?#\s]/);
        const path = `/open/dishes/${raw}`;
        expect(new URL(path, 'https://h').pathname).toBe(path);
        expect(() => decodeURIComponent(raw)).not.toThrow();
      }),
      { numRuns: 2000, seed: 14 },
    );
  });

  test('visit every class the issue names within a few hundred values', () => {
    const seen = fc.sample(arb(), { numRuns: 600, seed: 7 }).map(decodedSegment);
    const has = (re: RegExp): boolean => seen.some((s) => re.test(s));
    expect(has(/^10[1-4]$/)).toBe(true); // real ids
    expect(has(/^0+10[1-4]$/)).toBe(true); // leading zeros
    expect(has(/^-\d/)).toBe(true); // negatives
    expect(seen.some((s) => /^\d+$/.test(s) && BigInt(s) > 2n ** 63n)).toBe(true); // past 2^63
    expect(has(/^\d+\.\d*$/)).toBe(true); // decimals
    expect(has(/^\d(\.\d+)?[eE]\d+$/)).toBe(true); // exponent notation
    expect(has(/^\s|\s$/)).toBe(true); // whitespace
    expect(has(/[^\x00-\x7f]/)).toBe(true); // unicode
    expect(has(/\.\.\//)).toBe(true); // encoded .. and /
    expect(seen.some((s) => s.length > 500)).toBe(true); // very long
    expect(has(/^0?20[12]$/)).toBe(true); // the other merchant's ids
    expect(has(/^(100|105|98|99|106|107)$/)).toBe(true); // ids next to real ones
  });

  test('draw every probe that is listed by hand', () => {
    const drawn = fc.sample(segmentArbitrary([7], [9]), { numRuns: 20_000, seed: 3 });
    const seen = new Set(drawn);
    const probes = [
      ...['%2B0', '000000', '7.0', '7.5', '7.', '7.999', '0.7', '7e0', '7E0'],
      ...['1e3', '1E2', '1e308', '1e-1', 'Infinity', 'NaN'],
      ...['%0A7', '7%0D%0A', '%C2%A07', '%E3%80%807', '%E2%80%837', '%EF%BC%97', '%D9%A7'],
      ...['%2F', '..%2F', '..%2F..%2Fmerchant', '%2E%2E%2F%2E%2E%2Forders', '..%5C..%5Cmerchant', '%2F..'],
      ...['7%2F', '.%2F7', '7abc', '7a', '7%00', '7-1', '7%2C1', '7*', '7%3F', '7%23', '7%0A', '7.json', '7%20abc'],
      ...['%2B7', '0x7', 'id7', '9', '09'],
    ];
    expect(probes.filter((p) => !seen.has(p))).toEqual([]);
    // A one-digit id in exponent notation is 7e0 (there are no digits after the point to write).
    expect(seen.has('7.e0')).toBe(false);
    expect(drawn.some((s) => /^9{20,1200}$/.test(s))).toBe(true);
    expect(drawn.some((s) => /^a{20,1200}$/.test(s))).toBe(true);
  });

  test('with no usable id of the merchant, 1 stands in; ids that are not digits are never drawn', () => {
    for (const [mine, theirs] of [
      [[], []],
      [
        ['x7', '7x', 'A-7'],
        ['y9', '9y'],
      ],
    ] as const) {
      const seen = new Set(fc.sample(segmentArbitrary([...mine], [...theirs]), { numRuns: 300, seed: 5 }));
      expect(seen.has('1')).toBe(true);
      expect([...seen].filter((s) => /[xyA]/.test(s) && /7|9/.test(s) && s.length <= 3)).toEqual([]);
    }
  });

  test('a merchant with 600,000 records (more ids than one call can take as arguments): an even sample of them, the largest too', () => {
    const ids = Array.from({ length: 600_000 }, (_, i) => i + 1);
    const drawn = fc.sample(segmentArbitrary(ids, []), { numRuns: 3000, seed: 11 });
    const real = drawn.filter((s) => /^[1-9][0-9]*$/.test(s) && Number(s) <= 600_000);
    expect(real.some((s) => Number(s) > 450_000)).toBe(true);
  });
});

describe('field comparison (suites/support/compare.ts)', () => {
  test('5 and "5" are the same table number; "05" and 5 are not', () => {
    expect(sameText(5, '5')).toBe(true);
    expect(sameText('05', 5)).toBe(false);
    const c = compareRecords(
      'seat',
      { table_number: '5', status: 0, remark: null },
      { table_number: 5, status: '0', remark: null },
    );
    expect(c.diffs).toEqual([]);
    expect(c.latitude.map((d) => d.field)).toEqual(['table_number', 'status']);
  });

  test('a malformed value is left to the shape checks; a well-formed difference is a finding', () => {
    const c = compareRecords(
      'dish',
      { price: '38.5', name: 'A', created_at: '2024-03-01T12:30:00Z' },
      { price: 38.5, name: 'B', created_at: '2024-03-01 12:30' },
    );
    expect(c.diffs).toEqual([{ field: 'name', a: 'A', b: 'B' }]);
  });
});
