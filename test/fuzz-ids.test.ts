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
  ])('%s answering id %s is %s', (raw, id, ok) => {
    expect(isExactlyThatId(raw, id)).toBe(ok);
  });

  test('digits name an id however long; anything else names none', () => {
    expect(namedId('0000000000000000000000101')).toBe(101n);
    expect(namedId('18446744073709551617')).toBe(2n ** 64n + 1n);
    expect(namedId('%2F')).toBeUndefined();
    expect(decodedSegment('..%2Fmerchant')).toBe('../merchant');
  });

  test('dot segments and the empty segment are never detail segments', () => {
    for (const s of ['', '.', '..', '%2e', '%2E%2e', '.%2E']) expect(isDetailSegment(s)).toBe(false);
    for (const s of ['..%2F', '%2e%2e%2fmerchant', '...', '0']) expect(isDetailSegment(s)).toBe(true);
  });
});

describe('generated segments', () => {
  const arb = segmentArbitrary([101, 102, 103, 104], [201, 202]);

  test('are valid, already-encoded path segments the URL parser leaves alone', () => {
    fc.assert(
      fc.property(arb, (raw) => {
        expect(raw.length).toBeGreaterThan(0);
        expect(raw.length).toBeLessThan(4000);
        expect(raw).not.toMatch(/[/?#\s]/);
        const path = `/open/dishes/${raw}`;
        expect(new URL(path, 'https://h').pathname).toBe(path);
        expect(() => decodeURIComponent(raw)).not.toThrow();
      }),
      { numRuns: 2000, seed: 1 },
    );
  });

  test('visit every class the issue names within a few hundred values', () => {
    const seen = fc.sample(arb, { numRuns: 600, seed: 7 }).map(decodedSegment);
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
