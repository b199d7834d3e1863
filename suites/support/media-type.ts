import { show } from '../../core/redact/quote.js';

/**
 * §1 "JSON, UTF-8". The JSON media type is application/json (RFC 8259; a +json suffix type is JSON too). It
 * defines no charset parameter because JSON is UTF-8 by definition: no charset passes, and one that is present
 * must name UTF-8 (the label "utf8" is accepted as the common alias).
 */
export function contentTypeProblem(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return 'no Content-Type header';
  // split always returns at least one element: the media type and a parameter's name are never missing.
  const [type, ...params] = value.split(';').map((s) => s.trim());
  const media = type!.toLowerCase();
  if (media !== 'application/json' && !/^application\/[a-z0-9.!#$&^_-]+\+json$/.test(media))
    return `Content-Type ${show(value)} is not a JSON media type`;
  for (const p of params) {
    const [k, v = ''] = p.split('=').map((s) => s.trim());
    if (k!.toLowerCase() !== 'charset') continue;
    const cs = v.replace(/^"(.*)"$/, '$1').toLowerCase();
    if (cs !== 'utf-8' && cs !== 'utf8') return `Content-Type ${show(value)} names charset ${show(v)}, not UTF-8`;
  }
  return undefined;
}
