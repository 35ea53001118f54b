import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of each screen the console spec visits, for a person to look at (dist/ is not committed). */
export const SCREENS = resolve(dirname(fileURLToPath(import.meta.url)), '../../console-screens');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
  });
}

/**
 * A page of the console that records every error the page reports: uncaught exceptions and
 * console errors. The browser also logs each HTTP error answer as a console error; a test
 * that provokes one on purpose names its status in `expectStatus`.
 */
export class ConsolePage {
  readonly errors: string[] = [];
  private readonly expected = new Set<number>();

  private constructor(readonly context: BrowserContext, readonly page: Page, readonly url: string) {
    page.on('pageerror', (e) => this.errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      const status = /the server responded with a status of (\d+)/.exec(m.text());
      if (!status || !this.expected.has(Number(status[1]))) this.errors.push(`console error: ${m.text()}`);
    });
  }

  /** `trustCertificates`: accept the test server's self-signed TLS certificate. */
  static async open(browser: Browser, url: string, viewport = { width: 1280, height: 800 }, trustCertificates = false): Promise<ConsolePage> {
    const context = await browser.newContext({ viewport, acceptDownloads: true, ignoreHTTPSErrors: trustCertificates });
    return new ConsolePage(context, await context.newPage(), url);
  }

  /** Opens the console at a place (`#/points/articles`) and waits until its header is drawn. */
  async goto(hash = ''): Promise<void> {
    await this.page.goto(`${this.url}/console${hash}`);
    await this.page.locator('header nav').waitFor();
  }

  expectStatus(status: number): void {
    this.expected.add(status);
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(SCREENS, { recursive: true });
    await this.page.screenshot({ path: join(SCREENS, `${name}.png`), fullPage: true });
  }

  /** Fails on any error the page reported, then closes it. */
  async close(): Promise<void> {
    const errors = [...this.errors];
    await this.context.close();
    expect(errors, 'errors in the page').to.deep.equal([]);
  }
}
