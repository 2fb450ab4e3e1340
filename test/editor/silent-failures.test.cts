/**
 * Issue 26's silent failures, as a user meets them in the editor of a real n8n (e2eTarget(), 2.8.4
 * by default) against the sandbox API: Skip if the Customer Already Exists on rows without an
 * email and across businesses, `{{ $json.id }}` downstream of a skipped row, a mistyped Business
 * ID in Get Many's filter and in the trigger, Find by Phone in another format, the trigger's
 * notice. The workflows are saved through n8n's REST API; every check is on what the page shows.
 * Screenshots go to .test-output/editor-screenshots/silent-failures/.
 */
import type { Page } from 'playwright-core';

import { startSandbox, type Sandbox, type SandboxCustomer } from '../sandbox/server.cjs';
import { waitForText, type Steps } from './browser.cjs';
import { chain, CREDENTIALS, openEditor, type EditorNode, type EditorSession } from './session.cjs';
import { FETCH_TEST_EVENT } from './texts.cjs';
import {
	NO_MATCH_VALUE_CHOICES,
	NO_MATCH_VALUE_TO_ERROR_OUTPUT,
} from '../../nodes/BusinessCrm/resources/customer/create/skipExisting';
import { FIND_HINT } from '../../nodes/BusinessCrm/resources/customer/findHint';

/** What these features show on screen (labels, option names, errors, the trigger's notice). */
const SKIP_EXISTING_LABELS = [
	'Skip if the Customer Already Exists',
	'Match On',
	'Match Within',
	'Rows Without a Match Value',
];
const NO_MATCH_VALUE_OPTIONS = [
	'Stop With an Error',
	'Output the Row Without Creating It',
	'Create the Customer Anyway',
];
const SKIP_EXISTING_TOOLTIP =
	/Whether to look the customer up first and, when it is already in the CRM, output the existing customer instead of adding it again/;
const MATCH_WITHIN_TOOLTIP = /Which customers count as the same/;
const MATCH_WITHIN_OPTIONS = [
	'Only a customer of the business above is a match',
	'A customer of any business in the organization is a match',
];
const TRIGGER_BUSINESS_TOOLTIP = /Only start for customers of this business/;
const GET_MANY_BUSINESS_TOOLTIP = /Only the customers of this business/;
const FIND_PHONE_TOOLTIP = /\(202\) 555-0236 finds \+1 202 555 0236/;
const NO_MATCH_VALUE_SKIP =
	/Create nothing and output the row with an empty ID, _skipExisting.created false and skipped false/;
/** The default for a row without an email: an error on screen that says why and what to do. */
const NO_EMAIL_ERROR =
	'Email is empty, so the node cannot tell whether this customer already exists';
const EMPTY_FILTER_ERROR =
	'Filters › Business is empty, so the node would read the customers of every business';
const EMPTY_FILTER_ADVICE = /To read the customers of every business, remove the filter/;
const UNKNOWN_BUSINESS_ADVICE = /names a business the API does not know/;
const TRIGGER_NOTICE =
	'Only customers added after the workflow is published start it; the customers already there do not. Fetch Test Event shows the newest existing customer, so you can map its fields.';

const CUSTOMER_ID = /cust_[0-9a-f]{16}/g;
const UNKNOWN_BUSINESS = 'biz_0000000000000000';
const STORED_PHONE = '+1 202 555 0236';
const TYPED_PHONE = '(202) 555-0236';

const START: EditorNode = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	parameters: {},
};

function crm(name: string, parameters: Record<string, unknown>): EditorNode {
	return {
		name,
		type: 'n8n-nodes-business-crm.businessCrm',
		typeVersion: 1,
		parameters,
		credentials: CREDENTIALS,
	};
}

describe('silent failures made visible in the editor (issue 26)', () => {
	let sandbox: Sandbox;
	let editor: EditorSession;
	let page: Page;
	let steps: Steps;
	/** A customer of another business with the email the first row brings (item 2). */
	let otherBusinessAda: SandboxCustomer;
	let phoneCustomer: SandboxCustomer;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3, customers: 6 });
		const [home, other, third] = sandbox.businesses;
		otherBusinessAda = sandbox.addCustomers(1, { businessId: other.id })[0];
		otherBusinessAda.email = 'ada@example.com';
		phoneCustomer = sandbox.addCustomers(1, { businessId: third.id })[0];
		phoneCustomer.phone = STORED_PHONE;

		const rows = [
			{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
			{ firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' },
			{ firstName: 'Grace', lastName: 'Hopper' },
		];
		// Skip Existing on, and no email to look the row up by.
		const graceWithoutEmail = crm('Add Customer', {
			resource: 'customer',
			operation: 'create',
			businessId: { __rl: true, mode: 'id', value: home.id },
			firstName: 'Grace',
			lastName: 'Hopper',
			skipExisting: true,
		});
		const definitions = {
			skip: chain('Skip Existing', [
				START,
				{
					name: 'Rows',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					parameters: {
						jsCode: `return ${JSON.stringify(rows.map((json) => ({ json })))};`,
					},
				},
				crm('Add Customer', {
					resource: 'customer',
					operation: 'create',
					businessId: { __rl: true, mode: 'id', value: home.id },
					firstName: '={{ $json.firstName }}',
					lastName: '={{ $json.lastName }}',
					additionalFields: { email: '={{ $json.email }}' },
					skipExisting: true,
					matchOn: 'email',
					noMatchValue: 'skip',
				}),
				{
					name: 'Read ID',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					parameters: {
						assignments: {
							assignments: [
								{ id: 'a1', name: 'customerId', value: '={{ $json.id }}', type: 'string' },
							],
						},
						includeOtherFields: true,
						options: {},
					},
				},
			]),
			noEmail: chain('Skip Existing, a row without an email, as shipped', [
				START,
				graceWithoutEmail,
			]),
			noEmailErrorOutput: chain('Skip Existing, a row without an email, with an error output', [
				START,
				{ ...graceWithoutEmail, onError: 'continueErrorOutput' },
			]),
			emptyFilter: chain('Get Many with Filters › Business added but not picked', [
				START,
				crm('Get Customers', {
					resource: 'customer',
					operation: 'getAll',
					returnAll: true,
					filters: { businessId: { __rl: true, mode: 'list', value: '' } },
				}),
			]),
			getMany: chain('Get Many with a mistyped business', [
				START,
				crm('Get Customers', {
					resource: 'customer',
					operation: 'getAll',
					returnAll: true,
					filters: { businessId: { __rl: true, mode: 'id', value: UNKNOWN_BUSINESS } },
				}),
			]),
			find: chain('Find by phone', [
				START,
				crm('Find Customer', {
					resource: 'customer',
					operation: 'find',
					findBy: 'phone',
					phone: TYPED_PHONE,
				}),
			]),
			trigger: chain('Trigger with a mistyped business', [
				{
					name: 'New Customer',
					type: 'n8n-nodes-business-crm.businessCrmTrigger',
					typeVersion: 1,
					parameters: {
						event: 'newCustomer',
						options: { businessId: { __rl: true, mode: 'id', value: UNKNOWN_BUSINESS } },
					},
					credentials: CREDENTIALS,
				},
			]),
		};
		editor = await openEditor(sandbox, 'silent-failures', definitions);
		({ page, steps } = editor);
	});

	afterAll(async () => {
		await editor?.close();
		await sandbox?.close();
	});

	/** Hovers a parameter's label, then its help icon, and waits for the tooltip n8n shows. */
	async function readTooltip(label: string, text: RegExp): Promise<void> {
		await page.mouse.move(0, 0);
		const title = editor.ndv().locator('label.n8n-input-label', {
			has: page.getByText(label, { exact: true }),
		});
		await title.last().hover();
		await title.last().locator('[class*="infoIcon"] svg').first().hover();
		await page.locator('[data-test-id="tooltip-content"]', { hasText: text }).first().waitFor();
	}

	/** The output panel in its JSON view, which shows nested fields such as `_skipExisting`. */
	async function outputJson(items: number): Promise<string> {
		await waitForText(editor.outputPanel(), new RegExp(`${items} items?`), 60_000);
		const json = editor
			.outputPanel()
			.locator('[data-test-id="ndv-run-data-display-mode"] [data-test-id="radio-button-json"]');
		await json.click();
		await editor
			.outputPanel()
			.getByText('"_skipExisting"')
			.or(editor.outputPanel().getByText('"id"'))
			.first()
			.waitFor();
		// The JSON view draws only the lines in sight: a tall window shows every item's whole mark.
		const size = page.viewportSize();
		await page.setViewportSize({ width: 1440, height: 2400 });
		try {
			// Every item's mark ends with matchOn: the last item is drawn whole.
			await editor
				.outputPanel()
				.getByText('"matchOn"')
				.nth(items - 1)
				.waitFor();
			// One line per key and value, indented with no-break spaces: one space between words.
			return (await editor.outputPanel().innerText()).replace(/\s+/g, ' ');
		} finally {
			if (size) await page.setViewportSize(size);
		}
	}

	/** The JSON view's text, item by item: each item starts at its `"id"` line. */
	function itemsOf(text: string): string[] {
		return text.split(/(?="id":)/).slice(1);
	}

	const created = () =>
		sandbox.customers.filter(
			(c) => c.businessId === sandbox.businesses[0].id && /ada@|alan@/.test(c.email ?? ''),
		);

	it('1, 2: Skip if the Customer Already Exists: a row without an email is skipped and marked, a customer of another business is not a match', async () => {
		await steps.run('skip existing parameters', async () => {
			await editor.openWorkflow('skip');
			await editor.openNode('Add Customer');
			for (const label of SKIP_EXISTING_LABELS) {
				await editor.ndv().getByText(label, { exact: true }).first().waitFor();
			}
			await readTooltip('Skip if the Customer Already Exists', SKIP_EXISTING_TOOLTIP);
		});
		await steps.run('match within options', async () => {
			await readTooltip('Match Within', MATCH_WITHIN_TOOLTIP);
			await editor.ndv().locator('[data-test-id="parameter-input-matchWithin"]').click();
			for (const option of MATCH_WITHIN_OPTIONS) {
				await page.locator('.el-select-dropdown__item:visible', { hasText: option }).waitFor();
			}
		});
		await page.keyboard.press('Escape');
		await steps.run('rows without a match value options', async () => {
			// The default for rows without an email, and what it promises, as the dropdown shows it.
			await editor.ndv().locator('[data-test-id="parameter-input-noMatchValue"]').click();
			for (const option of NO_MATCH_VALUE_OPTIONS) {
				await page.locator('.el-select-dropdown__item:visible', { hasText: option }).waitFor();
			}
			await page.getByText(NO_MATCH_VALUE_SKIP).first().waitFor();
		});
		await page.keyboard.press('Escape');

		await steps.run('skip existing first run', async () => {
			const customers = sandbox.customers.length;
			await editor.executeStep();
			const text = await outputJson(3);
			// Ada and Alan are created in the chosen business, Ada although a customer of another
			// business has her email; Grace, without an email, is not.
			expect(sandbox.customers).toHaveLength(customers + 2);
			const [ada, alan, grace] = itemsOf(text);
			expect(ada).toContain('"outcome": "created"');
			expect(ada).not.toContain(otherBusinessAda.id);
			expect(ada).toContain(sandbox.businesses[0].id);
			expect(alan).toContain('"outcome": "created"');
			expect(grace).toMatch(/^"id": null/);
			expect(grace).toContain('"outcome": "notCreatedNoMatchValue"');
			// Not "skipped": a branch on it never takes Grace for a customer who is already there.
			expect(grace).toContain('"skipped": false');
			expect(grace).toContain('"created": false');
			expect(grace).toContain(
				'"result": "Not created: the row has no email to look the customer up by"',
			);
			expect(created()).toHaveLength(2);
			expect(sandbox.customers.some((c) => c.firstName === 'Grace')).toBe(false);
		});
	});

	it('1, 3: run again, the row without an email is not created; a node after Add Customer reads {{ $json.id }} of the skipped rows', async () => {
		await editor.closeNdv();
		// By name, not by the CRM's order: n8n sends a declarative node's items at the same time,
		// so Alan may reach the API before Ada.
		const idOf = (email: string) => created().find((c) => c.email?.startsWith(email))?.id;
		const ids = [idOf('ada@'), idOf('alan@')];
		expect(ids.every((id) => id !== undefined)).toBe(true);
		await steps.run('read id after skipped rows', async () => {
			const customers = sandbox.customers.length;
			// Execute step would reuse Add Customer's first run: the whole workflow runs again.
			await page.locator('[data-test-id="execute-workflow-button"]').click();
			await editor.openNode('Read ID');
			await editor
				.outputPanel()
				.getByText(/alreadyExists/)
				.first()
				.waitFor({ timeout: 60_000 });
			const text = await outputJson(3);
			expect(sandbox.customers).toHaveLength(customers);
			expect(text).toContain(`"customerId": "${ids[0]}"`);
			expect(text).toContain(`"customerId": "${ids[1]}"`);
			// The mark travels with the record, so a later If can test it.
			expect(text.match(/"_skipExisting"/g)).toHaveLength(3);
			expect(text.match(/"outcome": "alreadyExists"/g)).toHaveLength(2);
			expect(text).toContain('"outcome": "notCreatedNoMatchValue"');
			// A String field of a plain Set node takes the skipped row's empty ID without an error.
			expect(text).toContain('"customerId": null');
		});
		await editor.closeNdv();
		await steps.run('skip existing second run output', async () => {
			await editor.openNode('Add Customer');
			const text = await outputJson(3);
			// The screenshot shows the row without an email, at the end of the list.
			await editor.outputPanel().getByText('"Grace"').hover();
			await page.mouse.wheel(0, 600);
			const [ada, alan, grace] = itemsOf(text);
			expect(ada).toContain(`"id": "${ids[0]}"`);
			expect(ada).toContain('"skipped": true');
			expect(alan).toContain(`"id": "${ids[1]}"`);
			expect(grace).toMatch(/^"id": null/);
			expect(grace).toContain('"outcome": "notCreatedNoMatchValue"');
			expect(sandbox.customers.some((c) => c.firstName === 'Grace')).toBe(false);
		});
		await editor.closeNdv();
	});

	it('2: as shipped, a row without an email is an error that says why and how to go on, and nothing is created', async () => {
		await steps.run('no email as shipped', async () => {
			const customers = sandbox.customers.length;
			await editor.openWorkflow('noEmail');
			await editor.openNode('Add Customer');
			await editor.executeStep();
			await editor.outputPanel().getByText(NO_EMAIL_ERROR).first().waitFor({ timeout: 60_000 });
			await editor.outputPanel().getByText(NO_MATCH_VALUE_TO_ERROR_OUTPUT).first().waitFor();
			expect(sandbox.customers).toHaveLength(customers);
		});
		await editor.closeNdv();
	});

	it('2: with Settings › On Error already on Continue (using error output), the row on the error output is not told to set it', async () => {
		await steps.run('no email error output', async () => {
			await editor.openWorkflow('noEmailErrorOutput');
			await editor.openNode('Add Customer');
			await editor.executeStep();
			// n8n shows the error output's items under its own tab of the output panel.
			const errorBranch = editor
				.outputPanel()
				.locator('[data-test-id="branches"]')
				.getByText(/^Error/);
			await errorBranch.first().click({ timeout: 60_000 });
			await editor.outputPanel().getByText(NO_EMAIL_ERROR).first().waitFor();
			const text = await editor.outputPanel().innerText();
			expect(text).toContain(NO_MATCH_VALUE_CHOICES);
			expect(text).not.toContain(NO_MATCH_VALUE_TO_ERROR_OUTPUT);
		});
		await editor.closeNdv();
	});

	it('1: Get Many with Filters › Business added but not picked is an error naming the filter, not every customer', async () => {
		await steps.run('get many empty business filter', async () => {
			await editor.openWorkflow('emptyFilter');
			await editor.openNode('Get Customers');
			sandbox.clearLog();
			await editor.executeStep();
			await editor.outputPanel().getByText(EMPTY_FILTER_ERROR).first().waitFor({ timeout: 60_000 });
			await editor.outputPanel().getByText(EMPTY_FILTER_ADVICE).first().waitFor();
			expect(sandbox.requests.filter((r) => r.path === '/api/public/v1/customers')).toEqual([]);
		});
		await editor.closeNdv();
	});

	it('4: a mistyped Business ID in Get Many › Filters › Business is an error naming it', async () => {
		await steps.run('get many business description', async () => {
			await editor.openWorkflow('getMany');
			await editor.openNode('Get Customers');
			await readTooltip('Business', GET_MANY_BUSINESS_TOOLTIP);
		});
		await steps.run('get many unknown business', async () => {
			await page.mouse.move(0, 0);
			await editor.executeStep();
			await editor
				.outputPanel()
				.getByText(`No business ${UNKNOWN_BUSINESS} in this organization`)
				.first()
				.waitFor({ timeout: 60_000 });
			await editor.outputPanel().getByText(UNKNOWN_BUSINESS_ADVICE).first().waitFor();
		});
		await editor.closeNdv();
	});

	it('4, 6: the trigger shows its notice, and Fetch Test Event with an unknown Options › Business shows the error', async () => {
		await steps.run('trigger notice', async () => {
			await editor.openWorkflow('trigger');
			await editor.openNode('New Customer');
			await editor.ndv().getByText(TRIGGER_NOTICE).waitFor();
			await readTooltip('Business', TRIGGER_BUSINESS_TOOLTIP);
		});
		await steps.run('trigger unknown business', async () => {
			await editor
				.ndv()
				.locator('[data-test-id="node-execute-button"]', { hasText: FETCH_TEST_EVENT })
				.click();
			await editor
				.outputPanel()
				.getByText(`No business ${UNKNOWN_BUSINESS} in this organization`)
				.first()
				.waitFor({ timeout: 60_000 });
			// The test event is over: the panel stops listening, and offers Fetch Test Event again.
			await editor.ndv().getByText('Stop Listening').first().waitFor({ state: 'hidden' });
			await page.mouse.move(0, 0);
		});
		await editor.closeNdv();
	});

	it('5: Find by Phone "(202) 555-0236" finds the customer stored as "+1 202 555 0236"', async () => {
		await steps.run('find phone description', async () => {
			await editor.openWorkflow('find');
			await editor.openNode('Find Customer');
			await readTooltip('Phone', FIND_PHONE_TOOLTIP);
		});
		await steps.run('find by phone', async () => {
			await page.mouse.move(0, 0);
			await editor.executeStep();
			await editor.outputPanel().getByText(phoneCustomer.id).first().waitFor({ timeout: 60_000 });
			const text = await waitForText(editor.outputPanel(), /1 item/);
			expect([...new Set(text.match(CUSTOMER_ID))]).toEqual([phoneCustomer.id]);
			await editor.outputPanel().getByText(STORED_PHONE).first().waitFor();
			// The hint after a Find that found someone says nothing untrue of this run.
			const hintStart = FIND_HINT.slice(0, FIND_HINT.indexOf('.') + 1);
			await editor.outputPanel().getByText(hintStart).first().waitFor();
		});
		await editor.closeNdv();
	});
});
