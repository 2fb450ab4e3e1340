/**
 * n8n's schema preview as a user meets it (issue 47): before anything ran, the input panels of the
 * nodes after a Customer › Create, a Customer › Get Many and a Customer › Find list the fields of
 * each one's output, read from the package's `__schema__` files. The real-n8n suite runs it in the n8n it started, on every n8n line.
 */
import type { Sandbox } from '../sandbox/server.cjs';
import { rest, type Session } from '../e2e/n8n.cjs';
import { launchBrowser, Steps, waitForText } from './browser.cjs';
import { chain, CREDENTIALS } from './session.cjs';
import { SCHEMA_PREVIEW } from './texts.cjs';

/** Each node of the chain, by the node before it whose output its input panel previews. */
export const PREVIEWED = {
	'List Customers': 'create',
	'Find Customer': 'getAll',
	'Get Business': 'find',
} as const;
/** n8n 1.123.81 can take more than the usual 30 s to draw a canvas on a busy machine. */
const CANVAS_TIMEOUT = 90_000;

const crmNode = (name: string, parameters: Record<string, unknown>) => ({
	name,
	type: 'n8n-nodes-business-crm.businessCrm',
	typeVersion: 1,
	parameters,
	credentials: CREDENTIALS,
});

/** Start, then Create, Get Many, Find and Business › Get, each fed by the one before. */
export function schemaPreviewWorkflow(businessId: string) {
	return chain('Add a customer, list, find, then get its business', [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		crmNode('Add Customer', {
			resource: 'customer',
			operation: 'create',
			businessId: { __rl: true, mode: 'id', value: businessId },
			firstName: 'Ada',
			lastName: 'Lovelace',
		}),
		crmNode('List Customers', { resource: 'customer', operation: 'getAll', limit: 5 }),
		crmNode('Find Customer', {
			resource: 'customer',
			operation: 'find',
			findBy: 'id',
			customerId: '={{ $json.id }}',
		}),
		crmNode('Get Business', {
			resource: 'business',
			operation: 'get',
			businessId: { __rl: true, mode: 'id', value: '={{ $json.businessId }}' },
		}),
	]);
}

/** The field names a JSON Schema gives n8n's schema view, nested ones after their parent. */
export function previewNames(schema: { properties?: unknown }): string[] {
	const properties = (schema.properties ?? {}) as Record<string, { properties?: unknown }>;
	return Object.entries(properties).flatMap(([name, field]) => [name, ...previewNames(field)]);
}

/**
 * The names n8n's schema view shows, less the first items of lists: n8n 2.8.4 lists a list's
 * item under it as `name[0]` (`partialMatches[0]`), and previewNames, like the schema, names the
 * list alone.
 */
export function withoutListItems(names: string[]): string[] {
	return names.filter((name) => !/\[\d+\]$/.test(name));
}

/**
 * Saves the workflow through n8n's REST API, opens it in a signed-in Chromium, and for each node
 * of PREVIEWED opens it and returns the field names its input panel lists under n8n's preview
 * notice. Screenshots under .test-output/editor-screenshots/<label>/.
 */
export async function previewedFields(
	url: string,
	session: Session,
	sandbox: Sandbox,
	label: string,
): Promise<Record<keyof typeof PREVIEWED, string[]>> {
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
	const shown = {} as Record<keyof typeof PREVIEWED, string[]>;
	try {
		// Tall enough for every field: the schema view draws only the rows in sight.
		await page.setViewportSize({ width: 1440, height: 1800 });
		// Signed in with the REST session's cookie: one load of the editor fewer than the form.
		const [name, value] = session.cookie.split(/=(.*)/);
		await browser.context.addCookies([{ name, value, url }]);
		await page.goto(`${url}/workflow/${id}`);
		const nodes = page.locator('[data-test-id="canvas-node"]');
		await nodes.first().waitFor({ timeout: CANVAS_TIMEOUT });
		const ndv = page.locator('[data-test-id="ndv"]');
		for (const node of Object.keys(PREVIEWED) as Array<keyof typeof PREVIEWED>) {
			// The panel stays open until the next node, so that the step's screenshot shows it.
			if (await ndv.isVisible()) {
				await page.keyboard.press('Escape');
				await ndv.waitFor({ state: 'hidden' });
			}
			await steps.run(`the input panel of ${node} previews the fields before it`, async () => {
				await nodes.filter({ hasText: node }).dblclick();
				const input = page.locator('[data-test-id="ndv-input-panel"]');
				await waitForText(input.locator('[data-test-id="schema-preview-warning"]'), SCHEMA_PREVIEW);
				const titles = input.locator('[data-test-id="run-data-schema-item"] .title');
				shown[node] = (await titles.allInnerTexts()).map((text) => text.trim());
			});
		}
	} finally {
		await browser.close();
	}
	return shown;
}
