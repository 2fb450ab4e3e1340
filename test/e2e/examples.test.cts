/**
 * Every workflow in examples/ as a user gets it: imported exactly as shipped, with only the
 * credential set (the import gives the sandbox credential the id the examples name), and run
 * in the real n8n: with `n8n execute`, or, for the trigger's example (which `n8n execute` cannot
 * start), activated as a user publishes it. Nothing in a workflow is changed before it runs, except
 * where a test then does what an example's sticky note tells the user to change.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	activateWorkflow,
	createApiKey,
	DEFAULT_N8N_VERSION,
	e2eVersion,
	executeWorkflow,
	importWorkflow,
	nodeOutput,
	REPO_ROOT,
	setupOwner,
	startN8n,
	workflowExecutions,
	whyFailed,
	type ExecutionWithData,
	type RunningN8n,
	type UserFolder,
} from './n8n.cjs';
import { exampleWorkflow, prepareN8n, withNode } from './workflows.cjs';
import {
	NOTHING_SENT,
	rowLabel,
} from '../../nodes/BusinessCrm/resources/customer/create/importRun';
import { previewResult } from '../../nodes/BusinessCrm/resources/customer/create/preview';
import {
	NO_MATCH_VALUE_CHOICES,
	NO_MATCH_VALUE_TO_ERROR_OUTPUT,
} from '../../nodes/BusinessCrm/resources/customer/create/skipExisting';

const ADD_CUSTOMER = '/api/business/crm/customer/add';

// The examples use nothing that differs between n8n versions (the other legs prove the node
// itself), and the trigger's example waits for real once-a-minute polls: run on the pin only,
// which keeps the version matrix inside CI's time.
const onPin = e2eVersion() === DEFAULT_N8N_VERSION;
const describeOnPin = onPin ? describe : describe.skip;

describeOnPin('the example workflows, run as shipped in a real n8n', () => {
	let sandbox: Sandbox;
	let folder: UserFolder;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3, customers: 120 });
		({ folder } = await prepareN8n(sandbox));
	});

	afterAll(async () => {
		folder?.remove();
		await sandbox?.close();
	});

	beforeEach(() => sandbox.clearLog());

	/**
	 * Imports the example (unchanged unless `workflow` is given) and runs it; fails with n8n's
	 * words when the run fails.
	 */
	const runExample = async (file: string, workflow = exampleWorkflow(file)) => {
		const result = await executeWorkflow(folder, await importWorkflow(folder, workflow));
		const why = whyFailed(result);
		if (why !== undefined || result.run === undefined) throw new Error(`${file} failed: ${why}`);
		return result.run;
	};

	const added = () =>
		sandbox.requests.filter((r) => r.method === 'POST' && r.path === ADD_CUSTOMER);

	// ai-agent-customers.json needs a model: ai-agent.test.cts runs it against a scripted one.
	it('covers every example in examples/', () => {
		expect(
			readdirSync(join(REPO_ROOT, 'examples'))
				.filter((f) => f.endsWith('.json'))
				.sort(),
		).toEqual([
			'add-customers-from-rows.json',
			// Run by an AI Agent against a scripted model in ai-agent.test.cts.
			'ai-agent-customers.json',
			'demo-business-crm.json',
			'export-all-customers.json',
			// Published and called by an MCP client in mcp-server.test.cts.
			'mcp-server-customers.json',
			'preview-then-import.json',
			'welcome-new-customers.json',
		]);
	});

	it('add-customers-from-rows adds its two rows with an email, sends the one without to Refused, and a second run adds nobody', async () => {
		const firstBusiness = sandbox.businesses[0].id;
		const before = sandbox.customers.length;

		const run = await runExample('add-customers-from-rows.json');
		expect(nodeOutput(run, 'Added')).toHaveLength(2);
		expect(run.data.resultData.runData['Already There']).toBeUndefined();
		// The row without an email is not created and not taken for a customer already there.
		expect(nodeOutput(run, 'Refused')).toEqual([
			expect.objectContaining({
				firstName: 'Edsger',
				error: expect.stringMatching(
					/^Row \d+ \(Edsger Dijkstra\): Email is empty, so the node cannot tell whether this customer already exists\. /,
				) as unknown,
			}),
		]);
		// The node already sends such rows to the error output: the advice does not tell to.
		const notAdded = String(nodeOutput(run, 'Refused')[0].error);
		expect(notAdded.endsWith(NO_MATCH_VALUE_CHOICES)).toBe(true);
		expect(notAdded).not.toContain(NO_MATCH_VALUE_TO_ERROR_OUTPUT);
		expect(added()).toHaveLength(2);
		// n8n sends a declarative node's items at the same time, so the CRM may hold them in either
		// order; the node's output keeps the rows' order.
		expect(nodeOutput(run, 'Added').map((c) => c.email)).toEqual([
			'ada@example.com',
			'alan@example.com',
		]);
		const created = sandbox.customers
			.slice(before)
			.map((c) => [c.firstName, c.lastName, c.email, c.businessId])
			.sort((a, b) => String(a[2]).localeCompare(String(b[2])));
		expect(created).toEqual([
			['Ada', 'Lovelace', 'ada@example.com', firstBusiness],
			['Alan', 'Turing', 'alan@example.com', firstBusiness],
		]);

		// Skip Existing (email) is on: the rows are found and go to Already There, none is created.
		sandbox.clearLog();
		const again = await runExample('add-customers-from-rows.json');
		expect(nodeOutput(again, 'Already There').map((c) => c.email)).toEqual([
			'ada@example.com',
			'alan@example.com',
		]);
		expect(again.data.resultData.runData.Added).toBeUndefined();
		expect(nodeOutput(again, 'Refused').map((row) => row.firstName)).toEqual(['Edsger']);
		expect(added()).toHaveLength(0);
		expect(sandbox.customers).toHaveLength(before + 2);
	});

	it.each([
		['Output the Row Without Creating It', { noMatchValue: 'skip' }],
		['Create the Customer Anyway', { noMatchValue: 'create' }],
		['Stop With an Error', { noMatchValue: 'error' }],
		['Preview Only', { previewOnly: true }],
	])(
		'add-customers-from-rows with %s sends each row to the branch named for what happened to it',
		async (_, change) => {
			const workflow = exampleWorkflow('add-customers-from-rows.json');
			const node = workflow.nodes.find((n) => (n as { name: string }).name === 'Add Customer') as {
				parameters: Record<string, unknown>;
			};
			// Fresh people in each case, so that no earlier run decides the branches.
			const rows = withNode(workflow, 'Add Customer', {
				parameters: {
					...node.parameters,
					...change,
					additionalFields: {
						...(node.parameters.additionalFields as object),
						email: `={{ $json.email ? $json.email.replace('@', '+${Object.keys(change).join('')}${String(Object.values(change)[0])}@') : '' }}`,
					},
				},
			});
			const before = sandbox.customers.length;
			const run = await runExample('add-customers-from-rows.json', rows);
			const names = (branch: string) =>
				(run.data.resultData.runData[branch] === undefined ? [] : nodeOutput(run, branch)).map(
					(row) => row.firstName,
				);
			const created = sandbox.customers.slice(before).map((c) => c.firstName);
			// Each branch holds exactly the rows it names, and every row is in one branch.
			const expected: Record<string, Record<string, string[]>> = {
				skip: { Added: ['Ada', 'Alan'], 'Not Created': ['Edsger'], Refused: [] },
				create: { Added: ['Ada', 'Alan', 'Edsger'], 'Not Created': [], Refused: [] },
				error: { Added: ['Ada', 'Alan'], 'Not Created': [], Refused: ['Edsger'] },
				preview: { Added: [], 'Not Created': ['Ada', 'Alan'], Refused: ['Edsger'] },
			};
			const which = 'previewOnly' in change ? 'preview' : String(change.noMatchValue);
			expect({
				Added: names('Added'),
				'Not Created': names('Not Created'),
				Refused: names('Refused'),
			}).toEqual(expected[which]);
			expect(names('Already There')).toEqual([]);
			// What went to Added is exactly what the CRM gained.
			expect(created.sort()).toEqual([...expected[which].Added].sort());
		},
	);

	it('preview-then-import counts what the import would do and creates nobody; turned off as its note says, the refused row stops the run as previewed, and once fixed only the new row is created', async () => {
		const firstBusiness = sandbox.businesses[0].id;
		// The note's promise: Ada is there once add-customers-from-rows has run (the test above). Run
		// alone, this test adds her as that example would.
		if (
			!sandbox.customers.some(
				(c) => c.email === 'ada@example.com' && c.businessId === firstBusiness,
			)
		) {
			const [ada] = sandbox.addCustomers(1, { businessId: firstBusiness });
			Object.assign(ada, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
		}
		const before = sandbox.customers.length;
		const mark = (row: Record<string, unknown>) => row._skipExisting as Record<string, unknown>;

		const run = await runExample('preview-then-import.json');
		const preview = nodeOutput(run, 'Preview Import');
		expect(preview.map((row) => mark(row).outcome)).toEqual([
			'alreadyExists',
			'created',
			'refused',
		]);
		expect(preview.map((row) => [mark(row).preview, mark(row).created])).toEqual([
			[true, false],
			[true, false],
			[true, false],
		]);
		expect(preview.map((row) => mark(row).result)).toEqual([
			previewResult('alreadyExists', 'email'),
			previewResult('created', 'email'),
			expect.stringMatching(/^Would stop with an error: Email is empty, /) as unknown,
		]);
		// The error names the row as a sheet counts it: "Row 3 (Edsger Dijkstra): ".
		const label = rowLabel(2, 'Edsger', 'Dijkstra').replace(/^row/, 'Row');
		const refusal = String(mark(preview[2]).error);
		expect(refusal.startsWith(`${label}: Email is empty, so the node cannot tell`)).toBe(true);
		expect(refusal).toContain(`${NO_MATCH_VALUE_TO_ERROR_OUTPUT} ${NO_MATCH_VALUE_CHOICES}`);
		// Summarize's own field names: the path with dots as underscores, and count_ before it.
		expect(nodeOutput(run, 'Count by Outcome')).toEqual([
			{ _skipExisting_outcome: 'alreadyExists', count__skipExisting_outcome: 1 },
			{ _skipExisting_outcome: 'created', count__skipExisting_outcome: 1 },
			{ _skipExisting_outcome: 'refused', count__skipExisting_outcome: 1 },
		]);
		// Only the list read: no Create, no other write.
		expect(added()).toHaveLength(0);
		expect(sandbox.requests.map((r) => r.method)).not.toContain('POST');
		expect(sandbox.customers).toHaveLength(before);

		// Preview Only off, nothing fixed: the run stops on Edsger with the error the preview gave,
		// before any Create.
		const previewNode = exampleWorkflow('preview-then-import.json').nodes.find(
			(node) => (node as { name: string }).name === 'Preview Import',
		) as { parameters: Record<string, unknown> };
		const real = (parameters: Record<string, unknown>) =>
			withNode(exampleWorkflow('preview-then-import.json'), 'Preview Import', {
				parameters: { ...previewNode.parameters, previewOnly: false, ...parameters },
			});
		sandbox.clearLog();
		const stopped = await executeWorkflow(folder, await importWorkflow(folder, real({})));
		expect(stopped.success).toBe(false);
		const { message, description } = stopped.run?.data.resultData.error ?? {};
		expect(stopped.run?.data.resultData.error?.node?.name).toBe('Preview Import');
		// The real error is the previewed one, and adds that nothing was sent.
		expect(description?.slice(-NOTHING_SENT.length)).toBe(NOTHING_SENT);
		expect(`${message}. ${description?.slice(0, -NOTHING_SENT.length - 1)}`).toBe(refusal);
		expect(added()).toHaveLength(0);
		expect(sandbox.customers).toHaveLength(before);

		// Fixed as the note says (Rows Without a Match Value: Output the Row Without Creating It):
		// the row the preview counted as created is the one created.
		sandbox.clearLog();
		const imported = await runExample('preview-then-import.json', real({ noMatchValue: 'skip' }));
		expect(nodeOutput(imported, 'Preview Import').map((row) => mark(row).outcome)).toEqual([
			'alreadyExists',
			'created',
			'notCreatedNoMatchValue',
		]);
		expect(added()).toHaveLength(1);
		expect(
			sandbox.customers.slice(before).map((c) => [c.firstName, c.email, c.businessId]),
		).toEqual([['Katherine', 'katherine@example.com', firstBusiness]]);
	});

	it('demo-business-crm runs every operation and adds Grace Hopper to the first business', async () => {
		const run = await runExample('demo-business-crm.json');
		expect(nodeOutput(run, 'List Businesses')).toHaveLength(sandbox.businesses.length);
		const [customer] = nodeOutput(run, 'Add Customer');
		expect(customer).toMatchObject({
			firstName: 'Grace',
			lastName: 'Hopper',
			businessId: sandbox.businesses[0].id,
		});
		expect(nodeOutput(run, 'Find Customer').map((c) => c.id)).toEqual([customer.id]);
		expect(nodeOutput(run, 'All Customers').map((c) => c.id)).toContain(customer.id);
		expect(added()).toHaveLength(1);
	});

	it('export-all-customers turns every customer into customers.csv and writes nothing', async () => {
		const run = await runExample('export-all-customers.json');
		expect(nodeOutput(run, 'All Customers')).toHaveLength(sandbox.customers.length);
		const [file] = run.data.resultData.runData['To CSV'][0].data?.main?.[0] ?? [];
		expect((file as { binary?: { data?: object } }).binary?.data).toMatchObject({
			fileName: 'customers.csv',
		});
		expect(added()).toHaveLength(0);
	});
});

describeOnPin('the trigger example, activated as shipped in a real n8n', () => {
	/** The example polls every minute: one poll to record, one to emit, and n8n's start. */
	const TIMEOUT_MS = 360_000;
	let sandbox: Sandbox;
	let folder: UserFolder;
	let n8n: RunningN8n | undefined;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 2, customers: 30 });
		({ folder } = await prepareN8n(sandbox));
	});

	afterAll(async () => {
		await n8n?.stop();
		folder?.remove();
		await sandbox?.close();
	});

	it(
		'welcome-new-customers builds the welcome message for a customer added after activation',
		async () => {
			const workflowId = await importWorkflow(
				folder,
				exampleWorkflow('welcome-new-customers.json'),
			);
			n8n = await startN8n(folder);
			const session = await setupOwner(n8n.url);
			const rawApiKey = await createApiKey(n8n.url, session, 'examples e2e');
			sandbox.clearLog();
			await activateWorkflow(n8n.url, session, workflowId);
			// The activation reads the list and records it: a customer added before that read
			// ends would count as already there.
			while (!sandbox.requests.some((r) => r.path === '/api/public/v1/customers')) {
				await new Promise((resolve) => setTimeout(resolve, 500));
			}
			const [customer] = sandbox.addCustomers(1);

			let finished: ExecutionWithData[] = [];
			const deadline = Date.now() + 150_000;
			while (finished.length === 0 && Date.now() < deadline) {
				await new Promise((resolve) => setTimeout(resolve, 2000));
				finished = (await workflowExecutions(n8n.url, rawApiKey, workflowId)).filter(
					(e) => !['new', 'running', 'waiting'].includes(e.status),
				);
			}
			expect(finished).toHaveLength(1);
			const [execution] = finished;
			expect(execution.status).toBe('success');
			const run = execution.data?.resultData.runData['Welcome Message']?.[0];
			expect((run?.data?.main?.[0] ?? []).map((item) => item.json)).toEqual([
				{
					customerId: customer.id,
					to: customer.email ?? '',
					message: `Welcome, ${customer.firstName} ${customer.lastName}! Thank you for choosing us.`,
				},
			]);
		},
		TIMEOUT_MS,
	);
});
