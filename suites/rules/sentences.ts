import { AUTH_SCHEME } from '../../core/spec/auth-scheme.js';
import { RULES } from './index.js';

/**
 * The spec read sentence by sentence (issue 35, "Deliver" 2): each normative sentence or table of
 * spec/open-platform-api.md, quoted as written, and the rules of the matrix that hold it, or why it has none.
 * docs/rules.md renders this map (app/rules-doc.ts); test/sentences.test.ts holds every quote against the spec's text
 * and every rule named against the matrix.
 */

/**
 * The token's carrier as the spec names it (§4, §5.3: open-token): after a switch of auth scheme (CONTRIBUTING.md,
 * "Recipe 3") the spec names the seam's carrier in these sentences, and the quotes follow.
 */
const CARRIER = AUTH_SCHEME.carrierName;

/** One sentence (or table) of the spec and what the matrix does with it. */
export interface SpecSentence {
  /** The section it stands in: "§4 rule 2". */
  section: string;
  /** The spec's words, verbatim (a table is named by its first row, quoted). */
  quote: string;
  /** Rule ids of the matrix (suites/rules/), or a field table's prefix followed by `*` ("dish.*": every row). */
  rules: string[];
  /** Why no rule holds it, when `rules` is empty: the spec's own words say what it asks of a server. */
  none?: string;
}

const NOT_SHOWN =
  'the spec says "not shown": it asks nothing a server can break; what a server chose is recorded by the INFO checks, never judged';
const DESCRIPTIVE = 'it describes the document or the console, and asks nothing of an answer a run receives';

/** Every normative sentence of the spec, in the spec's order. */
export const SPEC_SENTENCES: SpecSentence[] = [
  {
    section: 'preamble',
    quote: 'All interfaces are HTTPS, JSON, UTF-8.',
    rules: ['§4 HTTPS', '§1 JSON', '§1 UTF-8'],
  },
  {
    section: '§1',
    quote: "The service lets an application provider read a merchant's restaurant data through HTTPS endpoints.",
    rules: ['§4 HTTPS', '§4 success payload'],
  },
  {
    section: '§1',
    quote: 'The data is dishes, seats (customer tables) and orders. The merchant record is also readable.',
    rules: ['§4 success payload'],
  },
  {
    section: '§1',
    quote: 'Base address of the open platform: {base_url} (all paths below are relative to it).',
    rules: ['§7 404'],
  },
  {
    section: '§1',
    quote:
      'A merchant management console exists at {console_url}. In it the merchant creates an application and obtains an application public key and an application secret key.',
    rules: ['§5.1'],
  },
  {
    section: '§1',
    quote: 'These are used to obtain an access credential (API Token).',
    rules: ['§5.2, §4 endpoint 1'],
  },
  {
    section: '§1',
    quote: 'All data endpoints shown here use the method GET and are read-only.',
    rules: ['§1 read-only'],
  },
  {
    section: '§1',
    quote: 'Every response is a JSON envelope with the fields status, code, msg and data.',
    rules: ['§1 JSON', '§2.1 status, §4 rule 1', '§2.1 code, §4 rule 1', '§2.1 msg', '§2.1 data, §5.4, §7'],
  },
  {
    section: '§1',
    quote: 'Every data endpoint returns data belonging to the merchant that owns the application credential.',
    rules: ['§1 belongs to the merchant'],
  },
  {
    section: '§2.1',
    quote: '| status | string | Interface status. The value SUCCESS means success. |',
    rules: ['§2.1 status, §4 rule 1', '§2.1 code, §4 rule 1', '§2.1 msg', '§2.1 data, §5.4, §7'],
  },
  { section: '§2.2', quote: '| id | int | Dish ID |', rules: ['dish.*'] },
  {
    section: '§2.2',
    quote:
      'When a dish is embedded in an order (order.dishes[]), it carries the dish fields above (user_id included). It also carries a pivot object:',
    rules: ['dish.*', 'order.dishes[].pivot.*'],
  },
  { section: '§2.2', quote: '| pivot.order_id | int | Order ID |', rules: ['order.dishes[].pivot.*'] },
  { section: '§2.3', quote: '| id | int | Seat ID |', rules: ['seat.*'] },
  { section: '§2.4', quote: '| id | int | Order ID |', rules: ['order.*'] },
  { section: '§2.4', quote: '| id | int | Device id |', rules: ['order.device.*'] },
  {
    section: '§2.4',
    quote: 'A builder should emit the members of both lists.',
    rules: ['order.device.*'],
  },
  { section: '§2.5', quote: '| id | int | Merchant id |', rules: ['merchant.*'] },
  { section: '§2.6', quote: '| app_name | string | Application name |', rules: ['auth.*', '§2.6 credential places'] },
  { section: '§3', quote: '| normal | 0 | Seat is usable |', rules: ['seat.*'] },
  { section: '§3', quote: 'Seat transitions: not shown.', rules: [], none: NOT_SHOWN },
  { section: '§3', quote: 'Order status is an integer.', rules: ['order.*'] },
  { section: '§3', quote: 'Order status values: not shown. Order transitions: not shown.', rules: [], none: NOT_SHOWN },
  {
    section: '§3',
    quote: 'The interfaces given here are read-only; no operation changes any state.',
    // A GET asked again (RO-02), the unsafe methods (RO-01), and /auth asked again (AUTH-01 for app, AUTH-02 for other_app, under §5.2).
    rules: ['§1 read-only', '§5.2, §4 endpoint 1'],
  },
  {
    section: '§4',
    quote: 'Request header Content-Type (string, required) has the fixed value application/json; charset=utf-8.',
    rules: ['§4 Content-Type'],
  },
  {
    section: '§4',
    quote: `Request header ${CARRIER} (string, required) carries the API Token. The auth endpoint does not need it.`,
    rules: ['§4 rule 4, §5.4', '§4 rule 3'],
  },
  { section: '§4', quote: 'The request has no body.', rules: ['§4 no body'] },
  { section: '§4', quote: 'Only HTTPS is supported.', rules: ['§4 HTTPS'] },
  {
    section: '§4 table',
    quote:
      '| 1 | GET | {base_url}/auth | none | secret (string, required): application public key; key (string, required): application secret key | envelope with data = access credential result (2.6) |',
    rules: ['§5.2, §4 endpoint 1', 'auth.*'],
  },
  {
    section: '§4 table',
    quote: '| 2 | GET | {base_url}/merchant | none | none | envelope with data = merchant (2.5) |',
    rules: ['§4 success payload', 'merchant.*'],
  },
  {
    section: '§4 table',
    quote:
      '| 3 | GET | {base_url}/dishes | none | none | envelope with data = dish[] (all dishes of the current merchant) |',
    rules: ['§4 success payload', '§1 belongs to the merchant', '§4 rule 2'],
  },
  {
    section: '§4 table',
    quote:
      '| 4 | GET | {base_url}/dishes/:dish_id | dish_id (string, required): dish ID | none | envelope with data = dish |',
    rules: ['§4 success payload', '§7 unknown id'],
  },
  {
    section: '§4 table',
    quote:
      '| 5 | GET | {base_url}/seats | none | none | envelope with data = seat[] (all seats of the current merchant) |',
    rules: ['§4 success payload', '§1 belongs to the merchant', '§4 rule 2'],
  },
  {
    section: '§4 table',
    quote:
      '| 6 | GET | {base_url}/seats/:seat_id | seat_id (string, required): seat ID | none | envelope with data = seat |',
    rules: ['§4 success payload', '§7 unknown id'],
  },
  {
    section: '§4 table',
    quote: '| 7 | GET | {base_url}/orders | none | none | envelope with data = order[] (orders of the merchant) |',
    rules: ['§4 success payload', '§1 belongs to the merchant', '§4 rule 2'],
  },
  {
    section: '§4 rule 1',
    quote: 'On success, status is SUCCESS and code is 200.',
    rules: ['§2.1 status, §4 rule 1', '§2.1 code, §4 rule 1'],
  },
  { section: '§4 rule 2', quote: 'Endpoints 3, 5 and 7 accept no query parameters.', rules: ['§4 rule 2'] },
  { section: '§4 rule 3', quote: 'Endpoint 1 needs no header beyond Content-Type.', rules: ['§4 rule 3'] },
  { section: '§4 rule 4', quote: `Endpoints 2 to 7 need the ${CARRIER} header.`, rules: ['§4 rule 4, §5.4'] },
  {
    section: '§4 rule 5',
    quote:
      'Endpoint 2 is shown only as an example of calling the service with a token. No field table is given for it beyond the sample shape.',
    rules: ['merchant.*'],
  },
  {
    section: '§5.1',
    quote:
      'The merchant signs in to the management console, opens application management, adds an application by entering its name and saving it.',
    rules: [],
    none: DESCRIPTIVE,
  },
  {
    section: '§5.1',
    quote: 'The console then shows the application public key and the application secret key.',
    rules: ['§5.1'],
  },
  {
    section: '§5.2',
    quote:
      'The application calls endpoint 1 with query parameters secret (public key) and key (secret key). The response carries app_token.',
    rules: ['§5.2, §4 endpoint 1', 'auth.*'],
  },
  {
    section: '§5.3',
    quote: `Every other request carries that value in the request header ${CARRIER}.`,
    rules: ['§5.3', '§4 rule 4, §5.4'],
  },
  {
    section: '§5.4',
    quote:
      'When a request carries no valid credential, the service answers with error code 401 (application not authenticated, or the merchant has disabled the application).',
    rules: ['§4 rule 4, §5.4', '§5.5'],
  },
  {
    section: '§5.5',
    quote: 'The merchant can disable an application; its credential is then refused with 401.',
    rules: ['§5.5'],
  },
  { section: '§5.6', quote: 'Validity period of the API Token: not shown.', rules: ['§5.6, §5.7'] },
  {
    section: '§5.7',
    quote: 'Permission requirements per endpoint (permissions or field-level permissions): not shown.',
    rules: ['§5.6, §5.7'],
  },
  { section: '§6', quote: 'Events: not shown.', rules: [], none: NOT_SHOWN },
  {
    section: '§7',
    quote: 'The error code is given in the response field code; msg carries a description.',
    rules: ['§2.1 code, §4 rule 1', '§2.1 msg'],
  },
  {
    section: '§7 table',
    quote:
      '| 401 | Application authentication error, or the merchant has disabled the application; also returned when no token is sent |',
    rules: ['§4 rule 4, §5.4', '§5.5', '§5.2, §4 endpoint 1'],
  },
  { section: '§7 table', quote: '| 404 | Interface error (unknown interface) |', rules: ['§7 404'] },
  {
    section: '§7 table',
    quote: '| 400 | Parameter error or other error |',
    rules: ['§4 rule 2', '§7 unknown id', '§5.2, §4 endpoint 1'],
  },
  {
    section: '§7 table',
    quote: '| 500 | System exception |',
    rules: [],
    none: 'it names what code 500 means, not when a server must answer it: a 500 where a rule asks for a success or another code fails that rule (ERR-06, ERR-02/03)',
  },
  {
    section: '§7',
    quote: 'The value of status on failure and the exact layout of an error body: not shown.',
    // Its latitude is the envelope rule's: any string but SUCCESS (errors-http-200).
    rules: ['§2.1 status, §4 rule 1'],
  },
  {
    section: '§7',
    quote: 'Which error applies to which endpoint, for example for an unknown dish_id or seat_id: not shown.',
    rules: ['§7 unknown id'],
  },
  {
    section: '§8',
    quote: 'Rate limits, size limits, and any bound on the number of list items: not shown.',
    rules: [],
    none: NOT_SHOWN,
  },
  { section: '§9', quote: 'Versioning of the interface: not shown.', rules: [], none: NOT_SHOWN },
];

/** Whether a name of SpecSentence.rules names a rule of the matrix (a prefix with `*` names every field of a table). */
export function namesRule(name: string): boolean {
  return name.endsWith('*') ? RULES.some((r) => r.id.startsWith(name.slice(0, -1))) : RULES.some((r) => r.id === name);
}

/** The sentence map as docs/rules.md shows it, after the matrix. */
export function sentenceMapMarkdown(): string[] {
  const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    '## Every sentence of the spec, and its rules',
    '',
    'Each normative sentence of the spec (a field table by its first row), quoted, with the rules above that hold',
    'it, or why none does (`suites/rules/sentences.ts`). A name ending in `*` is every row of a field table.',
    '',
    '| § | the spec says | rules |',
    '|---|---|---|',
    ...SPEC_SENTENCES.map(
      (s) =>
        `| ${cell(s.section)} | ${cell(`“${s.quote}”`)} | ${cell(s.rules.length ? s.rules.join('; ') : `none: ${s.none ?? ''}`)} |`,
    ),
    '',
  ];
}
