/**
 * core/model/findings.ts: what a failing check's message lists and the fingerprints a baseline matches, at the
 * edges where the wording or the key changes (one finding or several, exactly the listed number, an id past its cut).
 */
import { describe, expect, test } from 'vitest';
import { Findings, recordKey } from '../../core/model/findings.js';

const findings = (n: number): Findings => {
  const f = new Findings();
  for (let i = n; i >= 1; i--) f.add(`dish ${i}`, `dish:${i}`);
  return f;
};

describe('Findings', () => {
  test('fingerprints come sorted whatever the order of discovery', () => {
    expect(findings(3).fingerprints).toEqual(['dish:1', 'dish:2', 'dish:3']);
  });

  test('the phrase for one finding only when no total is given', () => {
    expect(findings(1).summary(['dish differs', 'dishes differ'])).toBe('1 dish differs: dish 1');
    expect(findings(1).summary(['dish differs', 'dishes differ'], 4)).toBe('1 of 4 dishes differ: dish 1');
    expect(findings(2).summary(['dish differs', 'dishes differ'])).toBe('2 dishes differ: dish 2; dish 1');
  });

  test('exactly max findings are all listed, with no "more"; one past max is cut', () => {
    expect(findings(5).list()).toBe('dish 5; dish 4; dish 3; dish 2; dish 1');
    expect(findings(6).list()).toBe('dish 6; dish 5; dish 4; dish 3; dish 2; … and 1 more');
    expect(findings(3).list(2)).toBe('dish 3; dish 2; … and 1 more');
  });
});

describe('recordKey', () => {
  test('an id as its exact text: a bigint, an object, none', () => {
    expect(recordKey('dish', 12345678901234567890n)).toBe('dish:12345678901234567890');
    expect(recordKey('dish', { a: 1 }, 'price')).toBe('dish:{"a":1}:price');
    expect(recordKey('dish', undefined)).toBe('dish:none');
  });

  test('an id of 200 characters is kept whole; a longer one is cut', () => {
    expect(recordKey('dish', 'x'.repeat(200))).toBe(`dish:${'x'.repeat(200)}`);
    expect(recordKey('dish', 'y'.repeat(201))).toBe(`dish:${'y'.repeat(200)}…`);
  });
});
