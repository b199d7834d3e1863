import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (apt-get install chromium; .ci/run does it), never a downloaded browser build. */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The real browser the report tests open report.html in. */
export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ARGS });

/** What a page did that a report must never make it do. */
export interface Watch {
  dialogs: string[];
  console: string[];
  errors: string[];
  requests: string[];
}

/** Opens a file in a fresh context and records everything a payload could do: dialogs, console, errors, requests. */
export async function open(
  browser: Browser,
  file: string,
): Promise<{ page: Page; seen: Watch; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const seen: Watch = { dialogs: [], console: [], errors: [], requests: [] };
  context.on('request', (r) => seen.requests.push(r.url()));
  const page = await context.newPage();
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('console', (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => seen.errors.push(e.message));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, seen, close: () => context.close() };
}
