import type { Redactor, SecretKind } from './redact.js';

/**
 * Every token a server issues becomes a secret the moment it is on the wire (§2.6 app_token): from the parsed
 * body, and from the text of a body that does not parse (cut short, trailing bytes, not quite JSON), where any
 * "app_token": "…" is taken, decoded when it is a complete JSON string, as it stands (to the cut) otherwise.
 */
export function learnTokens(redactor: Redactor, json: unknown, text: string | undefined, url: string): void {
  const tokens = tokensIn(json, text);
  if (!tokens.length) return;
  const kind = tokenKind(redactor, url);
  for (const t of tokens) redactor.add(t, kind);
}

/**
 * The tokens an answer carries, whatever else is wrong with it (its envelope, its status): data.app_token of the
 * parsed body, or each "app_token": "…" in the text of a body that does not parse (as it stands and decoded).
 */
export function tokensIn(json: unknown, text: string | undefined): string[] {
  const token = (json as { data?: { app_token?: unknown } } | undefined)?.data?.app_token;
  const found = typeof token === 'string' ? [token] : [];
  if (json !== undefined || text === undefined || !text.includes('app_token')) return found;
  for (const m of text.slice(0, 1 << 20).matchAll(/["']?app_token["']?\s*[:=]\s*["']?((?:[^"'\\\s,}&]|\\.)+)/g)) {
    const raw = m[1]!;
    let decoded = raw;
    try {
      decoded = JSON.parse(`"${raw}"`) as string;
    } catch {
      /* not a JSON string: taken as it stands */
    }
    found.push(raw, decoded);
  }
  return found;
}

/**
 * Whose token an answer carries, by the public key its request sent (the /auth query's secret): app's, other_app's,
 * or some other key pair's (a refused one, the disabled application's).
 */
function tokenKind(redactor: Redactor, url: string): SecretKind {
  let secret: string | null = null;
  try {
    secret = new URL(url).searchParams.get('secret');
  } catch {
    /* no query: not /auth */
  }
  const of = secret === null ? undefined : redactor.kindOf(secret);
  return of === 'other-public-key' ? 'other-token' : of === 'public-key' || secret === null ? 'token' : 'issued-token';
}
