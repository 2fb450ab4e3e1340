/**
 * A bulk import that stops part-way and is retried as the editor's Retry does it, in a real n8n:
 * with Skip Existing the CRM ends with every row once; without it, the rows that went through
 * the first time are added again.
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	executeWorkflow,
	importWorkflow,
	OWNER,
	rest,
	setupOwner,
	startN8n,
	type Credential,
	type Session,
	type UserFolder,
	type WorkflowJson,
	type WorkflowRun,
} from './n8n.cjs';
import { createFromRows, prepareN8n } from './workflows.cjs';

const ADD = '/api/business/crm/customer/add';
const ROWS = 1_000;
const STOPS_AFTER = 600;

function importWorkflowJson(
	credential: Credential,
	businessId: string,
	skipExisting: boolean,
): WorkflowJson {
	return {
		name: `Import ${ROWS} rows${skipExisting ? ', Skip Existing' : ''}`,
		nodes: [
			{
				id: 'b1e0c6a4-0000-4000-8000-000000000001',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'b1e0c6a4-0000-4000-8000-000000000002',
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: `return Array.from({ length: ${ROWS} }, (_, i) => ({ json: { firstName: 'Row', lastName: String(i), email: 'row' + i + '@example.com' } }));`,
				},
			},
			{
				id: 'b1e0c6a4-0000-4000-8000-000000000003',
				name: 'Import',
				type: 'n8n-nodes-business-crm.businessCrm',
				typeVersion: 1,
				position: [440, 0],
				// On Error: Stop Workflow (n8n's default).
				parameters: createFromRows(
					businessId,
					skipExisting ? { skipExisting: true, matchOn: 'email' } : {},
				),
				credentials: { businessCrmApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Import', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The owner's session: set up on the first start of the folder, logged in on later ones. */
async function session(url: string): Promise<Session> {
	try {
		return await setupOwner(url);
	} catch {
		const response = await fetch(`${url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
		});
		if (!response.ok) throw new Error(`login failed: ${response.status} ${await response.text()}`);
		const cookie = response.headers
			.getSetCookie()
			.map((header) => header.split(';')[0] ?? '')
			.find((pair) => pair.startsWith('n8n-auth='));
		if (!cookie) throw new Error('login returned no n8n-auth cookie');
		return { cookie, ownerId: '' };
	}
}

interface Retried {
	status: string;
	finished: boolean;
	data: WorkflowRun['data'];
}

describe('a bulk import stopped part-way and retried in a real n8n', () => {
	let sandbox: Sandbox;
	let folder: UserFolder;
	let credential: Credential;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 1 });
		({ folder, credential } = await prepareN8n(sandbox));
	});

	afterAll(async () => {
		folder?.remove();
		await sandbox?.close();
	});

	/**
	 * Runs the import with `n8n execute` while the API fails every create after the 600th, then
	 * fixes the API and retries the failed execution through the running n8n's REST API, as the
	 * editor's Retry button does.
	 */
	async function importStopAndRetry(skipExisting: boolean) {
		sandbox.seedCustomers(0);
		sandbox.clearLog();
		sandbox.setFaults({
			serverError: { path: ADD, method: 'POST', after: STOPS_AFTER, status: 503 },
		});
		const workflowId = await importWorkflow(
			folder,
			importWorkflowJson(credential, sandbox.businesses[0].id, skipExisting),
		);
		const first = await executeWorkflow(folder, workflowId);
		expect(first.success).toBe(false);
		expect(first.run?.data.resultData.error?.message).toMatch(
			/^Row \d+ \(.+\): Create customer failed/,
		);
		expect(sandbox.customers).toHaveLength(STOPS_AFTER);

		sandbox.resetFaults(); // the user fixes the cause
		sandbox.clearLog();
		const n8n = await startN8n(folder);
		try {
			const owner = await session(n8n.url);
			const list = await rest<{ results: Array<{ id: string; status: string }> }>(
				n8n.url,
				owner,
				'GET',
				`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`,
			);
			expect(list.results.map((execution) => execution.status)).toEqual(['error']);
			const retried = await rest<Retried>(
				n8n.url,
				owner,
				'POST',
				`/executions/${list.results[0].id}/retry`,
				{ loadWorkflow: false },
			);
			return retried;
		} finally {
			await n8n.stop();
		}
	}

	it('with Skip Existing: the retry creates the 400 missing rows, and the CRM has all 1,000 once', async () => {
		const retried = await importStopAndRetry(true);
		expect(retried.status).toBe('success');
		const output = retried.data.resultData.runData.Import[0].data?.main?.[0] ?? [];
		expect(output).toHaveLength(ROWS);
		expect(
			output.filter((item) => (item.json._skipExisting as { skipped?: boolean }).skipped === true),
		).toHaveLength(STOPS_AFTER);

		const emails = sandbox.customers.map((customer) => customer.email);
		expect(emails).toHaveLength(ROWS);
		expect(new Set(emails).size).toBe(ROWS);
		// The retry read the list once (600 customers, 7 pages of 100 overlapping by one) and created
		// only the missing rows.
		expect(sandbox.requests.filter((r) => r.method === 'GET')).toHaveLength(7);
		expect(sandbox.requests.filter((r) => r.path === ADD)).toHaveLength(ROWS - STOPS_AFTER);
	});

	it('without Skip Existing: the retry sends every row again, and the 600 rows created the first time are there twice', async () => {
		const retried = await importStopAndRetry(false);
		expect(retried.status).toBe('success');
		expect(sandbox.requests.filter((r) => r.path === ADD)).toHaveLength(ROWS);
		const emails = sandbox.customers.map((customer) => customer.email);
		expect(emails).toHaveLength(ROWS + STOPS_AFTER);
		expect(new Set(emails).size).toBe(ROWS);
		const twice = emails.filter((email, index) => emails.indexOf(email) !== index);
		expect(twice).toHaveLength(STOPS_AFTER);
	});
});
