import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { namesRule, SPEC_SENTENCES } from '../suites/rules/sentences.js';

const spec = readFileSync(new URL('../spec/open-platform-api.md', import.meta.url), 'utf8');

describe('the sentence map (suites/rules/sentences.ts): every normative sentence of the spec and its rules', () => {
  test('every quote is the spec’s own words, and no sentence is listed twice', () => {
    expect(SPEC_SENTENCES.length).toBeGreaterThan(50);
    expect(SPEC_SENTENCES.filter((s) => !spec.includes(s.quote)).map((s) => s.quote)).toEqual([]);
    expect(new Set(SPEC_SENTENCES.map((s) => s.quote)).size).toBe(SPEC_SENTENCES.length);
  });

  test('every sentence names rules of the matrix, or says why it has none', () => {
    expect(SPEC_SENTENCES.flatMap((s) => s.rules.filter((r) => !namesRule(r)))).toEqual([]);
    expect(SPEC_SENTENCES.filter((s) => !s.rules.length && !s.none?.trim()).map((s) => s.quote)).toEqual([]);
  });

  test('every numbered rule of §4 and §5 is quoted', () => {
    const numbered = [...spec.matchAll(/^\d\. (.+)$/gm)].map((m) => m[1]!);
    expect(numbered.length).toBe(12);
    for (const line of numbered)
      expect(
        SPEC_SENTENCES.some((s) => line.includes(s.quote) || s.quote.includes(line)),
        line,
      ).toBe(true);
  });
});
