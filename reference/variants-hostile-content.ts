import type { Variant } from './server.js';
import { eachRecord, onPath, withBody, withData } from './kit.js';

/**
 * A server whose data is an attack on the reports: dish names, seat and order remarks, merchant and application
 * names, every error msg and a response header carry markup and script payloads. Each payload, if it ever ran,
 * would set window.__pwned, open a dialog, log to the console or make a request — the browser test watches for all
 * four. The data itself is conforming (names and remarks are free strings); two deliberate breaks make checks fail
 * so that the payloads also reach failure messages and evidence: a success envelope of /dishes carries a msg, and
 * the first seat of /seats has a status that is a payload string; and a SHOULD break (a device without version_name).
 */
export const PAYLOADS = [
  `<script>window.__pwned=1;alert('xss-script');console.log('xss-script')</script>`,
  `<img src=x onerror="window.__pwned=2;alert('xss-img')">`,
  `"><svg onload="window.__pwned=3;alert('xss-svg')">`,
  `'><iframe src="javascript:alert('xss-iframe')"></iframe>`,
  `</pre></textarea></style></title></script><script>fetch('http://127.0.0.1:9/xss')</script>`,
  `<a href="javascript:alert('xss-link')">click</a><style>body{background:url(http://127.0.0.1:9/css)}</style>`,
  `onerror=alert(1) onload=alert(2) ]]><!-- --> ' "; touch /tmp/pwned; echo " $(id) \`id\``,
  `\u0000\u0007\u001b[31mred\u001b[0m\u2028\u2029\uFFFE\nline two\n::error title=injected::from the server`,
];

/** The value of the hostile response header (header values cannot carry line breaks or control characters). */
export const HOSTILE_HEADER = `"><svg onload="window.__pwned=5;alert('xss-header')"><script>alert('xss-header')</script>`;

const pick = (i: number): string => PAYLOADS[i % PAYLOADS.length]!;

/** Script payloads in data, messages and headers: the HTML report must render them inert. */
export const hostileContent: Variant[] = [
  {
    name: 'hostile-content',
    description: 'names, remarks, msg values and a response header full of script payloads',
    fixtures(f) {
      f.merchants.forEach((m, i) => {
        m.name = `${m.name} ${pick(i + 2)}`;
      });
      f.apps.forEach((a, i) => {
        a.name = pick(i + 1);
      });
      f.dishes.forEach((d, i) => {
        d.name = `${pick(i)} ${d.name}`;
      });
      f.seats.forEach((s, i) => {
        s.remark = pick(i + 3);
      });
      f.orders.forEach((o, i) => {
        o.remark = pick(i + 5);
      });
    },
    render: {
      error: (code, msg) => ({ http: code, body: { status: 'ERROR', code, msg: `${msg} ${pick(code)}` } }),
    },
    handle(_req, next) {
      const r = next();
      return { ...r, headers: { ...r.headers, 'x-hostile': HOSTILE_HEADER } };
    },
  },
  // The two breaks that make checks fail, so payloads reach messages and evidence.
  onPath('hostile-msg-on-success', 'Success answers of /dishes carry a payload msg', ['/dishes'], (r) =>
    withBody(r, (b) => {
      if (b.status === 'SUCCESS') b.msg = pick(0);
    }),
  ),
  onPath('hostile-seat-status', 'The first seat of /seats has a payload status', ['/seats'], (r) =>
    withData(r, (d) =>
      eachRecord(d, (x, i) => {
        if (i === 0) x.status = pick(2);
      }),
    ),
  ),
  // A SHOULD break as well (a warning, not a failure), so the report has warnings to filter and render.
  onPath(
    'hostile-device-sample-members',
    "The first order's device lacks the sample's version_name",
    ['/orders'],
    (r) =>
      withData(r, (d) =>
        eachRecord(d, (x, i) => {
          if (i === 0) delete x.device.version_name;
        }),
      ),
  ),
];
