/**
 * The OpenAPI 3.1 document (core/spec/openapi.ts) lowered to OpenAPI 2.0 for Dredd 14, whose parsers read 2.0 and parts of
 * 3.0 but not 3.1: so the bench's Dredd figure is taken against the same source as `conformance openapi`, with no
 * hand-kept copy. Dredd sends one request per documented response, so only the 200 answers are kept (the error
 * answers cannot be provoked with the same request); example values come from the 3.1 document's examples.
 */
import { TOKEN_HEADER } from '../core/spec/auth-scheme.js';

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 → the draft-4 subset OpenAPI 2.0 and Dredd's validator take, keeping the latitude's types. */
function lower(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lower);
  if (node === null || typeof node !== 'object') return node;
  const src = node as Json;
  // anyOf/oneOf/not do not exist in 2.0: a union becomes the union of its branches' types (the bench checks shapes).
  const union = (src.anyOf ?? src.oneOf) as Json[] | undefined;
  if (union) {
    const types = new Set<string>();
    for (const b of union) {
      const t = b.$ref ? 'object' : b.type;
      for (const x of Array.isArray(t) ? t : [t]) if (typeof x === 'string') types.add(x);
    }
    return { type: [...types], ...(typeof src.description === 'string' ? { description: src.description } : {}) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === 'not' || k === 'format' || k === 'title') continue;
    if (k === 'const') {
      out.enum = [v];
      continue;
    }
    if (k === '$ref' && typeof v === 'string') {
      out.$ref = v.replace('#/components/schemas/', '#/definitions/');
      continue;
    }
    out[k] =
      k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, lower(s)])) : lower(v);
  }
  // 2.0's validator refuses a required member its schema does not list (2020-12 allows it: "present, any value"),
  // so each such member is listed with no constraint.
  if (Array.isArray(out.required)) {
    const props = (out.properties ?? {}) as Json;
    const missing = (out.required as string[]).filter((r) => !(r in props));
    if (missing.length) out.properties = { ...props, ...Object.fromEntries(missing.map((r) => [r, {}])) };
  }
  return out;
}

/** The example value of a 3.1 parameter, or of the /auth query from the success example. */
const PLACEHOLDER = 'filled-in-by-dredd-hooks';

/** An OpenAPI 2.0 document for Dredd from the 3.1 document. */
export function openApi2ForDredd(doc: Json): Json {
  const components = doc.components as { schemas: Record<string, Json> };
  const paths: Json = {};
  for (const [path, item] of Object.entries(doc.paths as Record<string, { get: Json }>)) {
    const op = item.get;
    const authed = !Array.isArray(op.security) || op.security.length > 0;
    const params = ((op.parameters as Json[] | undefined) ?? []).map((p) => ({
      name: p.name,
      in: p.in,
      required: p.required,
      type: 'string',
      // Dredd needs an example for every required parameter; the key pair is filled in by bench/dredd-hooks.cjs.
      'x-example': p.in === 'query' ? PLACEHOLDER : p.example,
    }));
    if (authed)
      params.push({ name: TOKEN_HEADER, in: 'header', required: true, type: 'string', 'x-example': PLACEHOLDER });
    params.push({
      name: 'Content-Type',
      in: 'header',
      required: true,
      type: 'string',
      'x-example': 'application/json; charset=utf-8',
    });
    const ok = (op.responses as Json)['200'] as {
      description: string;
      content: Record<string, { schema: { oneOf: Json[] } }>;
    };
    // The success branch only: Dredd validates what a valid request gets.
    const success = Object.values(ok.content)[0]!.schema.oneOf[0]!;
    paths[path] = {
      get: {
        summary: op.summary,
        operationId: op.operationId,
        parameters: params,
        responses: { 200: { description: 'success envelope', schema: lower(success) } },
      },
    };
  }
  return {
    swagger: '2.0',
    info: {
      title: (doc.info as Json).title,
      version: (doc.info as Json).version,
      description: 'Lowered from `conformance openapi` (OpenAPI 3.1) for Dredd 14 by bench/openapi2.ts.',
    },
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json; charset=utf-8'],
    definitions: Object.fromEntries(Object.entries(components.schemas).map(([k, v]) => [k, lower(v)])),
    paths,
  };
}
