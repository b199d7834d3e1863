import { expect, test } from 'vitest';
import { openApiDocument } from '../core/spec/openapi.js';
import { fixtureExamples } from '../reference/examples.js';
import { openApi2ForDredd } from '../bench/openapi2.js';

type Json = Record<string, unknown>;

/**
 * Dredd's 2.0 parser refuses a schema that requires a member it does not list (2020-12 allows it); the bench's Dredd
 * figure was lost to that once (DeviceComplete). Every required member of every lowered schema is listed.
 */
test('the OpenAPI 2.0 document for Dredd lists every required member of each schema', () => {
  const doc = openApi2ForDredd(openApiDocument(fixtureExamples()) as unknown as Json);
  const unlisted: string[] = [];
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => walk(n, `${where}[${i}]`));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const o = node as Json;
    if (Array.isArray(o.required)) {
      for (const r of o.required as string[])
        if (!(r in ((o.properties ?? {}) as Json))) unlisted.push(`${where}.${r}`);
    }
    for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
  };
  walk(doc.definitions, 'definitions');
  walk(doc.paths, 'paths');
  expect(Object.keys(doc.definitions as Json)).toContain('DeviceComplete');
  expect(unlisted).toEqual([]);
});
