/**
 * What the editor suites that save their own workflows share: a workflow of nodes in a row, and
 * one n8n with the package, those workflows saved through its REST API and a signed-in Chromium.
 */
import type { Locator, Page } from 'playwright-core';
import type { Sandbox } from '../sandbox/server.cjs';
import { rest, setupOwner, startN8n, type RunningN8n, type Session } from '../e2e/n8n.cjs';
import { EXAMPLE_CREDENTIAL_ID, prepareN8n, type PreparedN8n } from '../e2e/workflows.cjs';
import { launchBrowser, signIn, Steps, type RunningBrowser } from './browser.cjs';

/** The sandbox credential every saved workflow's Business CRM node uses. */
export const CREDENTIALS = {
	businessCrmApi: { id: EXAMPLE_CREDENTIAL_ID, name: 'Business CRM account' },
};

export type EditorNode = Record<string, unknown> & { name: string };

/** A workflow of nodes in a row, each feeding the next. */
export function chain(name: string, nodes: EditorNode[]) {
	const placed = nodes.map((node, index) => ({
		...node,
		id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
		position: [index * 240, 0],
	}));
	const connections: Record<string, unknown> = {};
	placed.slice(1).forEach((node, index) => {
		connections[placed[index].name] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
	});
	return { name, nodes: placed, connections, settings: { executionOrder: 'v1' } };
}

export interface EditorSession {
	prepared: PreparedN8n;
	n8n: RunningN8n;
	session: Session;
	browser: RunningBrowser;
	page: Page;
	steps: Steps;
	/** The saved workflows' ids, by the keys they were given. */
	workflows: Record<string, string>;
	ndv(): Locator;
	outputPanel(): Locator;
	/** Opens a saved workflow on the canvas, by its key. */
	openWorkflow(key: string): Promise<void>;
	/** Opens a node of the canvas in the node details view, by its title. */
	openNode(title: string): Promise<void>;
	closeNdv(): Promise<void>;
	/** The node details view's Execute step. */
	executeStep(): Promise<void>;
	close(): Promise<void>;
}

/**
 * Starts n8n with the package for `sandbox`, saves `definitions` (inactive), and signs in a
 * Chromium whose steps save screenshots under `label` and fail on any of the sandbox's keys.
 */
export async function openEditor(
	sandbox: Sandbox,
	label: string,
	definitions: Record<string, ReturnType<typeof chain>>,
): Promise<EditorSession> {
	const prepared = await prepareN8n(sandbox);
	const n8n = await startN8n(prepared.folder);
	const session = await setupOwner(n8n.url);
	const workflows: Record<string, string> = {};
	for (const [key, workflow] of Object.entries(definitions)) {
		const saved = await rest<{ id: string }>(n8n.url, session, 'POST', '/workflows', {
			...workflow,
			active: false,
		});
		workflows[key] = saved.id;
	}
	const browser = await launchBrowser();
	const page = browser.page;
	const steps = new Steps(page, label, [
		sandbox.apiKey,
		sandbox.otherOrgApiKey,
		sandbox.readOnlyApiKey,
	]);
	await signIn(page, n8n.url);
	const ndv = () => page.locator('[data-test-id="ndv"]');
	return {
		prepared,
		n8n,
		session,
		browser,
		page,
		steps,
		workflows,
		ndv,
		outputPanel: () => page.locator('[data-test-id="output-panel"]'),
		openWorkflow: async (key) => {
			await page.goto(`${n8n.url}/workflow/${workflows[key]}`);
			await page.locator('[data-test-id="canvas-node"]').first().waitFor();
		},
		openNode: async (title) => {
			await page.locator('[data-test-id="canvas-node"]').filter({ hasText: title }).dblclick();
			await ndv().waitFor();
		},
		closeNdv: async () => {
			await page.locator('[data-test-id="ndv-close-button"]').click();
			await ndv().waitFor({ state: 'hidden' });
		},
		executeStep: async () => {
			await ndv().locator('[data-test-id="node-execute-button"]').first().click();
		},
		close: async () => {
			await browser.close();
			await n8n.stop();
			prepared.folder.remove();
		},
	};
}
