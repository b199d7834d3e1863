/**
 * suites/support/compare.ts's pure comparisons: what counts as the same value, the same id, the same record, and
 * how a difference is said; each at the edge where a consistency check would pass a broken record or fail a good one.
 */
import { describe, expect, test } from 'vitest';
import {
  byId,
  compareRecords,
  describeDiffs,
  recordIn,
  sameId,
  sameJson,
  sameText,
} from '../../suites/support/compare.js';
import { replyOf } from './assertions-replies.js';

describe('sameJson', () => {
  test.each([
    [1, {}],
    [{}, 1],
    [null, {}],
    [{}, null],
    [[], {}],
    [{ a: 1 }, { a: 1, b: 2 }],
    [{ a: 1, b: 2 }, { a: 1 }],
    [{ a: 1 }, { b: 1 }],
    [{ a: undefined }, { b: undefined }],
    [
      [1, 2],
      [1, 3],
    ],
    ['1', 1],
  ])('%j is not %j', (a, b) => {
    expect(sameJson(a, b)).toBe(false);
  });
  test('key order is ignored, nesting compared', () => {
    expect(sameJson({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(sameJson(null, null)).toBe(true);
  });
});

describe('sameText: a number and its text', () => {
  test.each([
    [5, '5', true],
    ['5', 5, true],
    [5n, '5', true],
    ['5', 5n, true],
    [5, '05', false],
    ['05', 5, false],
    [5, 5, false],
    ['5', '5', false],
    [null, 'null', false],
    ['null', null, false],
    [true, 'true', false],
    ['true', true, false],
  ] as const)('case %#', (a, b, same) => {
    expect(sameText(a, b)).toBe(same);
  });
});

describe('sameId', () => {
  test('both ids must be ids', () => {
    expect(sameId(7, '7')).toBe(true);
    expect(sameId(null, 'null')).toBe(false);
    expect(sameId('null', null)).toBe(false);
  });
});

describe('compareRecords', () => {
  const dish = {
    id: 1,
    name: 'Tofu',
    price: 38.5,
    stock: 20,
    unit: 'plate',
    category_id: 1,
    user_id: 1,
    created_at: '2024-03-01 10:00',
    updated_at: '2024-03-01 10:00',
  };

  test('a field on one side only is not compared; one on both that differs is', () => {
    const { name: _, ...noName } = dish;
    expect(compareRecords('dish', dish, noName)).toEqual({ diffs: [], latitude: [], extra: [] });
    expect(compareRecords('dish', noName, dish)).toEqual({ diffs: [], latitude: [], extra: [] });
    expect(compareRecords('dish', dish, { ...dish, price: 38 }).diffs).toEqual([{ field: 'price', a: 38.5, b: 38 }]);
  });

  test('a field the spec does not list, with different values on both sides, is extra', () => {
    expect(compareRecords('dish', { ...dish, spicy: 1 }, { ...dish, spicy: 2 }).extra).toEqual(['spicy']);
    expect(compareRecords('dish', { ...dish, spicy: 1 }, { ...dish, spicy: 1 }).extra).toEqual([]);
    expect(compareRecords('dish', { ...dish, spicy: 1 }, dish).extra).toEqual([]);
  });
});

describe('describeDiffs', () => {
  test('each difference said, separated', () => {
    expect(
      describeDiffs(
        [
          { field: 'price', a: 38.5, b: 38 },
          { field: 'unit', a: null, b: 'plate' },
        ],
        'list',
        'detail',
      ),
    ).toBe('list has price 38.5, detail has 38; list has unit null, detail has "plate"');
  });
});

describe('recordIn', () => {
  test('the record of a success, none for a success without one or an error', () => {
    expect(recordIn(replyOf(200, '{"status":"SUCCESS","code":200,"data":{"id":1}}'))).toEqual({ id: 1 });
    expect(recordIn(replyOf(200, '{"status":"SUCCESS","code":200,"data":[{"id":1}]}'))).toBeUndefined();
    expect(recordIn(replyOf(200, '{"status":"ERROR","code":404,"data":{"id":1}}'))).toBeUndefined();
  });
});

describe('byId', () => {
  test('the first of duplicate ids wins; records without an id are left out', () => {
    const index = byId([{ id: 1, name: 'first' }, { id: 1, name: 'second' }, { name: 'no id' }, { id: null }]);
    expect([...index.keys()]).toEqual(['1']);
    expect(index.get('1')).toEqual({ id: 1, name: 'first' });
  });
});
