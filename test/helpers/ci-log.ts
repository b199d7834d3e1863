import { expect } from 'vitest';

/** C0 (but \n) and C1 controls, bidi controls and zero-width characters: no line of ours may carry them raw. */
export const RAW_CONTROL =
  /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/u;

/**
 * Text a terminal or CI log shows carries no raw control character and no workflow command of the older syntax
 * (`##[`, honoured anywhere in a line) nor a GitLab section marker; a failure names the first control and its place.
 */
export function expectNoControls(where: string, text: string): void {
  const bad = RAW_CONTROL.exec(text);
  expect(
    bad,
    `${where}: raw U+${bad?.[0].charCodeAt(0).toString(16)} near ${JSON.stringify(text.slice(Math.max(0, (bad?.index ?? 0) - 60), (bad?.index ?? 0) + 10))}`,
  ).toBeNull();
  expect(text, where).not.toContain('##[');
  expect(text, where).not.toMatch(/section_(start|end):/);
}
