/**
 * n8n's schema preview as a user meets it (issue 47): before anything ran, the input panel of the
 * node after a Customer › Create lists the fields of Create's output, read from the package's
 * `__schema__` files. The real-n8n suite runs it in the n8n it started, on every n8n line.
 */
import type { Sandbox } from '../sandbox/server.cjs';
import { rest, type Session } from '../e2e/n8n.cjs';
import { launchBrowser, Steps, waitForText } from './browser.cjs';
import { chain, CREDENTIALS } from './session.cjs';
import { SCHEMA_PREVIEW } from './texts.cjs';

/** The node whose input panel shows the preview. */
const NEXT_NODE = 'Get Business';
/** n8n 1.123.81 can take more than the usual 30 s to draw a canvas on a busy machine. */
const CANVAS_TIMEOUT = 90_000;

/** Start, a Create, and a Business › Get of the business it gives. */
export function schemaPreviewWorkflow(businessId: string) {
	return chain('Add a customer, then get its business', [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		{
			name: 'Add Customer',
			type: 'n8n-nodes-business-crm.businessCrm',
			typeVersion: 1,
			parameters: {
				resource: 'customer',
				operation: 'create',
				businessId: { __rl: true, mode: 'id', value: businessId },
				firstName: 'Ada',
				lastName: 'Lovelace',
			},
			credentials: CREDENTIALS,
		},
		{
			name: NEXT_NODE,
			type: 'n8n-nodes-business-crm.businessCrm',
			typeVersion: 1,
			parameters: {
				resource: 'business',
				operation: 'get',
				businessId: { __rl: true, mode: 'id', value: '={{ $json.businessId }}' },
			},
			credentials: CREDENTIALS,
		},
	]);
}

/** The field names a JSON Schema gives n8n's schema view, nested ones after their parent. */
export function previewNames(schema: { properties?: unknown }): string[] {
	const properties = (schema.properties ?? {}) as Record<string, { properties?: unknown }>;
	return Object.entries(properties).flatMap(([name, field]) => [name, ...previewNames(field)]);
}

/**
 * Saves the workflow through n8n's REST API, opens it in a signed-in Chromium, opens the node
 * after the Create and returns the field names its input panel lists under n8n's preview notice.
 * Screenshots under .test-output/editor-screenshots/<label>/.
 */
export async function previewedFields(
	url: string,
	session: Session,
	sandbox: Sandbox,
	label: string,
): Promise<string[]> {
	const workflow = schemaPreviewWorkflow(sandbox.businesses[0].id);
	const { id } = await rest<{ id: string }>(url, session, 'POST', '/workflows', {
		...workflow,
		active: false,
	});
	const browser = await launchBrowser();
	const { page } = browser;
	const steps = new Steps(page, label, [
		sandbox.apiKey,
		sandbox.otherOrgApiKey,
		sandbox.readOnlyApiKey,
	]);
	let names: string[] = [];
	try {
		// Tall enough for every field: the schema view draws only the rows in sight.
		await page.setViewportSize({ width: 1440, height: 1800 });
		// Signed in with the REST session's cookie: one load of the editor fewer than the form.
		const [name, value] = session.cookie.split(/=(.*)/);
		await browser.context.addCookies([{ name, value, url }]);
		await steps.run('open the node after the Create', async () => {
			await page.goto(`${url}/workflow/${id}`);
			const nodes = page.locator('[data-test-id="canvas-node"]');
			await nodes.first().waitFor({ timeout: CANVAS_TIMEOUT });
			await nodes.filter({ hasText: NEXT_NODE }).dblclick();
			await page.locator('[data-test-id="ndv"]').waitFor();
		});
		await steps.run("the input panel previews the Create's fields", async () => {
			const input = page.locator('[data-test-id="ndv-input-panel"]');
			await waitForText(input.locator('[data-test-id="schema-preview-warning"]'), SCHEMA_PREVIEW);
			const titles = input.locator('[data-test-id="run-data-schema-item"] .title');
			names = (await titles.allInnerTexts()).map((name) => name.trim());
		});
	} finally {
		await browser.close();
	}
	return names;
}
