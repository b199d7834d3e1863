import { describe, expect, test } from 'vitest';
import { placeholderOf, Redactor, neutralizeMarkers } from '../core/redact/redact.js';
import { untrustedLine, untrustedLines, inertBlock } from '../core/redact/untrusted-text.js';

/** Every legal JSON escaping of a string: each character as itself, as \uXXXX (lower or upper hex) or short. */
function jsonEscaped(s: string, mode: 'u-lower' | 'u-upper' | 'php'): string {
  return [...s]
    .map((c) => {
      const u = (x: number): string => `\\u${x.toString(16).padStart(4, '0')}`;
      if (mode === 'php')
        return c === '/' ? '\\/' : c.charCodeAt(0) > 0x7e ? u(c.charCodeAt(0)) : JSON.stringify(c).slice(1, -1);
      const e = [...c]
        .map((ch) => {
          let out = '';
          for (let i = 0; i < ch.length; i++) out += u(ch.charCodeAt(i));
          return out;
        })
        .join('');
      return mode === 'u-upper' ? e.toUpperCase().replace(/\\U/g, '\\u') : e;
    })
    .join('');
}

const KEY = `sk_<b>&amp;+%20/?#[]~!'()*;x y\\z Zürich "q"`;
const TOKEN = `tok_${'Ab9-_'.repeat(1600)}`; // 8,004 characters

describe('redaction finds a secret in every form an honest server quotes it', () => {
  const r = new Redactor();
  r.add(KEY, 'secret-key');
  r.add(TOKEN, 'token');
  const pct = (s: string, lower: boolean): string => {
    const e = encodeURIComponent(s);
    return lower ? e.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()) : e;
  };
  const html = (s: string, how: 'named' | 'dec' | 'hex'): string =>
    s.replace(/[&<>"'/]/g, (c) =>
      how === 'named'
        ? { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '/': '&sol;' }[c]!
        : how === 'dec'
          ? `&#${c.charCodeAt(0)};`
          : `&#X${c.charCodeAt(0).toString(16)};`,
    );
  const forms: Array<[string, string]> = [
    ['raw', KEY],
    ['lower case', KEY.toLowerCase()],
    ['percent, upper hex', pct(KEY, false)],
    ['percent, lower hex', pct(KEY, true)],
    ['form', new URLSearchParams({ v: KEY }).toString().slice(2)],
    ['form, + for space', pct(KEY, true).replace(/%20/g, '+')],
    ['JSON, \\u lower', jsonEscaped(KEY, 'u-lower')],
    ['JSON, \\u upper', jsonEscaped(KEY, 'u-upper')],
    ['JSON, PHP style', jsonEscaped(KEY, 'php')],
    ['JSON of the percent form', jsonEscaped(pct(KEY, true), 'php')],
    ['HTML named', html(KEY, 'named')],
    ['HTML decimal', html(KEY, 'dec')],
    ['HTML hex', html(KEY, 'hex')],
    ['JSON of HTML', JSON.stringify(html(KEY, 'named')).slice(1, -1)],
  ];
  test.each(forms)('%s', (_how, form) => {
    const out = r.redact(`before ${form} after`);
    expect(out).toBe('before [REDACTED:secret-key] after');
  });

  test('an 8,000-character token, JSON-escaped with \\/ and \\u', () => {
    expect(r.redact(`{"app_token":"${jsonEscaped(TOKEN, 'u-upper')}"}`)).toBe('{"app_token":"[REDACTED:token]"}');
  });

  test('a prefix cut short before "…" is hidden, not the rest of the text', () => {
    expect(r.redact(`said "${TOKEN.slice(0, 50)}…" and more`)).toBe('said "[REDACTED:token]…" and more');
    expect(r.redact(`x ${encodeURIComponent(KEY).slice(0, 9)}…`)).toBe('x [REDACTED:secret-key]…');
    expect(r.redact('tok…')).toBe('tok…');
  });

  test('linear: 6,000 "…" and 8,000-character tokens take milliseconds, not minutes', () => {
    const many = new Redactor();
    for (let i = 0; i < 20; i++) many.add(`tok_${String(i).padStart(3, '0')}${'x'.repeat(8000)}`, 'token');
    const text = `${'…'.repeat(6000)}${`tok_000${'x'.repeat(50)}…`.repeat(100)}${'x'.repeat(100_000)}%41&amp;\\u0041`;
    const t0 = performance.now();
    const out = many.redact(text);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(out.includes('tok_000')).toBe(false);
    expect(out.split('[REDACTED:token]…').length).toBe(101);
  });

  test('text without secrets comes back unchanged, markers are idempotent', () => {
    const plain = 'GET /dishes does not match the dish shape (5 problems): /data/0/id …';
    expect(r.redact(plain)).toBe(plain);
    const once = r.redact(`a ${KEY} b`);
    expect(r.redact(once)).toBe(once);
  });
});

describe('forged markers and short secrets', () => {
  test('literal marker text in server data is neutralised, so it never becomes a shell variable', () => {
    const r = new Redactor();
    r.add('sk_live_secretvalue', 'secret-key');
    expect(neutralizeMarkers('/dishes/[REDACTED:secret-key]')).toBe('/dishes/[FORGED-REDACTED:secret-key]');
    expect(r.redactServerText('/dishes/[redacted:token]/sk_live_secretvalue')).toBe(
      '/dishes/[FORGED-redacted:token]/[REDACTED:secret-key]',
    );
  });

  test("a token too short to redact safely is kept out of the tool's words but not out of server text", () => {
    const r = new Redactor();
    r.add('NOT', 'token');
    expect(r.short.has('token')).toBe(true);
    expect(r.redact('GET /dishes does not match; NOT CONFORMANT')).toBe('GET /dishes does not match; NOT CONFORMANT');
    expect(r.redactServerText('echo: NOT')).toBe('echo: [REDACTED:token]');
  });

  test('a text redacted once is redacted afresh after a secret is added (a token issued mid-run), in each way', () => {
    const r = new Redactor();
    r.add('sk_first_secret_1', 'secret-key');
    const text = 'x-echo: tok_issued_later_99 and sk_first_secret_1';
    const before = [r.redact(text), r.redactServerText(text), r.redactQuoted(text)];
    expect(before.map((t) => t.includes('tok_issued_later_99'))).toEqual([true, true, true]);
    expect([r.redact(text), r.redactServerText(text), r.redactQuoted(text)]).toEqual(before);
    r.add('tok_issued_later_99', 'token');
    const after = [r.redact(text), r.redactServerText(text), r.redactQuoted(text)];
    expect(after.some((t) => t.includes('tok_issued_later_99') || t.includes('sk_first_secret_1'))).toBe(false);
    expect(after[0]).toBe('x-echo: [REDACTED:token] and [REDACTED:secret-key]');
  });

  test('secrets learned one at a time (tokens issued through a run) are found as by a redactor given them all at once', () => {
    // Past the few a small matcher of their own takes, and past a quarter of the rest: every path the matchers take.
    const learned = new Redactor();
    const whole = new Redactor();
    const secrets = Array.from({ length: 300 }, (_, i) => `tok_${i.toString(36)}_${'xY9'.repeat(1 + (i % 7))}`);
    const text = (upTo: number): string =>
      secrets
        .slice(0, upTo)
        .filter((_, i) => i % 3 === 0 || i === upTo - 1)
        .map((t, i) => (i % 2 ? encodeURIComponent(t) : `"${t.toLowerCase()}" and ${t.slice(0, 6)}…`))
        .join(' | ');
    secrets.forEach((t, i) => {
      learned.add(t, i % 2 ? 'token' : 'issued-token');
      const once = new Redactor();
      for (const [j, u] of secrets.slice(0, i + 1).entries()) once.add(u, j % 2 ? 'token' : 'issued-token');
      if (i % 37 === 0 || i === secrets.length - 1)
        expect(learned.redactServerText(text(i + 1)), `after ${i + 1} secrets`).toBe(
          once.redactServerText(text(i + 1)),
        );
      else learned.redactServerText(text(i + 1));
    });
    for (const [j, u] of secrets.entries()) whole.add(u, j % 2 ? 'token' : 'issued-token');
    expect(learned.redactServerText(text(secrets.length))).toBe(whole.redactServerText(text(secrets.length)));
    expect(learned.redactServerText(text(secrets.length))).not.toMatch(/tok_/);
  });

  test('redactDeep walks 100,000 levels without recursion and keeps __proto__ an own key', () => {
    const r = new Redactor();
    r.add('sk_live_secretvalue', 'secret-key');
    let deep: unknown = 'sk_live_secretvalue';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = r.redactDeep(deep);
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    expect(out).toBe('[REDACTED:secret-key]');
    const proto = r.redactDeep(JSON.parse('{"__proto__": {"polluted": 1}}') as object);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });
});

describe('one escaping for every terminal and CI line', () => {
  test('controls, 8-bit CSI, NUL, bidi and zero-width characters become visible escapes', () => {
    expect(untrustedLine('a\u001b]0;title\u0007b\u009b2Jc\u0000d\u202Ee\u2066f\u200Bg\uFEFFh')).toBe(
      'a\\u001b]0;title\\u0007b\\u009b2Jc\\u0000d\\u202ee\\u2066f\\u200bg\\ufeffh',
    );
  });
  test('workflow commands cannot start: ##[ anywhere, :: at a line start, GitLab sections', () => {
    expect(untrustedLine('id ##[set-output name=verdict;]conformant')).toBe(
      'id #\\u0023[set-output name=verdict;]conformant',
    );
    expect(untrustedLine('##vso[task.setvariable variable=x]1 ##teamcity[x]')).toBe(
      '#\\u0023vso[task.setvariable variable=x]1 #\\u0023teamcity[x]',
    );
    expect(untrustedLine('  ::error::x')).toBe('  \\u003a:error::x');
    expect(untrustedLine('x\n::error::y')).toBe('x ⏎ ::error::y');
    expect(untrustedLine('section_start:1:name\r\u001b[0K')).toBe('section_start\\u003a1:name ⏎ \\u001b[0K');
    expect(untrustedLines('a\n::warning::b\n')).toBe('a\n\\u003a:warning::b\n');
  });
  test('a line is bounded', () => {
    const l = untrustedLine('x'.repeat(5_000_000));
    expect(l.length).toBeLessThan(4100);
    expect(l).toMatch(/… \(4,996,000 more characters\)$/);
  });
  test('on GitHub Actions, untrusted text is echoed between stop-commands and a random resume token', () => {
    const b = inertBlock('::error::forged\n', { GITHUB_ACTIONS: 'true' });
    const m = /^::stop-commands::([0-9a-f]{32})\n::error::forged\n::([0-9a-f]{32})::\n$/.exec(b);
    expect(m?.[1]).toBe(m?.[2]);
    expect(inertBlock('x\n', {})).toBe('x\n');
  });
});

describe('messages: markers only where the redactor put them', () => {
  test('a marker text composed into a message raw is neutralised; a quoted value redacted for a short token stays a marker', () => {
    const r = new Redactor();
    r.add('NOT', 'token');
    r.add('sk_live_secretvalue', 'secret-key');
    const quoted = r.redactQuoted('"NOT [REDACTED:secret-key]"');
    const message = r.redactMessage(
      `GET /dishes/[REDACTED:secret-key] does not match, got ${quoted} with sk_live_secretvalue; NOT CONFORMANT`,
    );
    expect(message).toBe(
      'GET /dishes/[FORGED-REDACTED:secret-key] does not match, got "[REDACTED:token] [FORGED-REDACTED:secret-key]" with [REDACTED:secret-key]; NOT CONFORMANT',
    );
  });
});

test('a derived token that is a form of the token (its lower case) keeps its own kind, so a recording tells them apart', () => {
  const r = new Redactor();
  const token = 'TokenWithUpperCase0123456789';
  r.add(token, 'token');
  expect(r.kindOf(token.toLowerCase())).toBe('token');
  r.add(token.toLowerCase(), 'derived-token');
  expect(r.kindOf(token.toLowerCase())).toBe('derived-token');
  expect(r.replaceSecrets(`a ${token.toLowerCase()} b ${token}`, placeholderOf)).toBe(
    'a REDACTED_derived-token b REDACTED_token',
  );
  // Only a value added as itself takes a form over: the token added again keeps its kind.
  r.add(token, 'issued-token');
  expect(r.kindOf(token)).toBe('token');
});
