import { stringify as toYaml } from 'yaml';
import { AUTH_PATH, DATA_ENDPOINTS, type Endpoint } from './endpoints.js';
import { AUTH_SCHEME, KEY_PAIR_QUERY } from './auth-scheme.js';
import { RESOURCES, type Resource } from './resources.js';
import { FORMAT_PATTERNS, schemaObject, type SchemaName } from './schemas.js';
import { tool } from '../base/paths.js';

/**
 * The API as an OpenAPI 3.1 document, built from schemas/ (JSON Schema 2020-12, which OpenAPI 3.1 takes as it is) and
 * §4's endpoint table (core/spec/endpoints.ts): one source for the suite's checks, the sandbox's documentation and the
 * tools other teams run (Schemathesis, Prism, Dredd, code generators).
 */

type Json = Record<string, unknown>;

/** The API's operations: endpoint 1 and the data endpoints 2–7, by the name the examples are keyed with. */
export type OperationName = 'auth' | Endpoint['name'];

/** The error codes of §7; each may come with any endpoint (§7: which error applies where is not shown). */
export const ERROR_CODES = [400, 401, 404, 500] as const;
/** One of the error codes of §7. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whole response bodies (envelopes) to show as examples; the reference fixtures provide them (reference/examples.ts). */
export interface OpenApiExamples {
  success: Record<OperationName, unknown>;
  errors: Record<ErrorCode, unknown>;
}

/** The schema files that describe the API (the others describe the tool: config, report, baseline). */
const API_SCHEMAS: Record<string, string> = {
  'envelope.success': 'SuccessEnvelope',
  'envelope.error': 'ErrorEnvelope',
  'auth-result': 'AuthResult',
  merchant: 'Merchant',
  dish: 'Dish',
  'order-dish': 'OrderDish',
  seat: 'Seat',
  device: 'Device',
  order: 'Order',
} satisfies Partial<Record<SchemaName, string>>;

const SCHEMA_BASE = 'https://conformance.example/schemas/';
const pascal = (s: string): string => s.replace(/(^|[-_.])([a-z])/g, (_m, _p, c: string) => c.toUpperCase());
const componentRef = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** '#/components/schemas/…' name of a reference inside a schema file, resolved against that file's $id. */
function componentOf(ref: string, fileId: string): string {
  const [file = '', fragment = ''] = new URL(ref, fileId).href.split('#');
  const stem = file.startsWith(SCHEMA_BASE) ? file.slice(SCHEMA_BASE.length).replace(/\.schema\.json$/, '') : undefined;
  const base = stem === undefined ? undefined : API_SCHEMAS[stem];
  const def = /^\/\$defs\/([^/]+)$/.exec(fragment)?.[1];
  // A whole file or one of its $defs: anything else (a pointer into properties) would need more than renaming.
  if (!base || (fragment && !def)) throw new Error(`openapi: cannot bundle $ref ${ref} of ${fileId}`);
  return def ? `${base}${pascal(def)}` : base;
}

/**
 * A schema of a file rewritten for components/schemas: references point into components, $id/$schema/$defs go (the
 * $defs become components of their own), and each spec time format also gets its pattern, so tools that do not know
 * our format names still see the shape.
 */
function rewrite(node: unknown, fileId: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, fileId));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$id' || k === '$schema' || k === '$defs') continue;
    if (k === '$ref' && typeof v === 'string') {
      out.$ref = componentRef(componentOf(v, fileId)).$ref;
      continue;
    }
    // properties maps names to schemas: a property called "format" or "$ref" is a name, not a keyword.
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, rewrite(s, fileId)]))
        : rewrite(v, fileId);
  }
  const format = out.format as keyof typeof FORMAT_PATTERNS | undefined;
  if (format && FORMAT_PATTERNS[format] && out.pattern === undefined) out.pattern = FORMAT_PATTERNS[format];
  return out;
}

/** components/schemas: every API schema file and each of its $defs, bundled so the document stands alone. */
export function bundledSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [stem, name] of Object.entries(API_SCHEMAS)) {
    const schema = schemaObject(stem) as Json;
    const id = schema.$id as string;
    out[name] = rewrite(schema, id) as Json;
    for (const [def, sub] of Object.entries((schema.$defs as Record<string, Json> | undefined) ?? {})) {
      out[`${name}${pascal(def)}`] = rewrite(sub, id) as Json;
    }
  }
  return out;
}

interface Operation {
  name: OperationName;
  n: number;
  path: string;
  id: string;
  summary: string;
  data: Json;
  pathParam?: string;
  of?: Resource;
  list?: boolean;
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
/** operationId: getAccessCredential for /auth; listDishes for a list, getDish and getMerchant for one record. */
const operationId = (e: Endpoint | 'auth'): string =>
  e === 'auth' ? 'getAccessCredential' : `${e.list ? 'list' : 'get'}${capitalized(e.name)}`;
const OPERATION_IDS = Object.fromEntries([
  ['auth', operationId('auth')],
  ...DATA_ENDPOINTS.map((e) => [e.name, operationId(e)]),
]) as Record<OperationName, string>;
const SECTIONS: Partial<Record<SchemaName, string>> = Object.fromEntries(
  Object.values(RESOURCES).map((r) => [r.schema, r.section]),
);
/** The named success envelope of an operation: DishesEnvelope, DishEnvelope, AccessCredentialEnvelope, … */
const envelopeName = (op: OperationName): string => `${OPERATION_IDS[op].replace(/^(get|list)/, '')}Envelope`;

function operations(): Operation[] {
  const auth: Operation = {
    name: 'auth',
    n: 1,
    path: AUTH_PATH,
    id: OPERATION_IDS.auth,
    summary: 'Endpoint 1: the access credential (API Token) for a key pair (§4, §5, §2.6)',
    data: componentRef('AuthResult'),
  };
  return [
    auth,
    ...DATA_ENDPOINTS.map((e): Operation => {
      const schema = componentRef(API_SCHEMAS[e.schema]!);
      const param = e.of ? RESOURCES[e.of].detail.idField : undefined;
      const what = e.list
        ? `all ${e.name} of the current merchant`
        : e.of
          ? `one ${e.name} by id`
          : 'the merchant record';
      return {
        name: e.name,
        n: e.n,
        id: OPERATION_IDS[e.name],
        data: e.list ? { type: 'array', items: schema } : schema,
        path: param ? e.path.replace(':id', `{${param}}`) : e.path,
        summary: `Endpoint ${e.n}: ${what} (§4, ${SECTIONS[e.schema]})`,
        ...(param ? { pathParam: param } : {}),
        ...(e.of ? { of: e.of } : {}),
        list: e.list,
      };
    }),
  ];
}

const ERROR_MEANING: Record<ErrorCode, string> = {
  400: 'Parameter error or other error',
  401: 'Application authentication error, the merchant has disabled the application, or no token was sent (§5.4, §5.5)',
  404: 'Interface error (unknown interface); also a common answer for an unknown id (§7 leaves that open)',
  500: 'System exception',
};

const JSON_TYPE = 'application/json';

/** The 200 answer: the success envelope with this operation's data, or (§7 latitude) an error envelope sent with 200. */
function okResponse(op: Operation, examples?: OpenApiExamples): Json {
  return {
    description: `Success: status SUCCESS, code 200, data as ${op.name === 'auth' ? '§2.6' : 'in §4'}. An error envelope may also come with HTTP 200 (§7: the HTTP status of an error is not shown; the envelope's code is what counts).`,
    content: {
      [JSON_TYPE]: {
        schema: { oneOf: [componentRef(envelopeName(op.name)), componentRef('ErrorEnvelope')] },
        ...(examples
          ? { examples: { success: { summary: 'From the reference fixtures', value: examples.success[op.name] } } }
          : {}),
      },
    },
  };
}

/** Named success envelopes (e.g. DishesEnvelope): SuccessEnvelope with data of the operation's shape, required. */
function envelopes(ops: Operation[]): Record<string, Json> {
  return Object.fromEntries(
    ops.map((op) => [
      envelopeName(op.name),
      {
        allOf: [componentRef('SuccessEnvelope')],
        required: ['data'],
        properties: { data: op.data },
        description: `§4 endpoint ${op.n}: the success envelope with its data.`,
      },
    ]),
  );
}

/**
 * The OpenAPI 3.1 document. Deterministic: the same schemas and examples give the same document byte for byte (the
 * packaged openapi.yaml is compared with it in the tests).
 */
export function openApiDocument(examples?: OpenApiExamples): Json {
  const ops = operations();
  const paths: Json = {};
  for (const op of ops) {
    const parameters: Json[] = [];
    if (op.name === 'auth') {
      parameters.push(
        {
          name: KEY_PAIR_QUERY.publicKey,
          in: 'query',
          required: true,
          description: 'Application public key (§5.2).',
          schema: { type: 'string', minLength: 1 },
        },
        {
          name: KEY_PAIR_QUERY.secretKey,
          in: 'query',
          required: true,
          description: 'Application secret key (§5.2).',
          schema: { type: 'string', minLength: 1 },
        },
      );
    }
    if (op.pathParam && op.of) {
      const example = RESOURCES[op.of].detail.example;
      const description = `${capitalized(op.name)} ID (§4: typed string).`;
      parameters.push({
        name: op.pathParam,
        in: 'path',
        required: true,
        description,
        schema: { type: 'string' },
        example,
      });
    }
    const responses: Json = { 200: okResponse(op, examples) };
    for (const code of ERROR_CODES) responses[code] = { $ref: `#/components/responses/Error${code}` };
    paths[op.path] = {
      get: {
        operationId: op.id,
        summary: op.summary,
        description: `Request header Content-Type: application/json; charset=utf-8 (§4; OpenAPI does not describe Content-Type as a parameter). No body.${op.name === 'auth' ? ` No ${AUTH_SCHEME.carrierName} (§4 rule 3).` : ` Needs the ${AUTH_SCHEME.carrierName} header (§4 rule 4).`}${op.list ? ' No query parameters (§4 rule 2).' : ''}`,
        tags: [op.name === 'auth' ? 'authentication' : 'data'],
        ...(op.name === 'auth' ? { security: [] } : {}),
        ...(parameters.length ? { parameters } : {}),
        responses,
      },
    };
  }
  const errorResponses: Json = {};
  for (const code of ERROR_CODES) {
    errorResponses[`Error${code}`] = {
      description: `${code}: ${ERROR_MEANING[code]} (§7). The HTTP status may also be 200; the envelope's code is ${code}.`,
      content: {
        [JSON_TYPE]: {
          schema: componentRef('ErrorEnvelope'),
          ...(examples
            ? { examples: { error: { summary: 'From the reference server', value: examples.errors[code] } } }
            : {}),
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Restaurant Merchant Open Platform API',
      version: '1.0',
      summary: "Read-only HTTPS JSON interfaces for a merchant's dishes, seats, orders and merchant record.",
      description: [
        `Generated by ${tool.name} (\`conformance openapi\`) from the JSON Schemas the conformance suite checks with, so the`,
        'shapes and their latitude are the ones a conforming server is held to: extra members are allowed, numeric strings are',
        "accepted where the spec's field table and sample disagree, and an error may come with HTTP 200 or its error status.",
        'Sections (§) refer to the API specification. Every request carries Content-Type: application/json; charset=utf-8.',
      ].join(' '),
    },
    servers: [
      {
        url: '{base_url}',
        description: 'The {base_url} of §1; `conformance serve` listens at http://127.0.0.1:8080/open by default.',
        variables: { base_url: { default: 'http://127.0.0.1:8080/open' } },
      },
    ],
    security: [{ [AUTH_SCHEME.openapi.name]: [] }],
    tags: [
      { name: 'authentication', description: '§5' },
      { name: 'data', description: '§2, §4: read-only data of the merchant that owns the credential' },
    ],
    paths,
    components: {
      securitySchemes: { [AUTH_SCHEME.openapi.name]: AUTH_SCHEME.openapi.scheme },
      schemas: { ...bundledSchemas(), ...envelopes(ops) },
      responses: errorResponses,
    },
  };
}

/** The document as text, YAML (the default) or JSON. */
export function serializeOpenApi(doc: Json, format: 'yaml' | 'json'): string {
  return format === 'json'
    ? `${JSON.stringify(doc, null, 2)}\n`
    : toYaml(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}
