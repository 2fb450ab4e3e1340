/**
 * A user's first session with the package in the n8n editor, in headless Chromium against a real
 * n8n (e2eTarget(), 2.8.4 by default) and the sandbox API: find the node, add "Create a customer",
 * create the credential in the modal, pick a business, execute, read many pages, hit a bad input.
 * Screenshots of every step go to .test-output/editor-screenshots/journey-<n8n version>/: CI runs
 * the journey on two n8n lines at once, and neither may empty the other's folder.
 */
import type { Locator, Page } from 'playwright-core';

import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EACH_RUN_ADDS_AGAIN } from '../../nodes/BusinessCrm/resources/customer/create/duplicateHint';
import {
	REPO_ROOT,
	createUserFolder,
	e2eTarget,
	ensureN8n,
	installPackage,
	packPackage,
	rest,
	setupOwner,
	startN8n,
	type RunningN8n,
	type Session,
	type UserFolder,
} from '../e2e/n8n.cjs';
import {
	expandNodeCreatorCategory,
	launchBrowser,
	signIn,
	Steps,
	waitForText,
	type RunningBrowser,
} from './browser.cjs';
import {
	ACTIONS,
	BLANK_FIRST_NAME,
	CREDENTIAL_MODAL,
	CUSTOM_FIELD_EMAIL,
	FETCH_TEST_EVENT,
	MORE_DETAILS,
	NODE_NAME,
	NO_SCHEME,
	RATE_LIMIT_ADVICE,
	RETRY,
	SEARCHES,
	TEST_THIS_TRIGGER,
	TRIGGER_ACTION,
	type CredentialModalTexts,
} from './texts.cjs';

const CUSTOMERS = '/api/public/v1/customers';
const CREATE_CUSTOMER = '/api/business/crm/customer/add';
const CUSTOMER_ID = /cust_[0-9a-f]{16}/;
const BUSINESS_INPUT =
	'[data-test-id="resource-locator-businessId"] input[data-test-id="rlc-input"]';

describe('the editor journey', () => {
	let sandbox: Sandbox;
	let folder: UserFolder;
	let n8n: RunningN8n;
	let session: Session;
	let browser: RunningBrowser;
	let page: Page;
	let steps: Steps;
	let modalTexts: CredentialModalTexts;

	beforeAll(async () => {
		const target = await e2eTarget();
		const texts = CREDENTIAL_MODAL[target.version ?? ''];
		if (texts === undefined) {
			throw new Error(
				`test/editor/texts.cts has no credential modal texts for n8n ${target.version}`,
			);
		}
		modalTexts = texts;
		sandbox = await startSandbox({ businesses: 5, customers: 240 });
		folder = await createUserFolder(await ensureN8n(target));
		await installPackage(folder, await packPackage());
		n8n = await startN8n(folder);
		session = await setupOwner(n8n.url);
		browser = await launchBrowser();
		page = browser.page;
		steps = new Steps(page, `journey-${target.version}`, [
			sandbox.apiKey,
			sandbox.otherOrgApiKey,
			sandbox.readOnlyApiKey,
		]);
	});

	afterAll(async () => {
		await browser?.close();
		await n8n?.stop();
		folder?.remove();
		await sandbox?.close();
	});

	const ndv = () => page.locator('[data-test-id="ndv"]');
	const outputPanel = () => page.locator('[data-test-id="output-panel"]');
	const credentialModal = () => page.locator('[data-test-id="editCredential-modal"]');
	const creator = () => page.locator('[data-test-id="node-creator"]');
	const businessLocator = () => page.locator('[data-test-id="resource-locator-businessId"]');
	const businessItems = () => page.locator('[data-test-id="rlc-item"]');

	async function searchNodes(term: string): Promise<void> {
		const search = creator().locator('input').first();
		await search.fill(term);
		await creator()
			.locator('[data-test-id="node-creator-item-name"]', { hasText: new RegExp(`^${NODE_NAME}$`) })
			.first()
			.waitFor();
	}

	/** Searches the node by name and opens its panel of triggers and actions. */
	async function openNodeActions(): Promise<void> {
		await searchNodes(NODE_NAME);
		await creator()
			.locator('[data-test-id="node-creator-item-name"]', { hasText: new RegExp(`^${NODE_NAME}$`) })
			.first()
			.click();
	}

	/** 2.8.4 offers "Create new credential" in a select; later versions a "Connect to …" button. */
	async function openNewCredential(): Promise<void> {
		const select = ndv().locator('[data-test-id="node-credentials-select"]');
		const connect = ndv().locator('[data-test-id="node-credentials-empty-state"] button');
		await select.or(connect).first().waitFor();
		if (await connect.isVisible()) {
			await connect.click();
			return;
		}
		await select.click();
		await page.locator('[data-test-id="node-credentials-select-item-new"]').click();
	}

	/** The names of the saved credentials, as n8n's REST API lists them to the owner. */
	async function savedCredentialNames(): Promise<string[]> {
		const credentials = await rest<Array<{ name: string }>>(
			n8n.url,
			session,
			'GET',
			'/credentials',
		);
		return credentials.map((credential) => credential.name);
	}

	async function fillCredential(apiKey: string, baseUrl = sandbox.url): Promise<void> {
		const modal = credentialModal();
		await modal.locator('[data-test-id="parameter-input-baseUrl"] input').fill(baseUrl);
		await modal.locator('[data-test-id="parameter-input-apiKey"] input').fill(apiKey);
		await modal
			.locator('[data-test-id="parameter-input-organizationId"] input')
			.fill(sandbox.organizationId);
		await modal.locator('[data-test-id="credential-save-button"]').click();
	}

	/** The failure banner and, under "More details", n8n's text for the status. */
	async function expectCredentialFailure(detail: string): Promise<void> {
		const modal = credentialModal();
		await modal.getByText(modalTexts.failure).waitFor();
		const more = modal.getByText(MORE_DETAILS);
		// "More details" stays open once clicked, for the next test of the same modal too.
		if (await more.isVisible()) await more.click();
		await modal.getByText(detail).waitFor();
	}

	/** Types into a parameter and leaves the field, which is when n8n takes the value. */
	async function setParameter(input: Locator, value: string): Promise<void> {
		await input.fill(value);
		await input.press('Tab');
	}

	/** Waits until the input that `selector` finds (again at every check) holds `value`. */
	async function waitForValue(selector: string, value: string): Promise<void> {
		await page.waitForFunction(
			([css, expected]) => document.querySelector<HTMLInputElement>(css)?.value === expected,
			[selector, value] as const,
		);
	}

	async function closeNdv(): Promise<void> {
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await ndv().waitFor({ state: 'hidden' });
	}

	async function openNode(title: string): Promise<void> {
		await page.locator('[data-test-id="canvas-node"]').filter({ hasText: title }).dblclick();
		await ndv().waitFor();
	}

	/** The node's error in the output panel: its message and its advice. */
	async function expectNodeError(message: RegExp, advice?: RegExp): Promise<void> {
		await outputPanel().getByText(message).first().waitFor();
		if (advice) await outputPanel().getByText(advice).first().waitFor();
	}

	async function executeStep(): Promise<void> {
		await ndv().locator('[data-test-id="node-execute-button"]').click();
	}

	/** The cust_ id the output panel shows once a run newer than `previous` is there. */
	async function createdCustomerId(previous?: string): Promise<string> {
		const panel = outputPanel().filter({ hasText: CUSTOMER_ID });
		await (previous ? panel.filter({ hasNotText: previous }) : panel).waitFor();
		const id = CUSTOMER_ID.exec(await outputPanel().innerText())?.[0];
		if (id === undefined) throw new Error('no customer id in the output panel');
		return id;
	}

	it('signs in', async () => {
		await steps.run('sign in', async () => {
			await signIn(page, n8n.url);
			await page.goto(`${n8n.url}/workflow/new`);
			await page
				.locator('[data-test-id="canvas-plus-button"], [data-test-id="canvas-add-button"]')
				.first()
				.waitFor();
		});
	});

	it('finds the node in the nodes panel by its name, "customer" and "CRM"', async () => {
		await page.locator('[data-test-id="node-creator-plus-button"]').click();
		for (const term of SEARCHES) {
			await steps.run(`nodes panel search ${term}`, async () => searchNodes(term));
		}
	});

	it("lists the node's actions", async () => {
		await steps.run('actions', async () => {
			await openNodeActions();
			await expandNodeCreatorCategory(page, 'Actions', ACTIONS.length);
			const actions = creator().locator('[data-test-id="item-iterator-item"]');
			for (const action of ACTIONS) {
				await actions.filter({ hasText: new RegExp(`^${action}$`) }).waitFor();
			}
			expect(await actions.count()).toBeGreaterThanOrEqual(ACTIONS.length);
		});
		await steps.run('trigger in nodes panel', async () => {
			await expandNodeCreatorCategory(page, 'Triggers', 1);
			await creator()
				.locator('[data-test-id="item-iterator-item"]', { hasText: TRIGGER_ACTION })
				.waitFor();
		});
	});

	it('adds "Create a customer" and opens it', async () => {
		await steps.run('add create a customer', async () => {
			await creator()
				.locator('[data-test-id="item-iterator-item"]', { hasText: /^Create a customer$/ })
				.click();
			await ndv().locator('[data-test-id="parameter-input-firstName"]').waitFor();
		});
	});

	it("creates the credential in the modal: a wrong key, another organization's key, then the right key", async () => {
		await steps.run('credential wrong key', async () => {
			await openNewCredential();
			await credentialModal().locator('[data-test-id="parameter-input-apiKey"]').waitFor();
			await fillCredential('sk_sandbox_0000000000000000000000000000dead');
			await expectCredentialFailure(modalTexts.wrongKey);
			// As the README says: no Test button; Save tested it, Retry tests again, and the
			// credential that failed its test is saved all the same.
			const modal = credentialModal();
			expect(await modal.getByRole('button', { name: /^Test$/ }).count()).toBe(0);
			await modal.getByRole('button', { name: RETRY, exact: true }).first().waitFor();
			expect(await savedCredentialNames()).toEqual(['Business CRM account']);
		});
		await steps.run('credential other organization key', async () => {
			await fillCredential(sandbox.otherOrgApiKey);
			await expectCredentialFailure(modalTexts.otherOrganizationKey);
		});
		// What the README says the credential test shows for an invisible character: n8n's
		// words, not the node's (the node names the character when it runs).
		const invisible = '\u200b';
		if (modalTexts.invisibleInBaseUrl !== undefined) {
			const shown = modalTexts.invisibleInBaseUrl;
			await steps.run('credential invisible character in base url', async () => {
				sandbox.clearLog();
				await fillCredential(sandbox.apiKey, `${sandbox.url}${invisible}`);
				await expectCredentialFailure(shown);
				expect(sandbox.requests).toEqual([]);
			});
		}
		if (modalTexts.invisibleInKey !== undefined) {
			const shown = modalTexts.invisibleInKey;
			await steps.run('credential invisible character in key', async () => {
				sandbox.clearLog();
				await fillCredential(`${sandbox.apiKey}${invisible}`);
				await expectCredentialFailure(shown);
				expect(sandbox.requests).toEqual([]);
			});
		}
		await steps.run('credential right key', async () => {
			await fillCredential(sandbox.apiKey);
			// 2.8.4 shows the success in the modal; 2.40.7 closes the modal at once and the node
			// shows the new credential.
			const success = credentialModal().getByText(modalTexts.success);
			await Promise.race([
				success.waitFor().catch(() => undefined),
				credentialModal()
					.waitFor({ state: 'hidden' })
					.catch(() => undefined),
			]);
			if (await credentialModal().isVisible()) {
				await success.waitFor();
				expect(await credentialModal().getByText(modalTexts.failure).count()).toBe(0);
			}
		});
		await steps.run('credential selected in the node', async () => {
			if (await credentialModal().isVisible()) {
				await credentialModal().getByRole('button', { name: 'Close this dialog' }).click();
				await credentialModal().waitFor({ state: 'hidden' });
			}
			await waitForValue(
				'[data-test-id="ndv"] [data-test-id="node-credentials-select"] input',
				'Business CRM account',
			);
			// The label the README names, in this version's words.
			await ndv().getByText(modalTexts.credentialLabel, { exact: true }).first().waitFor();
		});
	});

	it("lists the API's businesses in Business › From list, and its search box filters them", async () => {
		await steps.run('business from list', async () => {
			await businessLocator().locator('[data-test-id="rlc-input"]').click();
			for (const business of sandbox.businesses) {
				await businessItems().filter({ hasText: business.name }).waitFor();
			}
			expect(await businessItems().count()).toBe(sandbox.businesses.length);
		});
		await steps.run('business search', async () => {
			const wanted = sandbox.businesses[1];
			await page.locator('input[data-test-id="rlc-search"]').fill(wanted.name.split(' ')[1]);
			// The other businesses leave the list; only the match stays.
			for (const other of sandbox.businesses.filter((b) => b.id !== wanted.id)) {
				await businessItems().filter({ hasText: other.name }).waitFor({ state: 'detached' });
			}
			// The list empties while the filtered page loads.
			await businessItems().filter({ hasText: wanted.name }).waitFor();
			expect(await businessItems().allInnerTexts()).toEqual([expect.stringContaining(wanted.name)]);
		});
	});

	it('creates a customer with Execute step, and the output panel shows its cust_ id', async () => {
		await steps.run('execute create from list', async () => {
			const wanted = sandbox.businesses[1];
			await businessItems().filter({ hasText: wanted.name }).click();
			await setParameter(
				ndv().locator('[data-test-id="parameter-input-firstName"] input'),
				'Grace',
			);
			await setParameter(
				ndv().locator('[data-test-id="parameter-input-lastName"] input'),
				'Hopper',
			);
			const before = sandbox.customers.length;
			await executeStep();
			const id = await createdCustomerId();
			expect(sandbox.customers).toHaveLength(before + 1);
			expect(sandbox.customers.at(-1)).toMatchObject({
				id,
				businessId: wanted.id,
				firstName: 'Grace',
			});
		});
	});

	it('accepts a business ID in Business › By ID', async () => {
		await steps.run('execute create by id', async () => {
			const wanted = sandbox.businesses[2];
			const previous = sandbox.customers.at(-1);
			await businessLocator().locator('[data-test-id="rlc-mode-selector"]').click();
			await page.locator('.el-select-dropdown__item:visible', { hasText: 'By ID' }).click();
			// n8n keeps the listed business's ID when the mode changes; wait until that is done, or
			// it can land after (and over) the ID typed next.
			await waitForValue(BUSINESS_INPUT, previous?.businessId ?? '');
			await setParameter(page.locator(BUSINESS_INPUT), wanted.id);
			// Reopened, the node shows what n8n stored rather than what the field holds.
			await page.locator('[data-test-id="ndv-close-button"]').click();
			await ndv().waitFor({ state: 'hidden' });
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: 'Create a customer' })
				.dblclick();
			await waitForValue(BUSINESS_INPUT, wanted.id);
			await executeStep();
			const id = await createdCustomerId(previous?.id);
			expect(sandbox.customers.at(-1)).toMatchObject({ id, businessId: wanted.id });
		});
	});

	it('warns in the output pane when a second click on Execute step adds the customer again', async () => {
		await steps.run('execute create again', async () => {
			const previous = sandbox.customers.at(-1);
			await executeStep();
			// The warning names the customer added before: read the new ID from its own words.
			await outputPanel().getByText(EACH_RUN_ADDS_AGAIN, { exact: false }).first().waitFor();
			const shown = await outputPanel().innerText();
			const id = /created as (cust_[0-9a-f]+)/.exec(shown)?.[1];
			expect(id).toBe(sandbox.customers.at(-1)?.id);
			expect(shown).toContain(
				`Possible duplicate: row 1 (Grace Hopper), created as ${String(id)}, has the same first and last name as ${String(previous?.id)}`,
			);
		});
	});

	it("shows the node's error and advice for a first name of spaces, and no API key", async () => {
		await steps.run('bad input', async () => {
			const posts = sandbox.requests.filter((r) => r.method === 'POST').length;
			await setParameter(ndv().locator('[data-test-id="parameter-input-firstName"] input'), '   ');
			await executeStep();
			const message = outputPanel().getByText(BLANK_FIRST_NAME.message);
			await message.waitFor();
			await outputPanel().getByText(BLANK_FIRST_NAME.advice).waitFor();
			// Open every section of the error details, so the key check sees them too.
			for (const section of ['From Business CRM', 'Other info']) {
				await outputPanel().getByText(section).click();
			}
			expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(posts);
		});
	});

	it('reads every customer with Get Many and Return All: the output shows the count the sandbox holds', async () => {
		await setParameter(ndv().locator('[data-test-id="parameter-input-firstName"] input'), 'Ada');
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await ndv().waitFor({ state: 'hidden' });
		await steps.run('get many return all', async () => {
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			await openNodeActions();
			await expandNodeCreatorCategory(page, 'Actions', ACTIONS.length);
			await creator()
				.locator('[data-test-id="item-iterator-item"]', { hasText: /^Get many customers$/ })
				.click();
			await ndv().locator('[data-test-id="parameter-input-returnAll"]').click();
			await ndv().locator('[data-test-id="parameter-input-limit"]').waitFor({ state: 'hidden' });
			sandbox.clearLog();
			await executeStep();
			// The panel's text runs together ("OUTPUT243 items"), so no \b before the count.
			const text = await waitForText(outputPanel(), /\d+ items/, 60_000);
			const shown = Number(/(\d+) items/.exec(text)?.[1]);
			expect(shown).toBe(sandbox.customers.length);
			expect(shown).toBeGreaterThan(200);
			const reads = sandbox.requests.filter((r) => r.path === CUSTOMERS);
			// The read of Get Many, the last one: n8n runs the edited Create before it again, and a
			// Create run from the editor reads the list for its duplicate warning first.
			const pages = reads.slice(reads.map((r) => r.query.offset).lastIndexOf('0'));
			// Pages of 100 overlap by one customer; after the first, 99 and 198 are read at once and
			// may arrive in either order.
			expect(pages.map((r) => Number(r.query.offset)).sort((a, b) => a - b)).toEqual([0, 99, 198]);
		});
	});

	it("fetches the trigger's test event: the output panel shows the newest customer's cust_ id", async () => {
		await closeNdv();
		await steps.run('trigger fetch test event', async () => {
			await page.locator('[data-test-id="node-creator-plus-button"]').click();
			await openNodeActions();
			await expandNodeCreatorCategory(page, 'Triggers', 1);
			await creator()
				.locator('[data-test-id="item-iterator-item"]', { hasText: TRIGGER_ACTION })
				.click();
			await ndv().locator('[data-test-id="parameter-input-event"]').waitFor();
			// The only credential of its type is picked for the new node.
			await waitForValue(
				'[data-test-id="ndv"] [data-test-id="node-credentials-select"] input',
				'Business CRM account',
			);
			const newest = sandbox.customers.at(-1)?.id ?? '';
			expect(newest).toMatch(CUSTOMER_ID);
			// Before the first event, the README's two names for the button are both on screen.
			await outputPanel().getByText(TEST_THIS_TRIGGER, { exact: true }).first().waitFor();
			await ndv()
				.locator('[data-test-id="node-execute-button"]', { hasText: FETCH_TEST_EVENT })
				.click();
			await outputPanel().filter({ hasText: newest }).waitFor();
			const shown = (await outputPanel().innerText()).match(new RegExp(CUSTOMER_ID, 'g'));
			expect([...new Set(shown)]).toEqual([newest]);
		});
	});
	it('names the Email label for a custom field "Email" on Create', async () => {
		await closeNdv();
		await steps.run('custom field email', async () => {
			await openNode('Create a customer');
			const posts = sandbox.requests.filter((r) => r.method === 'POST').length;
			await ndv()
				.locator('[data-test-id="collection-parameter-add"] input[placeholder="Add Field"]')
				.click();
			await page
				.locator('.el-select-dropdown__item:visible', { hasText: /^Custom Fields$/ })
				.click();
			await ndv().getByRole('button', { name: 'Add Custom Field' }).click();
			await setParameter(ndv().locator('[data-test-id="parameter-input-name"] input'), 'Email');
			await setParameter(
				ndv().locator('[data-test-id="parameter-input-value"] input'),
				'ada@example.com',
			);
			await executeStep();
			await expectNodeError(CUSTOM_FIELD_EMAIL.message, CUSTOM_FIELD_EMAIL.advice);
			expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(posts);
		});
	});

	it('explains a Base URL typed without a scheme, against a plain-HTTP server', async () => {
		await steps.run('base url without scheme', async () => {
			await setParameter(
				ndv().locator('[data-test-id="parameter-input-name"] input'),
				'leadSource',
			);
			await openNewCredential();
			await credentialModal().locator('[data-test-id="parameter-input-apiKey"]').waitFor();
			await fillCredential(sandbox.apiKey, sandbox.url.replace(/^http:\/\//, ''));
			await credentialModal().getByText(modalTexts.failure).waitFor();
			await credentialModal().getByRole('button', { name: 'Close this dialog' }).click();
			await credentialModal().waitFor({ state: 'hidden' });
			await waitForValue(
				'[data-test-id="ndv"] [data-test-id="node-credentials-select"] input',
				'Business CRM account 2',
			);
			const customers = sandbox.customers.length;
			await executeStep();
			await expectNodeError(NO_SCHEME);
			expect(sandbox.customers).toHaveLength(customers);
		});
	});

	it("names the node's Settings tab when a 429 outlasts Options › Max Retries", async () => {
		await steps.run('rate limit past the retries', async () => {
			await ndv().locator('[data-test-id="node-credentials-select"]').click();
			await page
				// Each item is the credential's name, then its type's.
				.locator('.el-select-dropdown__item:visible', {
					hasText: /^Business CRM account\s*Business CRM API/,
				})
				.click();
			await waitForValue(
				'[data-test-id="ndv"] [data-test-id="node-credentials-select"] input',
				'Business CRM account',
			);
			await ndv()
				.locator('[data-test-id="collection-parameter-add"] input[placeholder="Add option"]')
				.click();
			await page.locator('.el-select-dropdown__item:visible', { hasText: /^Max Retries$/ }).click();
			await setParameter(ndv().locator('[data-test-id="parameter-input-maxRetries"] input'), '0');
			sandbox.setFaults({ rateLimitBurst: { path: CREATE_CUSTOMER, method: 'POST' } });
			try {
				const customers = sandbox.customers.length;
				sandbox.clearLog();
				await executeStep();
				await expectNodeError(/rate limit/i, RATE_LIMIT_ADVICE);
				expect(sandbox.customers).toHaveLength(customers);
				// Max Retries 0: the one request and no retry.
				expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
			} finally {
				sandbox.resetFaults();
			}
		});
	});

	it("imports every example from a workflow's … menu, Import from file..., as the README says: each sticky note shows its whole text, over no node, and no node sits under the Execute workflow button", async () => {
		const examples = readdirSync(join(REPO_ROOT, 'examples')).filter((f) => f.endsWith('.json'));
		for (const file of examples.sort()) {
			await steps.run(`import ${file.replace(/\.json$/, '')}`, async () => {
				await page.goto(`${n8n.url}/workflow/new`);
				await page.locator('[data-test-id="workflow-menu"]').click();
				// The menu items as the README names them: one item on 2.8.4, a submenu on 2.41.
				const item = page.getByText('Import from file...', { exact: true });
				const submenu = page.getByText('Import', { exact: true });
				await item.or(submenu).first().waitFor();
				const chooser = page.waitForEvent('filechooser');
				if (await item.isVisible()) await item.click();
				else {
					await submenu.hover();
					await page.getByText('From file', { exact: true }).click();
				}
				await (await chooser).setFiles(join(REPO_ROOT, 'examples', file));
				const { nodes } = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as {
					nodes: Array<{ name: string; type: string }>;
				};
				const shown = nodes.filter((node) => !node.type.endsWith('stickyNote'));
				await page
					.locator('[data-test-id="canvas-node"]')
					.nth(shown.length - 1)
					.waitFor();
				await page.locator('[data-test-id="sticky"]').first().waitFor();
				// As a user sees it after Zoom to Fit, once the canvas stops moving.
				await page.locator('[data-test-id="zoom-to-fit"]').click();
				const pane = page.locator('.vue-flow__transformationpane');
				let previous: string | null = null;
				for (let check = 0; check < 20; check++) {
					await page.waitForTimeout(250);
					const now = await pane.getAttribute('style');
					if (now === previous) break;
					previous = now;
				}
				const layout = await page.evaluate(() => {
					const box = (el: Element) => {
						const r = el.getBoundingClientRect();
						return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
					};
					const stickies = Array.from(document.querySelectorAll('[data-test-id="sticky"]')).map(
						(el) => {
							const texts = Array.from(el.querySelectorAll('p, li, h1, h2, h3, h4'));
							const last = texts[texts.length - 1];
							return { box: box(el), textBottom: last ? last.getBoundingClientRect().bottom : 0 };
						},
					);
					const nodes = Array.from(document.querySelectorAll('[data-test-id="canvas-node"]'))
						.filter((el) => el.querySelector('[data-test-id="sticky"]') === null)
						.map((el) => ({ name: el.textContent ?? '', box: box(el) }));
					const button = document.querySelector('[data-test-id="execute-workflow-button"]');
					return { stickies, nodes, button: button ? box(button) : undefined };
				});
				type Box = { left: number; top: number; right: number; bottom: number };
				const overlap = (a: Box, b: Box) =>
					a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
				for (const sticky of layout.stickies) {
					expect(sticky.textBottom).toBeLessThanOrEqual(sticky.box.bottom);
					expect(
						layout.nodes.filter((node) => overlap(node.box, sticky.box)).map((n) => n.name),
					).toEqual([]);
				}
				if (layout.button) {
					const under = layout.nodes.filter((node) => overlap(node.box, layout.button!));
					expect(under.map((node) => node.name)).toEqual([]);
				}
			});
		}
	});
});
