/**
 * The text of a big JSON body, rendered from its parsed value when a check asks for it: a big body is kept parsed
 * only (its text, UTF-16, would take up to twice its bytes). The same content, not byte for byte; checks read the
 * text of small bodies (refusals, answers that are not JSON).
 */
import { stringifyJson } from '../base/exact-json.js';
import type { Reply } from './exchange.js';

/** Makes `reply.text` render `json` on demand; `list`: a disk list, too long to render as one string. */
export function textOnDemand(reply: Reply, json: unknown, list = false): void {
  Object.defineProperty(reply, 'text', {
    // Nested deeper than JSON.stringify's stack (the parse is iterative, the rendering not): said, not thrown.
    get: () => {
      // Longer than one string can hold: the checks read its records, never its text.
      if (list) return '(a list body read record by record; too long to render as one string)';
      try {
        return stringifyJson(json) ?? '';
      } catch {
        return '(a body nested too deeply to render again)';
      }
    },
    enumerable: true,
    configurable: true,
  });
}
