import { DATA_ENDPOINTS } from '../../core/spec/endpoints.js';
import { SAFE_SECRET_LENGTH } from '../../core/redact/redact.js';
import {
  at,
  by,
  notApplicable,
  probed,
  probedWhen,
  unproven,
  type App,
  type Outcome,
  type Place,
  type Proof,
  type Rule,
  type Way,
  type WaySpec,
} from './model.js';
import { AUTH, DATA, DETAILS, ENDPOINTS, get, LISTS, UNKNOWN_INTERFACE } from './places.js';

/**
 * The rules of §1, §2.1, §4, §5 and §7 that are not a field-table row nor the token check (tokens.ts): the
 * transport, the envelope, the endpoints' payloads and errors, the key pair, the disabled application, isolation.
 */

const MERCHANT = get('/merchant');
const DISHES = get('/dishes');
const DISH = get('/dishes/:id');
const SEATS = get('/seats');
const SEAT = get('/seats/:id');
const ORDERS = get('/orders');

/** The error answers the suite provokes, as places. */
const NO_TOKEN = 'GET /merchant … /orders without a token';
const UNKNOWN_ID = 'GET /dishes/:id, /seats/:id of an unknown id';
const AUTH_NO_PARAMS = 'GET /auth without secret or key';
const AUTH_WRONG_PAIR = 'GET /auth with a wrong or disabled key pair';
const WRONG_TOKEN = 'GET /merchant … /orders with a wrong token';
const LIST_QUERY = 'GET /dishes, /seats, /orders with query parameters';
const ERRORS: readonly Place[] = [
  UNKNOWN_INTERFACE,
  UNKNOWN_ID,
  NO_TOKEN,
  AUTH_NO_PARAMS,
  AUTH_WRONG_PAIR,
  WRONG_TOKEN,
  LIST_QUERY,
];

/**
 * The success answers of app, and of other_app the ones the run reads: its /auth, /merchant, lists and (#35) a
 * detail of each resource (support/answers.ts otherApplicationsAnswers; SEC-01/02 read all its details).
 */
const OTHER_READ: readonly Place[] = [AUTH, MERCHANT, ...LISTS, ...DETAILS];
/**
 * other_app's unknown interface (asked with its token by ERR-01 and ERR-04): ERR-04 judges its media type and bytes,
 * where the transport checks read app's (#35).
 */
const otherUnknownInterface = (what: string): WaySpec['at'][number] =>
  only(
    ['other_app'],
    probedWhen('with other_app', noMutant('ERR-04', `${what} in other_app's unknown interface's error`)),
    [UNKNOWN_INTERFACE],
  );
/** What TRANS-01/02 read of other_app (its /auth, /merchant, lists, details), where no mutant breaks it for other_app. */
const otherTransport = (check: string, what: string): WaySpec['at'][number] =>
  only(['other_app'], probed(noMutant(check, `${what} for other_app`)), OTHER_READ);

const way = (w: Way, how: string, ...entries: WaySpec['at']): WaySpec => ({ way: w, how, at: entries });
/** A way that applies at these places only (an error's msg, a list's records). */
const within = (places: readonly Place[], spec: WaySpec): WaySpec => ({ ...spec, places });
const only = (apps: readonly App[], outcome: Outcome, places?: readonly Place[]): WaySpec['at'][number] =>
  at(places, apps, outcome);
const noMutant = (check: string, what: string) => unproven(check, `no mutant ${what}`);

/** A wrong key pair's proof by the check's mutants of the way (`mutants`, by check id), or why none proves it. */
const refusalProof = (check: string, what: string, mutants: Partial<Record<string, string[]>>): Proof =>
  mutants[check]?.length ? by(check, ...mutants[check]) : noMutant(check, what);

/** The errors ERR-04 provokes with other_app's token as well (errors.ts otherApplicationErrors; #35). */
const OTHER_APP_ERRORS: readonly Place[] = [UNKNOWN_INTERFACE, UNKNOWN_ID, NO_TOKEN, AUTH_NO_PARAMS, LIST_QUERY];
/** The errors ERR-04 provokes with the disabled application's earlier token (#35); its refusals at 2–7 too. */
const DISABLED_ERRORS: readonly Place[] = [UNKNOWN_INTERFACE, UNKNOWN_ID, AUTH_NO_PARAMS, LIST_QUERY, WRONG_TOKEN];
/** Why a request without a token is judged for the disabled application by the requests sent without one. */
const NO_TOKEN_IS_EVERYONES =
  "a request without a token names no application: the requests without one are the disabled application's as well (it has no records whose paths would differ)";

/**
 * Which check judges the error envelope at each error place (ERR-04 reads the errors of allErrorProbes); `ofCode`
 * when the way breaks the code, which AUTH-07 judges as well, for app's and other_app's wrong key pairs;
 * `refusalMutants`, by check id, the mutants that prove a wrong key pair's cell; `otherMutants`, by application and
 * place ("other_app GET …"), the mutants that prove another application's error cell.
 */
const errorEnvelope = (
  what: string,
  mutantsAt: Partial<Record<Place, string[]>> = {},
  ofCode = false,
  refusalMutants: Partial<Record<string, string[]>> = {},
  otherMutants: Partial<Record<string, string[]>> = {},
): WaySpec['at'] => [
  ...[UNKNOWN_INTERFACE, UNKNOWN_ID, NO_TOKEN, AUTH_NO_PARAMS].map((p) =>
    at([p], ['app'], probed(mutantsAt[p] ? by('ERR-04', ...mutantsAt[p]) : noMutant('ERR-04', what))),
  ),
  ...(ofCode
    ? [
        at([AUTH_WRONG_PAIR], ['app'], probed(noMutant('AUTH-07', what), noMutant('AUTH-08', what))),
        at(
          [AUTH_WRONG_PAIR],
          ['other_app'],
          probedWhen('with other_app', noMutant('AUTH-07', `${what} for other_app's key pairs`)),
        ),
      ]
    : [
        at([AUTH_WRONG_PAIR], ['app'], probed(noMutant('AUTH-08', what))),
        // AUTH-07 judges its refusals as ERR-04 judges an error (support/error-answers.ts; #35).
        at(
          [AUTH_WRONG_PAIR],
          ['other_app'],
          probedWhen('with other_app', refusalProof('AUTH-07', `${what} for other_app's key pairs`, refusalMutants)),
        ),
      ]),
  at([AUTH_WRONG_PAIR], ['disabled_app'], probed(refusalProof('AUTH-09', what, refusalMutants))),
  at([LIST_QUERY], ['app'], probed(noMutant('ERR-06', what))),
  // ERR-04 reads a wrong token's refusal at every data endpoint, for app and other_app (errors.ts wrongTokenProbes).
  at(
    [WRONG_TOKEN],
    ['app'],
    probed(mutantsAt[WRONG_TOKEN] ? by('ERR-04', ...mutantsAt[WRONG_TOKEN]) : noMutant('ERR-04', what)),
  ),
  at(
    [WRONG_TOKEN],
    ['other_app'],
    probedWhen(
      'with other_app',
      mutantsAt[WRONG_TOKEN] ? by('ERR-04', ...mutantsAt[WRONG_TOKEN]) : noMutant('ERR-04', `${what} for other_app`),
    ),
  ),
  // Another application's errors (#35): the same errors provoked with other_app's token (no token at its ids), and
  // with the disabled application's earlier token, its refusals at 2–7 among them (shared with AUTH-10).
  ...OTHER_APP_ERRORS.map((p) => {
    const m = otherMutants[`other_app ${p}`];
    return at(
      [p],
      ['other_app'],
      probedWhen('with other_app', m ? by('ERR-04', ...m) : noMutant('ERR-04', `${what} for other_app`)),
    );
  }),
  ...DISABLED_ERRORS.map((p) => {
    const m = otherMutants[`disabled_app ${p}`];
    return at(
      [p],
      ['disabled_app'],
      probedWhen(
        "with disabled_app's token",
        m ? by('ERR-04', ...m) : noMutant('ERR-04', `${what} for the disabled application's token`),
      ),
    );
  }),
  at([NO_TOKEN], ['disabled_app'], probed(noMutant('ERR-04', `${what}: ${NO_TOKEN_IS_EVERYONES}`))),
];

/** §5.5, the sentence that leaves the disabled application no successful answer. */
const DISABLED_REFUSED_QUOTE = 'The merchant can disable an application; its credential is then refused with 401.';

const SUCCESS_APPS_NOTE: WaySpec['at'] = [
  // Every error place of every application is errorEnvelope's; what is left is the disabled application's successes.
  at(
    undefined,
    ['disabled_app'],
    notApplicable(
      '§5.5',
      DISABLED_REFUSED_QUOTE,
      'every request of the disabled application is refused, so it has no successful answer whose envelope could break this: AUTH-09 sends its key pair to /auth, AUTH-10 its earlier token to each data endpoint 2–7 (UNAUTH-* to their path variants), and each fails any answer but a 401 refusal with no data',
    ),
  ),
];

/**
 * A way of breaking an envelope member: the mutants that prove it where they break it (`proven`), the check that
 * judges every success (`success`: ENV-01 or ENV-02, for app and for what the run reads of other_app) and every
 * error the suite provokes (`errors`), each unproven elsewhere with what no mutant does.
 */
function envelopeWay(
  w: Way,
  how: string,
  o: {
    proven?: WaySpec['at'];
    success?: [check: string, what: string];
    errors?: string;
    errorMutants?: Partial<Record<Place, string[]>>;
    /** The way breaks the code, which AUTH-07 judges too. */
    ofCode?: boolean;
    /** The mutants that prove a wrong key pair's cell, by check id (AUTH-09 …). */
    refusalMutants?: Partial<Record<string, string[]>>;
    /** The mutants that prove another application's error cell, by "<app> <place>". */
    otherMutants?: Partial<Record<string, string[]>>;
  },
): WaySpec {
  const success: WaySpec['at'] = o.success
    ? [
        only(['app'], probed(noMutant(o.success[0], `${o.success[1]} here`)), ENDPOINTS),
        only(['other_app'], probed(noMutant(o.success[0], `${o.success[1]} in other_app's answers`)), OTHER_READ),
      ]
    : [];
  const errors = o.errors ? errorEnvelope(o.errors, o.errorMutants, o.ofCode, o.refusalMutants, o.otherMutants) : [];
  const spec = way(w, how, ...(o.proven ?? []), ...success, ...errors, ...SUCCESS_APPS_NOTE);
  return o.errors && o.success ? spec : within(o.errors ? ERRORS : ENDPOINTS, spec);
}

/** An envelope member of §2.1 as a rule, judged on every success and every provoked error. */
const envelopeRule = (id: string, text: string, ways: WaySpec[], latitude: Rule['latitude']): Rule => ({
  id,
  group: '§2.1 envelope (and §4 rule 1, §7)',
  text,
  level: 'MUST',
  places: [...ENDPOINTS, ...ERRORS],
  apps: ['app', 'other_app', 'disabled_app'],
  ways,
  latitude,
});

const ENVELOPE_STATUS = envelopeRule(
  '§2.1 status, §4 rule 1',
  'status: string. SUCCESS means success (§4 rule 1: on success status is SUCCESS); an error is never SUCCESS',
  [
    envelopeWay('absent', 'no status', {
      proven: [
        only(
          ['app'],
          probed(
            by('FUZZ-01', 'fuzz-id-validator-no-status'),
            noMutant('ERR-04', 'leaves status out of an error here'),
          ),
          [UNKNOWN_ID],
        ),
      ],
      success: ['ENV-01', 'leaves status out'],
      errors: 'leaves status out of an error',
      refusalMutants: { 'AUTH-09': ['auth-disabled-refusal-no-status'] },
      otherMutants: {
        [`disabled_app ${WRONG_TOKEN}`]: ['disabled-token-refusal-no-status'],
        [`other_app ${UNKNOWN_ID}`]: ['other-app-unknown-id-text-error'],
      },
    }),
    envelopeWay('case', '"success" on success', {
      proven: [
        only(['app'], probed(by('AUTH-01', 'auth-status-lowercase')), [AUTH]),
        only(['app'], probed(by('ENV-01', 'status-lowercase')), [ORDERS]),
      ],
      success: ['ENV-01', 'writes status in another case'],
    }),
    envelopeWay('whitespace or encoding', '"SUCCESS " or another spelling on success', {
      success: ['ENV-01', 'pads status'],
    }),
    envelopeWay('wrong value', 'SUCCESS on an error', {
      proven: [
        only(
          ['app'],
          probed(
            by('FUZZ-01', 'fuzz-decimal-id-status-success'),
            noMutant('ERR-04', 'answers an error with status SUCCESS here'),
          ),
          [UNKNOWN_ID],
        ),
      ],
      errors: 'answers an error with status SUCCESS',
      errorMutants: { [NO_TOKEN]: ['unauthorized-status-success'], [WRONG_TOKEN]: ['unauthorized-status-success'] },
    }),
    envelopeWay('wrong type', 'status not a string', {
      success: ['ENV-01', 'mistypes status'],
      errors: 'mistypes status on an error',
      errorMutants: { [WRONG_TOKEN]: ['wrong-token-refusal-numeric-status'] },
      refusalMutants: { 'AUTH-07': ['auth-other-app-wrong-key-numeric-status'] },
      otherMutants: { [`other_app ${UNKNOWN_ID}`]: ['other-app-unknown-id-numeric-status'] },
    }),
  ],
  [{ reading: 'any status string but SUCCESS on an error, e.g. FAIL', variants: ['errors-http-200'] }],
);

const ENVELOPE_CODE = envelopeRule(
  '§2.1 code, §4 rule 1',
  'code: int. 200 means success (§4 rule 1); an error has the code of §7',
  [
    envelopeWay('absent', 'no code', {
      success: ['ENV-01', 'leaves code out'],
      errors: 'leaves code out of an error',
      ofCode: true,
    }),
    envelopeWay('wrong type', 'code "200", a string', {
      proven: [
        only(['app'], probed(by('AUTH-01', 'auth-code-string')), [AUTH]),
        only(['app'], probed(by('ENV-01', 'code-as-string')), [MERCHANT]),
        only(['other_app'], probed(by('ENV-01', 'other-merchant-seats-code-as-string')), [SEATS]),
      ],
      success: ['ENV-01', 'writes code as a string'],
      errors: 'writes an error code as a string',
      ofCode: true,
    }),
    envelopeWay('wrong value', 'another code than 200 on success', {
      proven: [only(['app'], probed(by('AUTH-01', 'auth-code-zero')), [AUTH])],
      success: ['ENV-01', 'answers success with another code'],
    }),
  ],
  [
    {
      reading: 'any HTTP status for an error (the envelope defines it)',
      variants: ['errors-http-200', 'errors-any-http-status'],
    },
  ],
);

const ENVELOPE_MSG = envelopeRule(
  '§2.1 msg',
  'msg: string. Error description; absent on success',
  [
    envelopeWay('wrong place or carrier', 'msg present on success', {
      proven: [only(['app'], probed(by('ENV-02', 'msg-on-success')), [DISHES])],
      success: ['ENV-02', 'adds msg to a success'],
    }),
    envelopeWay('wrong type', 'msg not a string on an error', { errors: 'mistypes msg' }),
    within(
      [NO_TOKEN, WRONG_TOKEN],
      way(
        'wrong value',
        "the msg of a refusal names the merchant's values (e-mail, name, merchant_id, order numbers)",
        only(
          ['app'],
          probed(
            by('UNAUTH-MERCHANT', 'unauth-msg-leaks-merchant'),
            by('UNAUTH-DISHES', 'unauth-msg-leaks-dishes'),
            by('UNAUTH-DISH', 'unauth-msg-leaks-dish'),
            by('UNAUTH-SEATS', 'unauth-msg-leaks-seats'),
            by('UNAUTH-SEAT', 'unauth-msg-leaks-seat'),
            by('UNAUTH-ORDERS', 'unauth-msg-leaks-order-number'),
          ),
          [NO_TOKEN, WRONG_TOKEN],
        ),
        // Every refusal is read for other_app's merchant's values too (support/leaks.ts sensitiveValues).
        only(
          ['other_app'],
          probedWhen(
            'with other_app',
            by('UNAUTH-SEATS', 'unauth-msg-leaks-other-merchant'),
            ...DATA_ENDPOINTS.filter((ep) => ep.name !== 'seats').map((ep) =>
              noMutant(`UNAUTH-${ep.name.toUpperCase()}`, "names other_app's merchant in a refusal here"),
            ),
          ),
          [NO_TOKEN, WRONG_TOKEN],
        ),
        only(
          ['disabled_app'],
          probedWhen("with disabled_app's token", by('AUTH-10', 'disabled-token-refusal-names-merchant')),
          [WRONG_TOKEN],
        ),
        // A request without a token is no application's: its refusal is judged against every merchant the run reads.
        only(
          ['disabled_app'],
          probedWhen(
            "when the disabled application's merchant is app's or other_app's (the demo's is app's): a disabled application reads nothing of its own",
            by('UNAUTH-MERCHANT', 'unauth-msg-leaks-merchant'),
          ),
          [NO_TOKEN],
        ),
      ),
    ),
  ],
  [{ reading: 'msg absent on an error', variants: ['errors-http-200'] }],
);

/** Data endpoints' errors: a refusal or an error never carries data (§5.4, §7; §2.1 data "depends on the endpoint"). */
const ERROR_DATA: Rule = {
  id: '§2.1 data, §5.4, §7',
  group: '§2.1 envelope (and §4 rule 1, §7)',
  text: 'data: the payload on success; an error or a refusal carries none',
  level: 'MUST',
  places: [...ENDPOINTS, ...ERRORS],
  apps: ['app', 'other_app', 'disabled_app'],
  ways: [
    envelopeWay('absent', 'no data member on success', {
      proven: [only(['other_app'], probed(by('ENV-01', 'other-merchant-seats-no-data')), [SEATS])],
      success: ['ENV-01', 'leaves data out'],
    }),
    within(
      ERRORS,
      way(
        'wrong place or carrier',
        'data carried by a refusal or an error',
        // unauth-refusal-carries-hint: data that names nothing of the merchant, so no leak check sees it.
        only(
          ['app'],
          probed(
            ...DATA_ENDPOINTS.map((ep) =>
              by(
                `UNAUTH-${ep.name.toUpperCase()}`,
                ...(ep.name === 'merchant' ? ['unauth-leaks-merchant'] : []),
                ...(ep.name === 'dishes' ? ['unauth-dishes-refusal-carries-data'] : []),
                'unauth-refusal-carries-hint',
              ),
            ),
          ),
          [NO_TOKEN, WRONG_TOKEN],
        ),
        only(
          ['disabled_app'],
          probed(
            by(
              'AUTH-10',
              'unauth-leaks-merchant',
              'unauth-refusal-carries-hint',
              'disabled-token-refusal-carries-data',
            ),
          ),
          [WRONG_TOKEN],
        ),
        only(
          ['app'],
          probed(
            noMutant('ERR-02', 'carries data in an unknown dish id'),
            by('ERR-03', 'unknown-seat-error-carries-data'),
            by('FUZZ-01', 'fuzz-leading-zeros-refusal-carries-record'),
          ),
          [UNKNOWN_ID],
        ),
        only(['app'], probed(by('ERR-01', 'unknown-interface-no-token-carries-data')), [UNKNOWN_INTERFACE]),
        only(['app'], probed(by('AUTH-06', 'auth-missing-param-refusal-carries-data')), [AUTH_NO_PARAMS]),
        only(
          ['app'],
          probed(
            by('AUTH-07', 'auth-wrong-key-refusal-carries-data'),
            by('AUTH-08', 'auth-unknown-public-key-refusal-carries-data'),
          ),
          [AUTH_WRONG_PAIR],
        ),
        only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-wrong-key-refusal-carries-data')), [
          AUTH_WRONG_PAIR,
        ]),
        only(['disabled_app'], probed(by('AUTH-09', 'auth-disabled-refusal-carries-data')), [AUTH_WRONG_PAIR]),
        only(['app'], probed(by('ERR-06', 'list-query-400-carries-data')), [LIST_QUERY]),
        // Another application's errors (#35): the unknown interface's are ERR-01's; those no other check reads, ERR-04's.
        only(['other_app'], probedWhen('with other_app', by('ERR-01', 'unknown-interface-other-app-carries-data')), [
          UNKNOWN_INTERFACE,
        ]),
        only(
          ['disabled_app'],
          probedWhen(
            "with disabled_app's token",
            noMutant('ERR-01', "carries data in the unknown interface's error to the disabled application's token"),
          ),
          [UNKNOWN_INTERFACE],
        ),
        only(['other_app'], probedWhen('with other_app', by('ERR-04', 'other-app-unknown-id-error-carries-data')), [
          UNKNOWN_ID,
        ]),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('ERR-04', "carries data in other_app's error here")),
          [NO_TOKEN, AUTH_NO_PARAMS, LIST_QUERY],
        ),
        // The disabled token at a data endpoint is AUTH-10's (its unknown ids and lists with parameters too); at /auth, ERR-04's.
        only(
          ['disabled_app'],
          probedWhen("with disabled_app's token", by('AUTH-10', 'disabled-token-unknown-id-refusal-carries-data')),
          [UNKNOWN_ID],
        ),
        only(
          ['disabled_app'],
          probedWhen(
            "with disabled_app's token",
            noMutant(
              'AUTH-10',
              "carries data in the refusal of the disabled application's token with query parameters",
            ),
          ),
          [LIST_QUERY],
        ),
        only(
          ['disabled_app'],
          probedWhen(
            "with disabled_app's token",
            noMutant('ERR-04', "carries data in /auth's error to the disabled application's token"),
          ),
          [AUTH_NO_PARAMS],
        ),
        only(
          ['disabled_app'],
          probed(
            ...DATA_ENDPOINTS.map((ep) =>
              noMutant(`UNAUTH-${ep.name.toUpperCase()}`, `carries data in a refusal: ${NO_TOKEN_IS_EVERYONES}`),
            ),
          ),
          [NO_TOKEN],
        ),
        // The covering design (support/token-probes.ts appFor) derives wrong tokens from other_app's at some places
        // of every data endpoint: every way × application pair, as test/checks/token-probes-ways.test.ts proves.
        only(
          ['other_app'],
          probedWhen(
            'with other_app',
            ...DATA_ENDPOINTS.map((ep) =>
              noMutant(
                `UNAUTH-${ep.name.toUpperCase()}`,
                "carries data in the refusal of a token derived from other_app's",
              ),
            ),
          ),
          [WRONG_TOKEN],
        ),
      ),
    ),
  ],
  latitude: [{ reading: 'data null, {} or [] on an error', variants: [] }],
};

/** The errors ERR-04 reads beside the unknown interface: their media type and bytes are judged as a success's are. */
const ERR_04_READS: readonly Place[] = [NO_TOKEN, WRONG_TOKEN, UNKNOWN_ID, AUTH_NO_PARAMS];

/**
 * ERR-04 judges every error it reads as an answer (§1: JSON, UTF-8), as the transport checks judge successes: for
 * app at each of them, for other_app its wrong token's refusals; `mutants` prove the wrong token's cells.
 */
const errorsAsAnswers = (what: string, mutants: string[] = []): WaySpec['at'] => [
  only(['app'], probed(mutants.length ? by('ERR-04', ...mutants) : noMutant('ERR-04', `${what} here`)), [WRONG_TOKEN]),
  only(
    ['other_app'],
    probedWhen(
      'with other_app',
      mutants.length ? by('ERR-04', ...mutants) : noMutant('ERR-04', `${what} in other_app's refusals`),
    ),
    [WRONG_TOKEN],
  ),
  only(['app'], probed(noMutant('ERR-04', `${what} in an error here`)), ERR_04_READS),
  // other_app's errors, provoked with its token (no token at its ids; #35).
  only(['other_app'], probedWhen('with other_app', noMutant('ERR-04', `${what} in other_app's errors`)), ERR_04_READS),
];

const JSON_RULE: Rule = {
  id: '§1 JSON',
  group: '§1 and §4 common rules',
  text: 'All interfaces are JSON: every answer has a JSON content type, and a JSON body with no byte order mark before it (RFC 8259 §8.1)',
  level: 'MUST',
  places: [...ENDPOINTS, UNKNOWN_INTERFACE, ...ERR_04_READS],
  apps: ['app', 'other_app'],
  appsNote:
    "disabled_app: it has no successful answer (§5.5); ERR-04 judges its refusals' media type and bytes too, but the matrix lists them as envelope cells only",
  ways: [
    way(
      'absent',
      'no Content-Type',
      only(['app'], probed(noMutant('TRANS-01', 'drops the header')), [...ENDPOINTS, UNKNOWN_INTERFACE]),
      ...errorsAsAnswers('drops the header'),
      otherTransport('TRANS-01', 'drops the header'),
      otherUnknownInterface('drops the header'),
    ),
    way(
      'wrong value',
      'another media type (text/html)',
      only(['app'], probed(by('TRANS-01', 'seats-text-html')), [SEATS]),
      only(['app'], probed(noMutant('TRANS-01', 'answers another media type here')), [...ENDPOINTS, UNKNOWN_INTERFACE]),
      ...errorsAsAnswers('answers another media type', ['wrong-token-refusal-text-html']),
      only(['other_app'], probed(by('TRANS-01', 'other-merchant-merchant-text-plain')), [MERCHANT]),
      only(['other_app'], probed(by('TRANS-01', 'other-merchant-dish-detail-text-html')), [DISH]),
      otherTransport('TRANS-01', 'answers another media type here'),
      only(['other_app'], probedWhen('with other_app', by('ERR-04', 'other-app-unknown-interface-text-html')), [
        UNKNOWN_INTERFACE,
      ]),
    ),
    // A refused key pair too: AUTH-08's refusal is judged as an envelope, and proves this way there.
    within(
      [...ENDPOINTS, UNKNOWN_INTERFACE, NO_TOKEN, AUTH_WRONG_PAIR],
      way(
        'wrong value',
        'a body that is not JSON',
        only(['other_app'], probed(by('ENV-01', 'other-merchant-merchant-not-json')), [MERCHANT]),
        only(['app'], probed(noMutant('ENV-01', 'answers a success that is not JSON here')), ENDPOINTS),
        only(
          ['other_app'],
          probed(noMutant('ENV-01', 'answers other_app a success that is not JSON here')),
          OTHER_READ,
        ),
        only(
          ['app'],
          probed(
            by('AUTH-08', 'auth-unknown-public-key-text-refusal'),
            noMutant('AUTH-07', "answers app's wrong key pairs a refusal that is not JSON"),
          ),
          [AUTH_WRONG_PAIR],
        ),
        only(
          ['other_app'],
          probedWhen(
            'with other_app',
            noMutant('AUTH-07', "answers other_app's wrong key pairs a refusal that is not JSON"),
          ),
          [AUTH_WRONG_PAIR],
        ),
        // Never ERR-04's alone: UNAUTH-* judge the same refusals by their code, which a body that is not JSON lacks.
        only(
          ['app'],
          probed(
            by('ERR-04', 'orders-no-token-text-refusal'),
            ...DATA_ENDPOINTS.map((ep) =>
              ep.name === 'orders'
                ? by('UNAUTH-ORDERS', 'orders-no-token-text-refusal')
                : noMutant(`UNAUTH-${ep.name.toUpperCase()}`, 'answers a refusal that is not JSON here'),
            ),
          ),
          [NO_TOKEN],
        ),
        // The unknown interface's error is ERR-01's (no code) and ERR-04's (no JSON envelope), for app and other_app;
        // other_app's requests without a token at its ids, ERR-04's alone (#35).
        only(
          ['app'],
          probed(
            noMutant('ERR-01', 'answers an unknown interface a body that is not JSON'),
            noMutant('ERR-04', 'answers an unknown interface a body that is not JSON'),
          ),
          [UNKNOWN_INTERFACE],
        ),
        only(
          ['other_app'],
          probedWhen(
            'with other_app',
            noMutant('ERR-01', "answers other_app's unknown interface a body that is not JSON"),
            noMutant('ERR-04', "answers other_app's unknown interface a body that is not JSON"),
          ),
          [UNKNOWN_INTERFACE],
        ),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('ERR-04', "answers a refusal at other_app's ids that is not JSON")),
          [NO_TOKEN],
        ),
      ),
    ),
    way(
      'wrong value',
      'a charset other than UTF-8',
      only(['app'], probed(by('TRANS-01', 'unknown-interface-latin1-charset')), [UNKNOWN_INTERFACE]),
      only(['app'], probed(noMutant('TRANS-01', 'names another charset')), ENDPOINTS),
      ...errorsAsAnswers('names another charset'),
      otherTransport('TRANS-01', 'names another charset'),
      otherUnknownInterface('names another charset'),
    ),
    way(
      'whitespace or encoding',
      'a byte order mark (U+FEFF) before the JSON: the suite reads the JSON after it, and says so',
      only(['app'], probed(by('ENV-01', 'bom-every-answer', 'success-bodies-bom')), ENDPOINTS),
      only(['other_app'], probed(by('ENV-01', 'other-merchant-seat-detail-bom')), [SEAT]),
      only(
        ['other_app'],
        probed(noMutant('ENV-01', "adds one to other_app's answers alone (bom-every-answer adds it to every answer)")),
        OTHER_READ,
      ),
      // ERR-04 looks for one in every error it reads (support/error-answers.ts; #35).
      only(['app'], probed(by('ERR-04', 'error-bodies-bom')), [UNKNOWN_INTERFACE, ...ERR_04_READS]),
      only(['other_app'], probedWhen('with other_app', by('ERR-04', 'error-bodies-bom')), [
        UNKNOWN_INTERFACE,
        ...ERR_04_READS,
      ]),
    ),
  ],
  latitude: [
    {
      reading: 'charset utf-8 or none (JSON is UTF-8 by RFC 8259), a +json media type',
      variants: ['content-type-no-charset'],
    },
    {
      reading: 'a body coded gzip, deflate or br, whatever the request accepts (RFC 9110 §12.5.3)',
      variants: ['coded-bodies'],
    },
  ],
};

const UTF8_RULE: Rule = {
  id: '§1 UTF-8',
  group: '§1 and §4 common rules',
  text: 'All interfaces are UTF-8: every body is valid UTF-8',
  level: 'MUST',
  places: JSON_RULE.places,
  apps: ['app', 'other_app'],
  appsNote: JSON_RULE.appsNote!,
  ways: [
    way(
      'whitespace or encoding',
      'bytes that are not UTF-8 (Latin-1)',
      only(['app'], probed(by('TRANS-02', 'dish-name-latin1')), [DISHES]),
      only(['app'], probed(noMutant('TRANS-02', 'sends other bytes here')), [...ENDPOINTS, UNKNOWN_INTERFACE]),
      ...errorsAsAnswers('sends other bytes', ['wrong-token-refusal-msg-latin1']),
      only(['other_app'], probed(by('TRANS-02', 'other-merchant-dishes-latin1')), [DISHES]),
      only(['other_app'], probed(by('TRANS-02', 'other-merchant-dish-detail-latin1')), [DISH]),
      otherTransport('TRANS-02', 'sends other bytes here'),
      otherUnknownInterface('sends other bytes'),
    ),
  ],
  latitude: [],
};

const HTTPS_RULE: Rule = {
  id: '§4 HTTPS',
  group: '§1 and §4 common rules',
  text: 'Only HTTPS is supported: the plain http:// origin serves no merchant data',
  level: 'MUST',
  places: ENDPOINTS,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: it has no data to serve',
  ways: [
    way(
      'wrong place or carrier',
      'merchant data served over plain HTTP, without a token or with one',
      // Every endpoint without a credential; where the plain origin answers an API envelope, each application's
      // token (its key pair at /auth) as well.
      only(
        ['app'],
        probedWhen('when base_url is https', by('TRANS-03', 'plain-http-same-port', 'plain-http-serves-without-token')),
        [MERCHANT],
      ),
      only(['app'], probedWhen('when base_url is https', by('TRANS-03', 'plain-http-serves-dishes-only')), [DISHES]),
      only(
        ['app'],
        probedWhen('when base_url is https', by('TRANS-03', 'plain-http-same-port', 'plain-http-serves-without-token')),
        ENDPOINTS,
      ),
      only(
        ['other_app'],
        probedWhen('when base_url is https, with other_app', by('TRANS-03', 'plain-http-serves-other-merchant')),
      ),
    ),
  ],
  latitude: [{ reading: 'no plain listener, a redirect to https (never followed), or a refusal', variants: [] }],
};

const CLIENT_RULES: Rule[] = [
  {
    id: '§4 Content-Type',
    group: '§1 and §4 common rules',
    text: 'Request header Content-Type (required) has the fixed value application/json; charset=utf-8',
    level: 'MUST',
    places: ENDPOINTS,
    apps: ['app'],
    appsNote: 'a rule for the client, whoever it is',
    ways: [
      way(
        'absent',
        'a request without it',
        at(
          undefined,
          undefined,
          notApplicable(
            '§4',
            'Request header Content-Type (string, required) has the fixed value application/json; charset=utf-8.',
            'a rule for the request, which the client writes: no answer of a server can break it (the suite always sends it; INFO-TRANS-NO-CONTENT-TYPE records whether a server answers a request without it or refuses it, and the spec allows either)',
          ),
        ),
      ),
    ],
    latitude: [{ reading: 'a server that answers without it, or refuses', variants: [] }],
  },
  {
    id: '§4 no body',
    group: '§1 and §4 common rules',
    text: 'The request has no body',
    level: 'MUST',
    places: ENDPOINTS,
    apps: ['app'],
    appsNote: 'a rule for the client, whoever it is',
    ways: [
      way(
        'wrong place or carrier',
        'a request with a body',
        at(
          undefined,
          undefined,
          notApplicable(
            '§4',
            'The request has no body.',
            'a rule for the request, which the client writes: no answer of a server can break it (the suite never sends one)',
          ),
        ),
      ),
    ],
    latitude: [],
  },
];

const OWNER_RULE: Rule = {
  id: '§1 belongs to the merchant',
  group: '§1 and §4 common rules',
  text: 'Every data endpoint returns data belonging to the merchant that owns the application credential',
  level: 'MUST',
  places: DATA,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: it is refused (§5.5), so nothing it reads can belong to anyone',
  ways: [
    {
      way: "another application's or merchant's value",
      how: "the other merchant's record by detail (its id asked for with this token)",
      places: DETAILS,
      at: [
        at(
          [DISH],
          ['app'],
          probedWhen(
            'with other_app',
            // Also where the ids are per merchant: merchant B's dish 101 answered for merchant A's own id 101.
            by('ISO-01', 'iso-dish-detail-leak-a', 'iso-per-merchant-ids-detail-leak-a'),
            // Its id with leading zeros (0201): a spelling ISO-01, which asks for the ids as listed, never sends.
            by('FUZZ-01', 'iso-dish-detail-leak-a', 'fuzz-leading-zeros-any-merchant'),
          ),
        ),
        at(
          [SEAT],
          ['app'],
          probedWhen(
            'with other_app',
            by('ISO-01', 'iso-seat-detail-leak-a'),
            noMutant('FUZZ-01', "answers merchant B's seat to a fuzzed id"),
          ),
        ),
        at([SEAT], ['other_app'], probedWhen('with other_app', by('ISO-03', 'iso-seat-detail-leak-b'))),
        at([DISH], ['other_app'], probedWhen('with other_app', by('ISO-03', 'iso-dish-refusal-carries-record-b'))),
      ],
    },
    {
      way: "another application's or merchant's value",
      how: "the other merchant's record, user_id or merchant_id in an answer (a list, a detail, an order, /merchant)",
      at: [
        at([DISHES], ['app'], probedWhen('with other_app', by('ISO-02', 'iso-dishes-list-leak-a'))),
        at(
          [ORDERS],
          ['app'],
          probedWhen('with other_app', by('ISO-02', 'iso-embedded-dish-leak-a', 'iso-embedded-dish-merchant-id-a')),
        ),
        at([MERCHANT], ['app'], probedWhen('with other_app', by('ISO-02', 'iso-merchant-answers-other'))),
        at([MERCHANT], ['other_app'], probedWhen('with other_app', by('ISO-04', 'iso-other-app-claims-merchant-1'))),
        at(undefined, ['app'], probedWhen('with other_app', noMutant('ISO-02', "puts merchant B's records here"))),
        at(
          [ORDERS],
          ['other_app'],
          probedWhen('with other_app', by('ISO-04', 'iso-orders-list-leak-b', 'iso-orders-list-leak-b-order-number')),
        ),
        at(
          undefined,
          ['other_app'],
          probedWhen('with other_app', noMutant('ISO-04', "puts merchant A's records here")),
        ),
      ],
    },
    {
      way: 'wrong value',
      how: "a detail answering a record that is not among this merchant's list (a record of no configured merchant)",
      places: DETAILS,
      at: [
        at([DISH], ['app'], probed(by('FUZZ-01', 'fuzz-dish-zero-placeholder'))),
        at(undefined, ['app'], probed(noMutant('FUZZ-01', 'answers a record outside the list to a fuzzed id'))),
        // #35: FUZZ-01 asks merchant B's detail endpoints for 0 with other_app's token (suites/fuzz.ts FIXED_WAYS).
        at([SEAT], ['other_app'], probedWhen('with other_app', by('FUZZ-01', 'other-merchant-seat-zero-placeholder'))),
        at(
          [DISH],
          ['other_app'],
          probedWhen('with other_app', noMutant('FUZZ-01', 'answers other_app a record outside its list for 0')),
        ),
      ],
    },
    {
      way: "another application's or merchant's value",
      how: "records of a third merchant, no configured application's",
      at: [
        at([DISHES], ['app'], probed(by('CONS-05', 'iso-dishes-list-leak-a'))),
        at([SEATS], ['app'], probed(by('CONS-05', 'cons-seat-user-id'), by('CONS-06', 'cons-seat-merchant-id'))),
        at([ORDERS], ['app'], probed(by('CONS-06', 'cons-order-merchant-id'))),
        // #35: CONS-05 and CONS-06 read every copy (list, detail, order) of each application against its /merchant;
        // AUTH-04 tells a /merchant that is not the merchant /auth names.
        at([DISH], ['app'], probed(by('CONS-05', 'dish-104-detail-and-lines-third-user-id'))),
        at([SEAT], ['app'], probed(by('CONS-06', 'seat-12-detail-and-order-third-merchant'))),
        at([MERCHANT], ['app'], probed(by('AUTH-04', 'iso-merchant-answers-other'))),
        at([MERCHANT], ['other_app'], probedWhen('with other_app', by('AUTH-04', 'auth-other-app-merchant-differs'))),
        at(
          [DISHES, DISH, ORDERS],
          ['other_app'],
          probedWhen('with other_app', by('CONS-05', 'other-merchant-dish-third-user-id')),
        ),
        at(
          [SEATS, SEAT],
          ['other_app'],
          probedWhen('with other_app', by('CONS-06', 'other-merchant-seat-third-merchant-id')),
        ),
      ],
    },
  ],
  latitude: [
    { reading: "ids numbered per merchant, overlapping the other merchant's", variants: ['per-merchant-ids'] },
  ],
};

const READ_ONLY: Rule = {
  id: '§1 read-only',
  group: '§1 and §4 common rules',
  text: 'All data endpoints use GET and are read-only; no operation changes any state (§3)',
  level: 'MUST',
  places: DATA,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: its token is refused',
  ways: [
    way(
      'wrong value',
      'POST, PUT, PATCH or DELETE changes what GET answers',
      only(['app'], probedWhen('with unsafe_methods', by('RO-01', 'delete-removes-dish')), [DISH]),
      only(['app'], probedWhen('with unsafe_methods', noMutant('RO-01', 'changes data through this endpoint'))),
      // Each unsafe method also goes to other_app's own paths with its token (its details at ids of its list).
      only(
        ['other_app'],
        probedWhen('with unsafe_methods and other_app', by('RO-01', 'other-merchant-patch-renames-dish')),
        [DISH],
      ),
      only(
        ['other_app'],
        probedWhen(
          'with unsafe_methods and other_app',
          noMutant('RO-01', "changes other_app's data through this endpoint"),
        ),
      ),
    ),
    way(
      'absent',
      'an unsafe method without a token changes data',
      // Sent first, without a token, to every path app and other_app read; each application's GETs after them.
      only(['app'], probedWhen('with unsafe_methods', by('RO-01', 'delete-without-token-removes-dish')), [DISH]),
      only(
        ['app'],
        probedWhen('with unsafe_methods', noMutant('RO-01', 'changes data through this endpoint without a token')),
      ),
      only(
        ['other_app'],
        probedWhen('with unsafe_methods and other_app', by('RO-01', 'delete-without-token-removes-dish')),
        [DISH],
      ),
      only(
        ['other_app'],
        probedWhen(
          'with unsafe_methods and other_app',
          noMutant('RO-01', "changes other_app's data through this endpoint without a token"),
        ),
      ),
    ),
    way(
      'wrong value',
      'a GET changes what a later GET answers (§3: no operation changes any state)',
      only(['app'], probed(by('RO-02', 'get-orders-marks-seen')), [ORDERS]),
      only(['app'], probed(by('RO-02', 'get-seat-detail-read-once')), [SEAT]),
      only(['app'], probed(noMutant('RO-02', 'changes data through a GET here'))),
      only(['other_app'], probedWhen('with other_app', by('RO-02', 'other-merchant-orders-marked-seen')), [ORDERS]),
      only(
        ['other_app'],
        probedWhen('with other_app', noMutant('RO-02', "changes other_app's data through a GET here")),
      ),
    ),
  ],
  latitude: [
    { reading: 'any refusal of POST, PUT, PATCH and DELETE (recorded by INFO-RO-METHODS)', variants: [] },
    { reading: 'a list in another order when asked again', variants: ['lists-in-any-order'] },
  ],
};

/** §4 endpoint table: what each endpoint answers. */
const PAYLOAD: Rule = {
  id: '§4 success payload',
  group: '§4 endpoints and numbered rules',
  text: 'Each endpoint answers its payload: /auth the access credential result, /merchant a merchant, lists an array, details one record',
  level: 'MUST',
  places: ENDPOINTS,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: it has no successful answer',
  ways: [
    way(
      'wrong type',
      'a list as an object or null, a record as an array or a JSON string',
      only(['other_app'], probed(by('DISH-01', 'other-merchant-dishes-as-object')), [DISHES]),
      only(['app', 'other_app'], probed(noMutant('DISH-01', 'answers the list as another type here')), [DISHES]),
      only(['app', 'other_app'], probed(noMutant('SEAT-01', 'answers the list as another type')), [SEATS]),
      only(['app', 'other_app'], probed(noMutant('ORD-01', 'answers the list as another type')), [ORDERS]),
      only(['app'], probed(by('MER-01', 'merchant-as-array', 'merchant-double-encoded')), [MERCHANT]),
      only(['other_app'], probed(noMutant('MER-01', "answers other_app's merchant as another type")), [MERCHANT]),
      only(['app'], probed(noMutant('DISH-02', 'answers a detail as another type')), [DISH]),
      only(['app'], probed(noMutant('SEAT-02', 'answers a detail as another type')), [SEAT]),
      only(['app'], probed(noMutant('AUTH-02', "answers /auth's data as another type")), [AUTH]),
      only(['other_app'], probed(noMutant('DISH-02', "answers other_app's detail as another type")), [DISH]),
      only(['other_app'], probed(noMutant('SEAT-02', "answers other_app's detail as another type")), [SEAT]),
      only(['other_app'], probed(noMutant('AUTH-02', "answers other_app's /auth data as another type")), [AUTH]),
    ),
    within(
      LISTS,
      way(
        'absent',
        'records of the merchant missing from a list ("all dishes", "all seats")',
        only(['app'], probed(by('CONS-12', 'unlisted-records-in-old-orders')), [DISHES, SEATS]),
        only(['other_app'], probedWhen('with other_app', by('CONS-12', 'other-merchant-dishes-list-lacks-202')), [
          DISHES,
        ]),
        only(['other_app'], probedWhen('with other_app', by('CONS-12', 'iso-orders-list-leak-b')), [SEATS]),
        at(
          [ORDERS],
          undefined,
          notApplicable(
            '§4 endpoint table',
            '| 7 | GET | {base_url}/orders | none | none | envelope with data = order[] (orders of the merchant) |',
            'endpoints 3 and 5 answer "all dishes" and "all seats" of the merchant; endpoint 7 answers "orders of the merchant", not all of them: a list holding some of its orders answers what the row says',
          ),
        ),
      ),
    ),
    within(
      LISTS,
      way(
        'wrong value',
        'a record listed twice',
        only(['app'], probed(by('CONS-04', 'cons-duplicate-dish')), [DISHES]),
        only(['app'], probed(noMutant('CONS-04', 'lists a record twice here')), [SEATS, ORDERS]),
        only(['other_app'], probedWhen('with other_app', by('CONS-04', 'other-merchant-duplicate-seat')), [SEATS]),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('CONS-04', "lists a record twice in other_app's list here")),
          [DISHES, ORDERS],
        ),
      ),
    ),
  ],
  latitude: [
    { reading: 'extra fields on every object', variants: ['extra-fields-and-nulls'] },
    { reading: 'a detail carrying a field its list lacks', variants: ['mixed-number-renderings'] },
  ],
};

const LIST_QUERY_RULE: Rule = {
  id: '§4 rule 2',
  group: '§4 endpoints and numbered rules',
  text: 'Endpoints 3, 5 and 7 accept no query parameters',
  level: 'MUST',
  places: LISTS,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: its token is refused',
  ways: [
    way(
      'wrong value',
      'applying them: other data than without them (asked twice)',
      only(['app'], probed(by('ERR-06', 'list-query-applied'))),
      only(['other_app'], probedWhen('with other_app', by('ERR-06', 'other-merchant-list-query-applied'))),
    ),
    way(
      'wrong value',
      'answering 500 (or another code than 400)',
      only(['app'], probed(by('ERR-06', 'list-query-500'))),
      only(['other_app'], probedWhen('with other_app', by('ERR-06', 'other-merchant-list-query-500'))),
    ),
    way(
      'wrong place or carrier',
      'applying a filter of its own (status, a date, an id, a search), sent beside the paging parameters',
      only(['app'], probed(by('ERR-06', 'list-query-status-filter'))),
      only(['other_app'], probedWhen('with other_app', by('ERR-06', 'other-merchant-list-query-status-filter')), [
        SEATS,
      ]),
      only(
        ['other_app'],
        probedWhen('with other_app', noMutant('ERR-06', "applies a filter to other_app's list here")),
      ),
    ),
  ],
  latitude: [
    { reading: 'ignore them (the same data), or refuse with 400', variants: ['list-query-400'] },
    {
      reading: 'the same records in another order (order is not content: no rule orders a list)',
      variants: ['lists-in-any-order'],
    },
  ],
};

/** A cell of the disabled application that §5.5 makes impossible to break: its credential must be refused anyway. */
const DISABLED_REFUSED = (why: string): Outcome => notApplicable('§5.5', DISABLED_REFUSED_QUOTE, why);

const AUTH_NO_HEADER: Rule = {
  id: '§4 rule 3',
  group: '§4 endpoints and numbered rules',
  text: 'Endpoint 1 needs no header beyond Content-Type',
  level: 'MUST',
  places: [AUTH],
  apps: ['app', 'other_app', 'disabled_app'],
  ways: [
    way(
      'absent',
      '/auth refuses a valid key pair without an open-token header',
      only(['app'], probed(by('AUTH-01', 'auth-demands-open-token'))),
      // other_app's /auth refused without the header: the preflight asks it again with one and goes on, and AUTH-02
      // fails the refusal of other_app's valid key pair.
      only(['other_app'], probedWhen('with other_app', by('AUTH-02', 'other-app-auth-demands-open-token'))),
      only(['disabled_app'], DISABLED_REFUSED('no valid key pair of it exists for /auth to refuse wrongly')),
    ),
  ],
  latitude: [
    { reading: 'a 401 for a missing token on other paths, before routing', variants: ['auth-before-routing'] },
  ],
};

const TOKEN_OPENS: Rule = {
  id: '§5.3',
  group: '§5 authentication',
  text: 'Every other request carries the token in open-token: the token from /auth opens every data endpoint',
  level: 'MUST',
  places: DATA,
  apps: ['app', 'other_app'],
  appsNote: 'disabled_app: its token must be refused (§5.5)',
  ways: [
    way(
      'wrong value',
      'the valid token refused',
      only(['app'], probed(by('AUTH-05', 'seats-rejects-token')), [SEATS]),
      only(['app'], probed(noMutant('AUTH-05', 'refuses the token here'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-05', 'other-app-token-refused-at-seat')), [SEAT]),
      only(['other_app'], probedWhen('with other_app', noMutant('AUTH-05', "refuses other_app's token here"))),
    ),
  ],
  latitude: [{ reading: 'a token that expires (renewed once, recorded)', variants: ['first-token-expires'] }],
};

/** The scope of the cells probed with the disabled application's key pair (configured apart from its token). */
const DISABLED_KEYS = "with disabled_app's keys";

/**
 * The wrong pairs AUTH-07 derives from the disabled application's keys (§5.4 refuses each with 401 as any other's),
 * proven by a server whose lookup of a disabled application answers a wrong pair 400.
 */
const DISABLED_PAIR: Outcome = probedWhen(DISABLED_KEYS, by('AUTH-07', 'auth-disabled-app-wrong-pair-400'));

const KEY_PAIR: Rule = {
  id: '§5.2, §4 endpoint 1',
  group: '§5 authentication',
  text: "/auth issues app_token for the application's public key (secret) and secret key (key), and for nothing else (§5.4: 401)",
  level: 'MUST',
  places: [AUTH],
  apps: ['app', 'other_app', 'disabled_app'],
  ways: [
    way(
      'absent',
      'a token without one of the two parameters',
      only(['app'], probed(by('AUTH-06', 'auth-missing-key-succeeds'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-06', 'auth-other-app-missing-key-succeeds'))),
      only(['disabled_app'], probedWhen(DISABLED_KEYS, by('AUTH-06', 'auth-disabled-missing-key-succeeds'))),
    ),
    way(
      'wrong value',
      'a wrong secret key accepted, or refused with another code than 401',
      only(['app'], probed(by('AUTH-07', 'auth-wrong-key-400'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-other-merchant-key-unchecked'))),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'wrong value',
      'an unknown public key accepted, or refused with another code than 401',
      only(['app'], probed(by('AUTH-08', 'auth-unknown-public-key-500'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-08', 'auth-other-app-secret-key-alone'))),
      only(['disabled_app'], probedWhen(DISABLED_KEYS, by('AUTH-08', 'auth-disabled-key-unknown-public-500'))),
    ),
    way(
      'wrong place or carrier',
      'the pair swapped (secret=<secret key>&key=<public key>) accepted',
      only(['app'], probed(by('AUTH-07', 'auth-swapped-pair-accepted'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-other-app-swapped-pair-accepted'))),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'wrong place or carrier',
      'the keys taken from request headers named secret and key instead of the query string',
      only(['app'], probed(by('AUTH-06', 'auth-keys-from-headers'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-06', 'auth-keys-from-headers'))),
      only(['disabled_app'], probedWhen(DISABLED_KEYS, by('AUTH-06', 'auth-keys-from-headers'))),
    ),
    way(
      'wrong place or carrier',
      'the keys taken from a GET body (JSON or a form) instead of the query string',
      only(['app'], probed(by('AUTH-06', 'auth-keys-from-body'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-06', 'auth-keys-from-body'))),
      only(['disabled_app'], probedWhen(DISABLED_KEYS, by('AUTH-06', 'auth-keys-from-body'))),
    ),
    way(
      'partial or prefix match',
      'a prefix of the secret key accepted (compared as far as it was sent)',
      only(
        ['app'],
        probedWhen(
          `with a secret key of more than ${SAFE_SECRET_LENGTH} characters (a shorter one: a note says so)`,
          by('AUTH-07', 'auth-key-prefix-accepted'),
        ),
      ),
      only(
        ['other_app'],
        probedWhen(
          `with other_app, whose secret key has more than ${SAFE_SECRET_LENGTH} characters`,
          by('AUTH-07', 'auth-other-app-key-prefix-accepted'),
        ),
      ),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'partial or prefix match',
      'a suffix or an inner part of the secret key accepted',
      only(
        ['app'],
        probedWhen(
          `with a secret key of more than ${SAFE_SECRET_LENGTH} characters (a shorter one: a note says so)`,
          by('AUTH-07', 'auth-key-inner-part-accepted'),
        ),
      ),
      only(
        ['other_app'],
        probedWhen(
          `with other_app, whose secret key has more than ${SAFE_SECRET_LENGTH} characters`,
          by('AUTH-07', 'auth-other-app-key-suffix-accepted'),
        ),
      ),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'partial or prefix match',
      'a part of the public key, or the public key in another letter case or with spaces, accepted',
      only(['app'], probed(by('AUTH-07', 'auth-public-key-prefix-accepted'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-other-app-public-key-case-insensitive'))),
      only(['disabled_app'], probedWhen(DISABLED_KEYS, by('AUTH-07', 'auth-disabled-public-key-trimmed-400'))),
    ),
    way(
      'case',
      'the secret key in another letter case accepted',
      only(['app'], probed(by('AUTH-07', 'auth-key-case-insensitive'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-other-app-key-case-insensitive'))),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'whitespace or encoding',
      'the secret key with spaces around it accepted',
      only(['app'], probed(by('AUTH-07', 'auth-key-trimmed'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-other-app-key-trimmed'))),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      "another application's or merchant's value",
      "halves of two applications' pairs accepted: this application's public key with the other's secret key",
      only(['app', 'other_app'], probedWhen('with other_app', by('AUTH-07', 'auth-any-application-key'))),
      only(['disabled_app'], DISABLED_PAIR),
    ),
    way(
      'stale value',
      'a second /auth for the same pair refused (a token "already issued")',
      only(['app'], probed(by('AUTH-01', 'auth-token-issued-once'))),
      only(['other_app'], probedWhen('with other_app', by('AUTH-02', 'other-app-token-issued-once'))),
      only(
        ['disabled_app'],
        DISABLED_REFUSED('every /auth of its key pair must be refused, the first as the second (AUTH-09)'),
      ),
    ),
  ],
  latitude: [
    { reading: 'a missing parameter refused with 400 or 401', variants: [] },
    {
      reading:
        'a GET with a body (§4: "The request has no body.") refused before the API by a front end, with an HTTP 4xx of its own that is no envelope',
      variants: ['get-body-refused-by-front-end'],
    },
    {
      reading: 'the same token on every call, or a new one',
      variants: ['same-token-each-call', 'new-token-revokes-previous'],
    },
  ],
};

/** AUTH-10 at each data endpoint: proven there by the mutant that opens it to every request, /seats also by its own. */
export function disabledTokenAt(): WaySpec['at'] {
  return DATA_ENDPOINTS.map((ep) =>
    at(
      [get(ep.path)],
      ['disabled_app'],
      probedWhen(
        "with disabled_app's token",
        by(
          'AUTH-10',
          `no-token-check-${ep.name}`,
          ...(ep.path === '/seats' ? ['disabled-token-accepted'] : []),
          // Its token with query parameters, beside AUTH-10's own requests (#35).
          ...(ep.list && ep.name !== 'merchant' ? ['disabled-token-list-query-accepted'] : []),
        ),
      ),
    ),
  );
}

const DISABLED: Rule = {
  id: '§5.5',
  group: '§5 authentication',
  text: 'The merchant can disable an application; its credential is then refused with 401',
  level: 'MUST',
  places: [AUTH, ...DATA],
  apps: ['disabled_app'],
  appsNote: 'app and other_app are enabled',
  ways: [
    way(
      'wrong value',
      'its key pair still issues a token',
      at([AUTH], undefined, probedWhen("with disabled_app's keys", by('AUTH-09', 'disabled-app-still-authenticates'))),
      // Its key pair in the query of each data endpoint, with no token: it opens none (proven there by the mutant
      // that opens it to every request, /orders also by one that takes a key pair there).
      ...DATA_ENDPOINTS.map((ep) =>
        at(
          [get(ep.path)],
          undefined,
          probedWhen(
            "with disabled_app's keys",
            by('AUTH-09', `no-token-check-${ep.name}`, ...(ep.path === '/orders' ? ['disabled-keys-open-orders'] : [])),
          ),
        ),
      ),
    ),
    way(
      'stale value',
      'its earlier token still opens an endpoint',
      ...disabledTokenAt(),
      // At /auth, in open-token with no key pair: it renews nothing.
      at([AUTH], undefined, probedWhen("with disabled_app's token", by('AUTH-10', 'auth-renews-disabled-token'))),
    ),
  ],
  latitude: [],
};

const NOT_SHOWN: Rule[] = [
  {
    id: '§5.1',
    group: '§5 authentication',
    text: 'The console shows the public and the secret key of an application the merchant adds',
    level: 'MUST',
    places: ['the management console'],
    apps: ['app'],
    ways: [
      way(
        'absent',
        'keys not shown',
        at(
          undefined,
          undefined,
          notApplicable(
            '§1',
            'A merchant management console exists at {console_url}. In it the merchant creates an application and obtains an application public key and an application secret key.',
            'the console is at its own address, not below {base_url}, and §4 defines no request of it: it is where a person reads the keys the run is configured with, with nothing an HTTP client of §4 can send (AUTH-01 shows the keys it showed open /auth)',
          ),
        ),
      ),
    ],
    latitude: [],
  },
  {
    id: '§5.6, §5.7',
    group: '§5 authentication',
    text: 'Token validity and permissions: not shown',
    level: 'MUST',
    places: DATA,
    apps: ['app'],
    ways: [
      way(
        'stale value',
        'a token refused after it worked',
        at(
          undefined,
          undefined,
          notApplicable(
            '§5.6, §5.7',
            'Validity period of the API Token: not shown.',
            'no lifetime is set, so a token refused after it worked breaks no rule (the suite renews a run token refused so once, and INFO-AUTH-TOKEN records it)',
          ),
        ),
      ),
    ],
    latitude: [
      {
        reading: 'any lifetime',
        variants: ['same-token-each-call', 'new-token-revokes-previous', 'first-token-expires'],
      },
    ],
  },
];

const CREDENTIALS: Rule[] = [
  {
    id: '§2.6 credential places',
    group: '§5 authentication',
    text: "The key pair and the token appear in /auth's app_secret, app_key and app_token only",
    level: 'MUST',
    places: ENDPOINTS,
    apps: ['app', 'other_app'],
    appsNote: "disabled_app: its keys and token are looked for in app's and other_app's answers",
    ways: [
      way(
        'wrong place or carrier',
        'a configured key or an issued token in another field',
        only(['app'], probed(by('SEC-01', 'merchant-carries-secret-key')), [MERCHANT, AUTH]),
        only(['app'], probed(noMutant('SEC-01', 'puts a credential here'))),
        only(['other_app'], probed(by('SEC-01', 'other-merchant-seat-detail-carries-key')), [SEAT]),
        only(['other_app'], probed(noMutant('SEC-01', "puts a credential in other_app's answers")), OTHER_READ),
      ),
    ],
    latitude: [],
  },
  {
    id: '§1 no credential material',
    group: '§5 authentication',
    text: 'Records carry no credential material (a password hash, a field named like a secret or a token)',
    level: 'SHOULD',
    places: ENDPOINTS,
    apps: ['app', 'other_app'],
    ways: [
      way(
        'wrong value',
        'a password hash or a remember_token in a record',
        only(['app'], probed(by('SEC-02', 'merchant-password-hash', 'merchant-bare-password-hash')), [MERCHANT, AUTH]),
        only(['app'], probed(by('SEC-02', 'dish-tags-password-hash')), [DISHES, DISH]),
        only(['app'], probed(noMutant('SEC-02', 'puts credential material here'))),
        only(['other_app'], probed(noMutant('SEC-02', "puts credential material in other_app's answers")), OTHER_READ),
      ),
    ],
    latitude: [
      {
        reading: 'names that only contain such a word (token_count, secretary)',
        variants: ['credential-lookalike-fields'],
      },
    ],
  },
];

const ERROR_RULES: Rule[] = [
  {
    id: '§7 404',
    group: '§7 errors',
    text: 'An unknown interface answers code 404',
    level: 'MUST',
    places: [UNKNOWN_INTERFACE],
    apps: ['app', 'other_app'],
    appsNote: 'disabled_app: its token is refused',
    ways: [
      way(
        'wrong value',
        'another code (400, 500) or SUCCESS',
        only(['app'], probed(by('ERR-01', 'unknown-interface-400'))),
        only(['other_app'], probedWhen('with other_app', by('ERR-01', 'unknown-interface-other-app-400'))),
      ),
    ],
    latitude: [
      { reading: 'without a token, 401 (authenticated before routing) or 404', variants: ['auth-before-routing'] },
    ],
  },
  {
    id: '§7 unknown id',
    group: '§7 errors',
    text: 'An unknown dish_id or seat_id answers an error (400 or 404: judgement, §7 does not say which)',
    level: 'MUST',
    places: DETAILS,
    apps: ['app', 'other_app'],
    appsNote: 'disabled_app: its token is refused',
    ways: [
      way(
        'wrong value',
        'SUCCESS (data null), 500, or another error code',
        only(
          ['app'],
          probed(by('ERR-02', 'unknown-dish-success-null'), by('FUZZ-01', 'fuzz-big-id-500', 'fuzz-int32-wrap')),
          [DISH],
        ),
        only(
          ['app'],
          probed(
            by('ERR-03', 'unknown-seat-500'),
            by('FUZZ-01', 'fuzz-negative-seat-500', 'fuzz-big-id-500', 'fuzz-int32-wrap'),
          ),
          [SEAT],
        ),
        // Merchant A's ids are ids merchant B does not know: ISO-03 asks for them with other_app's token.
        only(['other_app'], probedWhen('with other_app', by('ISO-03', 'iso-refusal-403-b'))),
      ),
      way(
        'partial or prefix match',
        'an id read by its leading digits ("101abc", "101.5" answer dish 101)',
        only(['app'], probed(by('FUZZ-01', 'fuzz-parseint-dish-ids')), [DISH]),
        only(['app'], probed(noMutant('FUZZ-01', 'reads seat ids by their leading digits')), [SEAT]),
        only(['other_app'], probedWhen('with other_app', by('FUZZ-01', 'other-merchant-dish-ids-by-leading-digits')), [
          DISH,
        ]),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('FUZZ-01', "reads other_app's seat ids by their leading digits")),
          [SEAT],
        ),
      ),
      way(
        'wrong value',
        "a body that is not JSON (a front proxy's HTML page for an id holding %2F)",
        only(
          ['app'],
          probed(
            by('FUZZ-01', 'fuzz-encoded-slash-proxy-html'),
            noMutant('ERR-02', 'answers an unknown dish id a body that is not JSON'),
          ),
          [DISH],
        ),
        only(
          ['app'],
          probed(
            by('FUZZ-01', 'fuzz-encoded-slash-proxy-html'),
            noMutant('ERR-03', 'answers an unknown seat id a body that is not JSON'),
          ),
          [SEAT],
        ),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('ISO-03', "answers merchant A's ids a body that is not JSON")),
        ),
      ),
      way(
        'whitespace or encoding',
        'a percent-encoded id routed elsewhere (/dishes/..%2Fmerchant)',
        only(['app'], probed(by('FUZZ-01', 'fuzz-encoded-slash-routes')), [DISH, SEAT]),
        only(
          ['other_app'],
          probedWhen('with other_app', noMutant('FUZZ-01', "routes other_app's ..%2Fmerchant elsewhere")),
        ),
      ),
      way(
        'case',
        'an id in another letter case answering a record (hex-like ids)',
        at(
          undefined,
          undefined,
          notApplicable(
            '§2.2, §2.3',
            '| id | int | Dish ID |',
            "a dish's id is an int, and so is a seat's (§2.3: | id | int | Seat ID |): written in digits, an id has no letter case, so no id can be asked for in another one",
          ),
        ),
      ),
    ],
    latitude: [
      { reading: 'code 400 or 404', variants: ['errors-400-unknown-ids'] },
      { reading: 'leading zeros refused', variants: ['strict-id-parsing'] },
    ],
  },
];

/** The rules of §1, §2.1, §4, §5 and §7 besides the token check and the field tables. */
export const PROTOCOL_RULES: Rule[] = [
  JSON_RULE,
  UTF8_RULE,
  HTTPS_RULE,
  ...CLIENT_RULES,
  OWNER_RULE,
  READ_ONLY,
  ENVELOPE_STATUS,
  ENVELOPE_CODE,
  ENVELOPE_MSG,
  ERROR_DATA,
  PAYLOAD,
  LIST_QUERY_RULE,
  AUTH_NO_HEADER,
  TOKEN_OPENS,
  KEY_PAIR,
  DISABLED,
  ...NOT_SHOWN,
  ...CREDENTIALS,
  ...ERROR_RULES,
];
