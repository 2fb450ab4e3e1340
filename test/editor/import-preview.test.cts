/**
 * Customer › Create's Preview Only and a real import the API stops, as a user sees them in the
 * editor of a real n8n (e2eTarget(), 2.8.4 by default) against the sandbox API: the preview's
 * output panel (`"preview": true`, each row's outcome, the refused row's error) with no Create
 * sent; then Preview Only switched off on five rows whose third has an email the API refuses, and
 * the error panel naming that row and the rows created before the node stopped. The workflows are
 * saved through n8n's REST API; every check is on what the page shows.
 * Screenshots go to .test-output/editor-screenshots/import-preview/.
 */
import type { Page } from 'playwright-core';

import { API_ANSWERED, STATUS_HINTS } from '../../nodes/BusinessCrm/errors/errors';
import {
	NO_OTHER_ROW,
	NONE_CREATED,
	rowLabel,
	STOPPED_BEFORE,
} from '../../nodes/BusinessCrm/resources/customer/create/importRun';
import { previewResult } from '../../nodes/BusinessCrm/resources/customer/create/preview';
import {
	NO_MATCH_VALUE_CHOICES,
	NO_MATCH_VALUE_TO_ERROR_OUTPUT,
} from '../../nodes/BusinessCrm/resources/customer/create/skipExisting';
import { MATCH_KEY_NAMES } from '../../nodes/BusinessCrm/state/customerIndex';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { createFromRows } from '../e2e/workflows.cjs';
import { waitForText, type Steps } from './browser.cjs';
import { chain, CREDENTIALS, openEditor, type EditorSession } from './session.cjs';

/*
 * Texts built from parts or given by the sandbox, so written out here: the refusal of a row
 * without an email (its first words) and the API's own words for an email it refuses.
 */
const NO_EMAIL = `${MATCH_KEY_NAMES.email} is empty, so the node cannot tell whether this customer already exists`;
const API_REFUSES_EMAIL = 'email must be a valid email address';

const CUSTOMER_ID = /cust_[0-9a-f]{16}/g;

type Row = { firstName: string; lastName: string; email?: string };

/** Start, a Code node giving the rows, and a Create with Skip Existing on email and Preview Only. */
function importWorkflow(name: string, businessId: string, rows: Row[]) {
	return chain(name, [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		{
			name: 'Rows',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: { jsCode: `return ${JSON.stringify(rows.map((json) => ({ json })))};` },
		},
		{
			name: 'Import Customers',
			type: 'n8n-nodes-business-crm.businessCrm',
			typeVersion: 1,
			parameters: createFromRows(businessId, {
				skipExisting: true,
				matchOn: 'email',
				previewOnly: true,
			}),
			credentials: CREDENTIALS,
		},
	]);
}

/** "Row 3 (Barbara Liskov)", as an error names a row. */
const errorLabel = (index: number, row: Row) =>
	rowLabel(index, row.firstName, row.lastName).replace(/^row/, 'Row');

const PREVIEW_ROWS: Row[] = [
	{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
	{ firstName: 'Katherine', lastName: 'Johnson', email: 'katherine@example.com' },
	{ firstName: 'Edsger', lastName: 'Dijkstra' },
];
/** Five new customers; the API refuses the third one's email. */
const IMPORT_ROWS: Row[] = [
	{ firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
	{ firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' },
	{ firstName: 'Barbara', lastName: 'Liskov', email: 'not-an-email' },
	{ firstName: 'Donald', lastName: 'Knuth', email: 'donald@example.com' },
	{ firstName: 'Margaret', lastName: 'Hamilton', email: 'margaret@example.com' },
];

describe('Create with Preview Only, and a real import the API stops, in the editor', () => {
	let sandbox: Sandbox;
	let editor: EditorSession;
	let page: Page;
	let steps: Steps;
	let adaId: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2, customers: 6 });
		const home = sandbox.businesses[0].id;
		// Ada is already a customer of the business: the preview finds her.
		const [ada] = sandbox.addCustomers(1, { businessId: home });
		Object.assign(ada, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
		adaId = ada.id;
		const definitions = {
			preview: importWorkflow('Preview an import', home, PREVIEW_ROWS),
			stopped: importWorkflow('An import the API stops', home, IMPORT_ROWS),
		};
		editor = await openEditor(sandbox, 'import-preview', definitions);
		({ page, steps } = editor);
	});

	afterAll(async () => {
		await editor?.close();
		await sandbox?.close();
	});

	const creates = () =>
		sandbox.requests.filter(
			(r) => r.method === 'POST' && r.path === '/api/business/crm/customer/add',
		);

	/** The output panel in its JSON view, every item drawn whole (each preview mark ends in "preview"). */
	async function outputJson(items: number): Promise<string> {
		await waitForText(editor.outputPanel(), new RegExp(`${items} items?`), 60_000);
		await editor
			.outputPanel()
			.locator('[data-test-id="ndv-run-data-display-mode"] [data-test-id="radio-button-json"]')
			.click();
		await editor.outputPanel().getByText('"_skipExisting"').first().waitFor();
		// The JSON view draws only the lines in sight: a tall window shows every item.
		const size = page.viewportSize();
		await page.setViewportSize({ width: 1440, height: 2400 });
		try {
			await editor
				.outputPanel()
				.getByText('"preview"')
				.nth(items - 1)
				.waitFor();
			// One line per key and value, indented with no-break spaces: one space between words.
			return (await editor.outputPanel().innerText()).replace(/\s+/g, ' ');
		} finally {
			if (size) await page.setViewportSize(size);
		}
	}

	/** The JSON view's text, item by item: each item starts at its `"id"` line. */
	const itemsOf = (text: string) => text.split(/(?="id":)/).slice(1);
	/** A string as the JSON view shows it: quoted and escaped, on one line. */
	const shown = (value: string) => JSON.stringify(value);

	it('Preview Only: the output shows "preview": true and each row\'s outcome, and nothing is created', async () => {
		await steps.run('preview only output', async () => {
			await editor.openWorkflow('preview');
			await editor.openNode('Import Customers');
			await editor
				.ndv()
				.getByText('Preview Only (Write Nothing)', { exact: true })
				.first()
				.waitFor();
			sandbox.clearLog();
			const customers = sandbox.customers.length;
			await editor.executeStep();
			const [ada, katherine, edsger] = itemsOf(await outputJson(3));
			for (const item of [ada, katherine, edsger]) {
				expect(item).toContain('"preview": true');
				expect(item).toContain('"created": false');
			}
			expect(ada).toContain(`"id": "${adaId}"`);
			expect(ada).toContain('"outcome": "alreadyExists"');
			expect(ada).toContain('"skipped": true');
			expect(ada).toContain(`"result": ${shown(previewResult('alreadyExists', 'email'))}`);
			expect(katherine).toMatch(/^"id": null/);
			expect(katherine).toContain('"outcome": "created"');
			expect(katherine).toContain(`"result": ${shown(previewResult('created', 'email'))}`);
			expect(edsger).toMatch(/^"id": null/);
			expect(edsger).toContain('"outcome": "refused"');
			expect(edsger).toContain(
				`"result": ${shown(previewResult('refused', 'email', { error: NO_EMAIL }))}`,
			);
			// The error the real run would stop with, naming the row as a sheet counts it.
			expect(edsger).toContain(
				`"error": ${shown(`${errorLabel(2, PREVIEW_ROWS[2])}: ${NO_EMAIL}`).slice(0, -1)}`,
			);
			expect(edsger).toContain(
				shown(`${NO_MATCH_VALUE_TO_ERROR_OUTPUT} ${NO_MATCH_VALUE_CHOICES}`).slice(1, -1),
			);
			// The screenshot shows the refused row, at the end of the list.
			// The panel, not the text: n8n re-renders the JSON lines while they settle.
			await editor.outputPanel().hover();
			await page.mouse.wheel(0, 600);
			// Only the list read: no Create, nobody added.
			expect(creates()).toEqual([]);
			expect(sandbox.requests.map((r) => r.method)).not.toContain('POST');
			expect(sandbox.customers).toHaveLength(customers);
		});
		await editor.closeNdv();
	});

	it('Preview Only off: the API refuses row 3 mid-run; the error names it and the rows created before the node stopped', async () => {
		const before = sandbox.customers.length;
		await steps.run('preview of rows the api will refuse', async () => {
			await editor.openWorkflow('stopped');
			await editor.openNode('Import Customers');
			await editor.executeStep();
			// The preview cannot know the API's own checks: row 3 would be created, as far as it can tell.
			const text = await outputJson(5);
			expect(text.match(/"outcome": "created"/g)).toHaveLength(5);
			expect(creates()).toEqual([]);
		});
		await steps.run('real run stopped by the api', async () => {
			const toggle = editor
				.ndv()
				.locator('[data-test-id="parameter-input-previewOnly"] .el-switch');
			await toggle.click();
			await editor
				.ndv()
				.locator('[data-test-id="parameter-input-previewOnly"] .el-switch:not(.is-checked)')
				.waitFor();
			sandbox.clearLog();
			await editor.executeStep();
			const refused = errorLabel(2, IMPORT_ROWS[2]);
			await editor.outputPanel().getByText(`${refused}: `).first().waitFor({ timeout: 60_000 });
			const panel = await waitForText(editor.outputPanel(), new RegExp(NO_OTHER_ROW));
			const oneLine = panel.replace(/\s+/g, ' ');
			expect(oneLine).toContain(`${refused}: Create customer failed: ${API_ANSWERED} 400`);
			expect(oneLine).toContain(API_REFUSES_EMAIL);
			expect(oneLine).toContain(STATUS_HINTS[400]);

			// What the error says was created is what the sandbox holds: each row with its id. How
			// many is up to timing: n8n hands the rows over at once, the node sends each when its
			// turn comes, and withdraws those not yet sent once row 3 fails.
			const created = sandbox.customers.slice(before);
			expect(created.map((c) => c.email)).not.toContain('not-an-email');
			const listed = created
				.map((c) => IMPORT_ROWS.findIndex((row) => row.email === c.email))
				.sort((a, b) => a - b)
				.map((index) => {
					const id = created.find((c) => c.email === IMPORT_ROWS[index].email)?.id;
					return `${rowLabel(index, IMPORT_ROWS[index].firstName, IMPORT_ROWS[index].lastName)} as ${id}`;
				});
			if (created.length === 0) expect(oneLine).toContain(NONE_CREATED);
			else {
				const count = created.length === 1 ? '1 row was' : `${created.length} rows were`;
				expect(oneLine).toContain(`${STOPPED_BEFORE} ${count} created: ${listed.join('; ')}. `);
			}
			expect(oneLine).toContain(NO_OTHER_ROW);
			// No id on screen that the sandbox does not hold.
			const ids = new Set(created.map((c) => c.id));
			expect([...new Set(oneLine.match(CUSTOMER_ID))].filter((id) => !ids.has(id))).toEqual([]);
			// Each Create sent is one of these rows or the refused one; nothing was sent after.
			expect(creates()).toHaveLength(created.length + 1);
		});
		await editor.closeNdv();
	});
});
