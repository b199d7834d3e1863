import { describe, expect, test } from 'vitest';
import { MAX_SCHEMA_ERRORS, isValid, undeclaredFields, validate } from '../core/spec/schemas.js';
import { jsonText, show } from '../core/redact/quote.js';
import { Findings, recordKey } from '../core/model/findings.js';
import { sameJson } from '../suites/support/compare.js';
import { capRedacted, capText } from '../core/redact/untrusted-text.js';

/** Issue 12, items 2, 6 and 10 as pure functions: what the server sends never makes work or output unbounded. */

const deep = (levels: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { x: [v] };
  return v;
};

describe('schema problems are bounded', () => {
  test('an order with half a million empty dishes: a bounded list of problems, fast', () => {
    const order = {
      id: 1,
      order_number: 'X',
      remark: null,
      amount: 1,
      status: 1,
      dishes: Array.from({ length: 500_000 }, () => ({})),
    };
    const t0 = performance.now();
    const errors = validate('order', order, '/data/0');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThanOrEqual(MAX_SCHEMA_ERRORS);
    expect(isValid('order', order)).toBe(false);
  });

  test('key names in messages and undeclared fields are cut short, and only so many are kept', () => {
    const key = 'k'.repeat(1_000_000);
    const dish = {
      id: 1,
      name: 'n',
      price: 1,
      stock: 1,
      unit: null,
      category_id: 1,
      user_id: 1,
      created_at: '2024-03-01 12:30',
      updated_at: '2024-03-01 12:30',
      [key]: 1,
    };
    for (let i = 0; i < 500; i++) (dish as Record<string, unknown>)[`extra${i}`] = i;
    const found = undeclaredFields('dish', dish, 'data');
    expect(found.length).toBeLessThanOrEqual(100);
    expect(Math.max(...found.map((f) => f.length))).toBeLessThan(200);
  });
});

describe('deep nesting never reaches the call stack', () => {
  test('sameJson compares 100,000 levels', () => {
    expect(sameJson(deep(100_000), deep(100_000))).toBe(true);
    expect(sameJson(deep(100_000), deep(100_000, 2))).toBe(false);
  });

  test('show and jsonText say what they cannot render', () => {
    expect(jsonText(deep(100_000))).toBe('(a value nested too deeply to show)');
    expect(show(deep(100_000))).toBe('(a value nested too deeply to show)');
  });

  test('a fingerprint of a deep or huge id is small', () => {
    expect(recordKey('dish', deep(100_000))).toBe('dish:nested');
    expect(recordKey('dish', 'i'.repeat(5_000_000), 'name').length).toBeLessThan(300);
  });
});

describe('server strings are bounded where shown', () => {
  test('show() of a 5 MB string is 120 characters and an ellipsis', () => {
    const s = show('i'.repeat(5_000_000));
    expect(s).toHaveLength(121);
    expect(s.endsWith('…')).toBe(true);
  });

  test('capText says how much more there was', () => {
    expect(capText('abcdef', 3)).toBe('abc… (3 more characters)');
    expect(capText('abc', 3)).toBe('abc');
  });

  test('capRedacted redacts only the head of a 5 MB text, and counts what it leaves out of the whole', () => {
    const seen: number[] = [];
    const redact = (t: string): string => {
      seen.push(t.length);
      return t.replace(/SECRET/g, '[R]');
    };
    const text = `ab${'SECRET'.repeat(3)}${'i'.repeat(5_000_000)}`;
    const shown = capRedacted(text, 10, redact);
    // The whole text redacted would be 'ab[R][R][R]' and five million i: 5,000,011 characters, 10 shown.
    expect(shown).toBe('ab[R][R][R… (5,000,001 more characters)');
    expect(Math.max(...seen)).toBeLessThan(20_000);
    // Short texts: as capText over the whole redacted text.
    expect(capRedacted('ab SECRET cd', 5, redact)).toBe(capText(redact('ab SECRET cd'), 5));
  });

  test('a million findings keep 50 texts and at most 10,000 fingerprints, and count them all', () => {
    const f = new Findings();
    for (let i = 0; i < 1_000_000; i++) f.add(`record ${i} differs`, `dish:${i}`);
    expect(f.length).toBe(1_000_000);
    expect(f.items).toHaveLength(50);
    expect(f.fingerprints.length).toBe(10_000);
    expect(f.summary('records differ')).toMatch(/^1000000 records differ: record 0 differs; .*; … and 999995 more$/);
  });
});
