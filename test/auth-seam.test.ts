import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../core/base/paths.js';
import {
  AUTH_PATH,
  AUTH_SCHEME,
  BEARER_SCHEME,
  KEY_PAIR_QUERY,
  MERCHANT_FIELD,
  OPEN_TOKEN_SCHEME,
  TOKEN_FIELD,
  TOKEN_HEADER,
} from '../core/spec/auth-scheme.js';

/**
 * The auth seam holds: how this API authenticates (§5) is spelled in core/spec/auth-scheme.ts and nowhere else in the code,
 * so a change of the scheme is a change of that file (CONTRIBUTING.md, "Recipe 3: changing the auth scheme", names the
 * few others; test/auth-scheme-switch.test.ts switches it to Bearer).
 */

/** The recipe the seam and this test name. */
const RECIPE = '## Recipe 3: changing the auth scheme';

/** The one module that spells the scheme. */
const SEAM = 'core/spec/auth-scheme.ts';

/** Folders whose code must ask the seam. Not scanned: reference/ (the server implements the API), test/, spec/. */
const SCANNED = ['core', 'app', 'suites', 'reporters', 'bench'];

/** Files that may spell the scheme, and why. */
const EXEMPT: Array<{ prefix: string; why: string }> = [
  { prefix: SEAM, why: 'the seam itself' },
  { prefix: 'suites/rules/', why: "the rule matrix: each rule's text quotes the spec's own words (§4, §5)" },
];

/**
 * What spells the scheme: the endpoint, the header, the query, the token's field, a curl line's token variable, and
 * how the credentials are configured (their config keys and environment variables).
 */
const SPELLINGS: Array<{ name: string; pattern: RegExp }> = [
  { name: 'the token header', pattern: /open-token/i },
  { name: 'the /auth path', pattern: /\/auth\b/ },
  { name: "/auth's query", pattern: /\b(?:secret|key)=/ },
  { name: "the token's field", pattern: /\bapp_token\b/ },
  { name: "a curl line's token variable", pattern: /\bOPEN_TOKEN\b/ },
  { name: "another scheme's carrier (the probes')", pattern: /\bBearer\b/ },
  { name: "a credential's config key", pattern: /\b(?:other_app|disabled_app|app)\.(?:secret|key|token)\b/ },
  { name: "a credential's variable", pattern: /\bCONFORMANCE_(?:OTHER_|DISABLED_)?(?:SECRET|KEY|TOKEN)\b/ },
];

/** URLSearchParams' methods: a query parameter of /auth read or written by its name. */
const QUERY_METHODS = new Set(['get', 'getAll', 'has', 'set', 'append', 'delete']);
const QUERY_NAMES = new Set<string>(Object.values(KEY_PAIR_QUERY));

/** The .ts files of the scanned folders, as paths relative to the package root ("core/transport/http.ts"), sorted. */
function sources(): string[] {
  return SCANNED.flatMap((dir) =>
    readdirSync(join(packageRoot, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
      .map((name) => `${dir}/${name.split(sep).join('/')}`),
  ).sort();
}

/**
 * Where a file's code spells the scheme, as "file:line what: text". Code only: string literals, template parts,
 * regular expressions and identifiers (a property named app_token too); comments explain and are not scanned, nor is
 * the name of an imported module.
 */
function spellings(file: string): string[] {
  const text = readFileSync(join(packageRoot, file), 'utf8');
  // Most files name none of it, not even in a comment: they need no parse.
  if (!SPELLINGS.some((s) => s.pattern.test(text)) && ![...QUERY_NAMES].some((n) => text.includes(`'${n}'`))) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push(`${file}:${line} ${what}: ${node.getText(source).slice(0, 100)}`);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isExportDeclaration(node) && node.exportClause) visit(node.exportClause);
      return;
    }
    const literal =
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isRegularExpressionLiteral(node) ||
      ts.isIdentifier(node);
    if (literal) {
      const spelled = SPELLINGS.find((s) => s.pattern.test(node.getText(source)));
      if (spelled) at(node, spelled.name);
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      QUERY_METHODS.has(node.expression.name.text) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      QUERY_NAMES.has(node.arguments[0].text)
    )
      at(node, "/auth's query parameter by name");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the auth seam', () => {
  const files = sources();

  test('scans the code of every layer that talks to the API, and the seam is among it', () => {
    for (const dir of SCANNED) expect(files.some((f) => f.startsWith(`${dir}/`))).toBe(true);
    expect(files).toContain(SEAM);
  });

  test('the seam spells every word the scan looks for, in its code', () => {
    // Otherwise the scan looks for words the scheme no longer has, and passes whatever the others spell. /auth's
    // query is spelled by its parts (KEY_PAIR_QUERY), never as "secret=" in code.
    const seam = spellings(SEAM).join('\n');
    for (const s of SPELLINGS.filter((s) => s.name !== "/auth's query")) expect(seam, s.name).toContain(`${s.name}:`);
  });

  test('no file outside the seam spells the auth scheme', () => {
    const outside = files.filter((f) => !EXEMPT.some((e) => f.startsWith(e.prefix)));
    expect(outside.flatMap(spellings)).toEqual([]);
  });

  test("the seam's words are the spec's (§5, §2.6)", () => {
    const spec = readFileSync(join(packageRoot, 'spec', 'open-platform-api.md'), 'utf8');
    // A header's name in any case (the spec may write Authorization); the rest as spelled.
    expect(spec.toLowerCase(), TOKEN_HEADER).toContain(TOKEN_HEADER);
    for (const word of [AUTH_PATH, TOKEN_FIELD, MERCHANT_FIELD, ...Object.values(KEY_PAIR_QUERY)])
      expect(spec, word).toContain(word);
  });

  test('the recipe it names exists, and says which files a new scheme touches', () => {
    const contributing = readFileSync(join(packageRoot, 'CONTRIBUTING.md'), 'utf8');
    const at = contributing.indexOf(`\n${RECIPE}\n`);
    expect(at).toBeGreaterThan(0);
    const recipe = contributing.slice(at + 1).split(/\n## /)[0]!;
    expect(readFileSync(join(packageRoot, SEAM), 'utf8')).toContain('CONTRIBUTING.md, "Recipe 3"');
    for (const file of [SEAM, 'test/auth-scheme-switch.test.ts', 'spec/open-platform-api.md'])
      expect(recipe, file).toContain(file);
    // The one line a switch changes is the one the recipe quotes.
    expect(recipe).toContain('export const AUTH_SCHEME: AuthScheme = OPEN_TOKEN_SCHEME;');
    expect(readFileSync(join(packageRoot, SEAM), 'utf8')).toMatch(
      /^export const AUTH_SCHEME: AuthScheme = \w+_SCHEME;$/m,
    );
  });

  test('the scheme in use is one object, and its carrier is the one the probes never send as a wrong one', () => {
    expect(TOKEN_HEADER).toBe(AUTH_SCHEME.carrier.header);
    const headers: Record<string, string> = {};
    AUTH_SCHEME.carry(headers, 'tok_example_12345');
    expect(AUTH_SCHEME.tokenOf(headers)).toBe('tok_example_12345');
    // Four wrong carriers in every scheme, so the probes' share among the endpoints does not change with it.
    for (const scheme of [OPEN_TOKEN_SCHEME, BEARER_SCHEME]) {
      expect(scheme.wrongCarriers).toHaveLength(4);
      for (const way of scheme.wrongCarriers)
        expect(scheme.tokenOf(way.carry('tok_example_12345').headers ?? {}), way.name).toBeUndefined();
    }
    const bearer: Record<string, string> = {};
    BEARER_SCHEME.carry(bearer, 'tok_example_12345');
    expect(bearer).toEqual({ authorization: 'Bearer tok_example_12345' });
    // The scheme's word in any case (RFC 9110 §11.1); the token as it stands is no bearer credential.
    expect(BEARER_SCHEME.tokenOf({ authorization: 'bearer tok_example_12345' })).toBe('tok_example_12345');
    expect(BEARER_SCHEME.tokenOf({ authorization: 'tok_example_12345' })).toBeUndefined();
  });
});
