/**
 * Debian's Chromium driven by playwright-core, and the step recorder of the editor suite: every
 * step saves a screenshot, a failing one the page's HTML too, and after each step the page is
 * searched for the secrets it must never show.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
	chromium,
	type Browser,
	type BrowserContext,
	type Locator,
	type Page,
} from 'playwright-core';

import { OWNER, REPO_ROOT } from '../e2e/n8n.cjs';
import { CHROMIUM } from './chromium.cjs';

export { CHROMIUM };

/**
 * Git-ignored; CI uploads it as an artifact. One subfolder per test file, emptied when it starts.
 * In a dot folder: `n8n-node build` copies every .png/.svg outside dot folders into dist/, and a
 * release from that tree would publish the screenshots.
 */
export const SCREENSHOT_ROOT = path.join(REPO_ROOT, '.test-output', 'editor-screenshots');

/**
 * Without the background-networking flags Chromium keeps trying to reach Google's hosts, which
 * this machine's closed network refuses (many connections at a time); --no-sandbox because the
 * suite runs as root in CI.
 */
const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-dev-shm-usage',
];

export interface RunningBrowser {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	close(): Promise<void>;
}

export async function launchBrowser(): Promise<RunningBrowser> {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: run test/editor/install-chromium.sh (as root) first`);
	}
	// launch() gives Chromium a new, empty profile of its own and removes it on close.
	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: CHROMIUM_ARGS,
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	// Generous for a 2-core machine shared with other work; every wait is on something visible.
	page.setDefaultTimeout(30_000);
	return {
		browser,
		context,
		page,
		close: async () => await browser.close(),
	};
}

/**
 * Every place a secret could show: the page's visible text, its HTML (attributes included), and the
 * values of inputs (a value typed into an input is in no attribute). The one exception is a
 * password field's own value: the credential modal's API Key field holds the key the user typed,
 * shown as dots (n8n 2.8.4 also mirrors it into the field's value attribute).
 */
export async function findSecrets(page: Page, secrets: string[]): Promise<string[]> {
	const text = await page.locator('body').innerText();
	const { html, values } = await page.evaluate(() => {
		const copy = document.documentElement.cloneNode(true) as HTMLElement;
		for (const input of Array.from(copy.querySelectorAll('input[type="password"]'))) {
			input.removeAttribute('value');
		}
		const fields = Array.from(document.querySelectorAll('input, textarea')) as Array<
			HTMLInputElement | HTMLTextAreaElement
		>;
		return {
			html: copy.outerHTML,
			values: fields
				.filter((field) => field.type !== 'password')
				.map((field) => field.value)
				.join('\n'),
		};
	});
	const found: string[] = [];
	for (const secret of secrets) {
		if (text.includes(secret)) found.push('the page text');
		if (html.includes(secret)) found.push('the page HTML');
		if (values.includes(secret)) found.push('an input value');
	}
	return found;
}

/**
 * Runs the steps of one journey in order. A step that throws leaves `NN-name-FAILED.png` and
 * `.html`; the steps after it fail at once (they depend on the page it left behind).
 */
export class Steps {
	private count = 0;
	private failed: string | undefined;
	readonly dir: string;

	constructor(
		private readonly page: Page,
		folder: string,
		private readonly secrets: string[],
	) {
		this.dir = path.join(SCREENSHOT_ROOT, folder);
		fs.rmSync(this.dir, { recursive: true, force: true });
		fs.mkdirSync(this.dir, { recursive: true });
	}

	async run(name: string, body: () => Promise<void>): Promise<void> {
		if (this.failed !== undefined)
			throw new Error(`not run: the earlier step "${this.failed}" failed`);
		this.count += 1;
		const file = `${String(this.count).padStart(2, '0')}-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
		try {
			await body();
			const leaks = await findSecrets(this.page, this.secrets);
			if (leaks.length > 0) throw new Error(`an API key appears in ${leaks.join(', ')}`);
			await this.page.screenshot({
				path: path.join(this.dir, `${file}.png`),
				animations: 'disabled',
			});
		} catch (error) {
			this.failed = name;
			await this.page
				.screenshot({ path: path.join(this.dir, `${file}-FAILED.png`) })
				.catch(() => undefined);
			const html = await this.page.content().catch(() => '');
			fs.writeFileSync(path.join(this.dir, `${file}-FAILED.html`), html);
			throw error;
		}
	}
}

/** The sign-in form at /signin, as the owner set up by setupOwner(). */
export async function signIn(page: Page, url: string, owner = OWNER): Promise<void> {
	await page.goto(`${url}/signin`);
	await page.locator('[data-test-id="emailOrLdapLoginId"] input').fill(owner.email);
	await page.locator('[data-test-id="password"] input').fill(owner.password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL((target) => !target.pathname.startsWith('/signin'));
}

/** Waits until the locator's text matches, and returns the text. */
export async function waitForText(
	locator: Locator,
	pattern: RegExp,
	timeout = 30_000,
): Promise<string> {
	await locator.filter({ hasText: pattern }).first().waitFor({ state: 'visible', timeout });
	return await locator.first().innerText();
}

/**
 * Opens a section of a node's panel in the nodes panel ("Triggers (1)", "Actions (5)") if it is
 * collapsed: n8n 2.8.4 opens only Triggers while the workflow has no trigger. The count is part
 * of the check.
 */
export async function expandNodeCreatorCategory(
	page: Page,
	name: string,
	count: number,
): Promise<void> {
	const creator = page.locator('[data-test-id="node-creator"]');
	// `has` takes a locator relative to the section, so not one under the creator.
	const header = page.locator('[data-test-id="node-creator-category-item"]', {
		hasText: `${name} (${count})`,
	});
	const collapsed = creator.locator('[data-category-collapsed="true"]', { has: header });
	const open = creator.locator('[data-category-collapsed="false"]', { has: header });
	await collapsed.or(open).waitFor();
	// The panel slides in and can settle after the first click: click again if still closed.
	for (let tries = 0; tries < 3 && (await collapsed.count()) > 0; tries++) {
		await collapsed.locator('[data-test-id="node-creator-category-item"]').click();
		await open.waitFor({ timeout: 3_000 }).catch(() => undefined);
	}
	await open.waitFor();
}
