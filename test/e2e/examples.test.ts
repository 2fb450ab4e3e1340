/**
 * Every workflow in examples/ as a user gets it: imported exactly as shipped, with only the
 * credential set (the import gives the sandbox credential the id the examples name), and run
 * with `n8n execute` in the real n8n. Nothing in a workflow is changed before it runs.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { executeWorkflow, importWorkflow, nodeOutput, REPO_ROOT, type UserFolder } from './n8n';
import { exampleWorkflow, prepareN8n } from './workflows';

const ADD_CUSTOMER = '/api/business/crm/customer/add';

describe('the example workflows, run as shipped in a real n8n', () => {
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

	/** Imports the example unchanged and runs it; fails with n8n's words when the run fails. */
	const runExample = async (file: string) => {
		const result = await executeWorkflow(
			folder,
			await importWorkflow(folder, exampleWorkflow(file)),
		);
		const error = result.run?.data.resultData.error;
		if (!result.success || result.run === undefined) {
			throw new Error(
				`${file} failed: ${error?.message ?? `n8n exited with ${result.exitCode}`}\n${result.stderr.slice(-3000)}`,
			);
		}
		return result.run;
	};

	const added = () =>
		sandbox.requests.filter((r) => r.method === 'POST' && r.path === ADD_CUSTOMER);

	it('covers every example in examples/', () => {
		expect(
			readdirSync(join(REPO_ROOT, 'examples'))
				.filter((f) => f.endsWith('.json'))
				.sort(),
		).toEqual([
			'add-customers-from-rows.json',
			'demo-business-crm.json',
			'export-all-customers.json',
			'welcome-new-customers.json',
		]);
	});

	it('add-customers-from-rows adds its two rows to the first business, and a second run adds nobody', async () => {
		const firstBusiness = sandbox.businesses[0].id;
		const before = sandbox.customers.length;

		const run = await runExample('add-customers-from-rows.json');
		expect(nodeOutput(run, 'Added')).toHaveLength(2);
		expect(run.data.resultData.runData['Not Added']).toBeUndefined();
		expect(added()).toHaveLength(2);
		const created = sandbox.customers.slice(before);
		expect(created.map((c) => [c.firstName, c.lastName, c.email, c.businessId])).toEqual([
			['Ada', 'Lovelace', 'ada@example.com', firstBusiness],
			['Alan', 'Turing', 'alan@example.com', firstBusiness],
		]);

		// Skip Existing (email) is on: the rows are found, nothing is created again.
		sandbox.clearLog();
		const again = await runExample('add-customers-from-rows.json');
		expect(nodeOutput(again, 'Added')).toHaveLength(2);
		expect(added()).toHaveLength(0);
		expect(sandbox.customers).toHaveLength(before + 2);
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

	it('welcome-new-customers, run from the editor, builds the message for the newest customer', async () => {
		const run = await runExample('welcome-new-customers.json');
		const newest = sandbox.customers[sandbox.customers.length - 1];
		expect(nodeOutput(run, 'Welcome Message')).toEqual([
			{
				customerId: newest.id,
				to: newest.email ?? '',
				message: `Welcome, ${newest.firstName} ${newest.lastName}! Thank you for choosing us.`,
			},
		]);
	});
});
