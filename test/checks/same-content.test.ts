/**
 * sameContent (suites/support/compare.ts): order is not content (#35). Lists and an order's dishes compare as
 * multisets; everything else as sameJson does.
 */
import { describe, expect, test } from 'vitest';
import { canonicalText, sameContent, sameJson } from '../../suites/support/compare.js';

describe('sameContent: the same records in any order are the same content', () => {
  test('a list in another order, and an order whose dishes come in another order', () => {
    const a = [
      { id: 1, dishes: [{ id: 101 }, { id: 102 }] },
      { id: 2, dishes: [] },
    ];
    const b = [
      { id: 2, dishes: [] },
      { dishes: [{ id: 102 }, { id: 101 }], id: 1 },
    ];
    expect(sameJson(a, b)).toBe(false);
    expect(sameContent(a, b)).toBe(true);
    expect(sameContent({ data: a }, { data: b })).toBe(true);
  });

  test('other records, a record more or less, a duplicate instead of another record: other content', () => {
    expect(sameContent([{ id: 1 }, { id: 2 }], [{ id: 2 }, { id: 3 }])).toBe(false);
    expect(sameContent([{ id: 1 }, { id: 2 }], [{ id: 2 }])).toBe(false);
    expect(sameContent([{ id: 1 }, { id: 2 }], [{ id: 1 }, { id: 1 }])).toBe(false);
    // 5 and "5" stay different values (the latitude of §2 is the consistency checks', not equality's).
    expect(sameContent([{ id: 5 }], [{ id: '5' }])).toBe(false);
    expect(sameContent([{ id: 1, dishes: [{ id: 101 }] }], [{ id: 1, dishes: [{ id: 102 }] }])).toBe(false);
  });

  test('big integers and nesting past any call stack', () => {
    expect(sameContent([{ id: 2n ** 64n }, { id: 1 }], [{ id: 1 }, { id: 2n ** 64n }])).toBe(true);
    expect(sameContent([{ id: 2n ** 64n }], [{ id: 2n ** 64n + 1n }])).toBe(false);
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep, i];
    // Each level stands in its parent as a digest: the text stays short, the work linear.
    expect(canonicalText(deep).length).toBeLessThan(100);
    expect(sameContent([deep, 1], [1, deep])).toBe(true);
  });
});
