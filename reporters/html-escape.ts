/**
 * The one way text gets into the HTML report: the `html` tagged template escapes every interpolated value unless it
 * is itself a fragment made by `html`. Server data (names, remarks, msg, headers, bodies) can therefore only ever
 * land as text — there is no second escape function to forget.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for element content and double- or single-quoted attribute values. C0/C1 control characters (which
 * HTML forbids, and which a hostile server may send) are shown as visible \uXXXX escapes instead.
 */
export function esc(value: unknown): string {
  return String(value)
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!)
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === undefined || v === null || v === false) return '';
  return esc(v);
}

/** A template tag that escapes every interpolated value (unless it is already Html): the one way markup is built. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup we wrote ourselves (the stylesheet, the filter script): never call it with data. */
export const trusted = (markup: string): Html => new Html(markup);
