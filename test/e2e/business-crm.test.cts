/**
 * The packed package in a real n8n: installed as n8n installs a community package, credentials
 * and workflows imported with the n8n CLI, workflows run headlessly with `n8n execute`, the
 * credential tested through n8n's REST API. The n8n under test comes from e2eTarget().
 */
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	executeWorkflow,
	importCredentials,
	importWorkflow,
	loadedTypes,
	nodeOutput,
	setupOwner,
	startN8n,
	testCredential,
	type Credential,
	type UserFolder,
	whyFailed,
} from './n8n.cjs';
import { behaviourOf } from './versions.cjs';
import { exampleWorkflow, prepareN8n, withNode } from './workflows.cjs';
import { skipMark } from '../helpers/skip-mark.cjs';
import { OUTPUT_SCHEMAS } from '../helpers/output-schemas.cjs';
import {
	previewedFields,
	previewNames,
	PREVIEWED,
	withoutListItems,
} from '../editor/schema-preview.cjs';
import { NO_MATCH_VALUE_CHOICES } from '../../nodes/BusinessCrm/resources/customer/create/skipExisting';

const CUSTOMERS = '/api/public/v1/customers';
const NODE_TYPE = 'n8n-nodes-business-crm.businessCrm';

describe('Business CRM in a real n8n', () => {
	let sandbox: Sandbox;
	let folder: UserFolder;
	let credential: Credential;
	let version: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 4, customers: 250 });
		({ folder, credential, version } = await prepareN8n(sandbox));
	});

	afterAll(async () => {
		folder?.remove();
		await sandbox?.close();
	});

	beforeEach(() => {
		sandbox.clearLog();
		sandbox.resetFaults();
	});

	const execute = async (workflow: Parameters<typeof importWorkflow>[1]) => {
		const result = await executeWorkflow(folder, await importWorkflow(folder, workflow));
		if (result.run === undefined) {
			throw new Error(
				`n8n printed no run data (exit ${result.exitCode})\n${result.stderr.slice(-3000)}`,
			);
		}
		return { ...result, run: result.run };
	};

	it('runs the demo: every operation, Create then Return All over several pages', async () => {
		const customersBefore = sandbox.customers.length;
		const result = await execute(exampleWorkflow('demo-business-crm.json'));
		expect(whyFailed(result)).toBeUndefined();
		const { run } = result;

		expect(nodeOutput(run, 'List Businesses').map((b) => b.id)).toEqual(
			sandbox.businesses.map((b) => b.id),
		);
		const [business] = nodeOutput(run, 'Get Business');
		expect(business).toEqual(sandbox.businesses[0]);

		const [created] = nodeOutput(run, 'Add Customer');
		expect(created).toMatchObject({
			businessId: sandbox.businesses[0].id,
			firstName: 'Grace',
			lastName: 'Hopper',
			email: 'grace.hopper@example.com',
		});
		expect(created.id).toMatch(/^cust_/);

		expect(nodeOutput(run, 'Find Customer')).toEqual([created]);

		const all = nodeOutput(run, 'All Customers');
		expect(all).toHaveLength(customersBefore + 1);
		expect(all.map((c) => c.id)).toEqual(sandbox.customers.map((c) => c.id));
		expect(all.filter((c) => c.id === created.id)).toHaveLength(1);
		const pages = sandbox.requests.filter((r) => r.path === CUSTOMERS);
		// Find and Get Many each read the list. Pages of 100 overlap by one customer; after the
		// first, 99 and 198 are read at once and may arrive in either order.
		expect(pages.map((r) => Number(r.query.offset)).sort((a, b) => a - b)).toEqual([
			0, 0, 99, 99, 198, 198,
		]);
	});

	it('feeds expressions from a previous node, and with "continue (using error output)" routes a refused row to the error output', async () => {
		const businessId = sandbox.businesses[1].id;
		const workflow = withNode(exampleWorkflow('add-customers-from-rows.json'), 'Rows', {
			parameters: {
				jsCode: `return [
					{ json: { businessId: '${businessId}', firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', leadSource: 'Newsletter' } },
					{ json: { businessId: '${businessId}', firstName: '   ', lastName: 'Nobody' } },
					{ json: { businessId: 'biz_unknown', firstName: 'Alan', lastName: 'Turing', email: 'alan@example.com' } },
					{ json: { businessId: '${businessId}', firstName: 'Edsger', lastName: 'Dijkstra', phone: '+31 20 555 0100' } },
				];`,
			},
		});
		const result = await execute(workflow);
		expect(whyFailed(result)).toBeUndefined();
		const { run } = result;

		// The example creates with Skip Existing by email: each item is the customer, marked.
		const added = nodeOutput(run, 'Added').map((item) => {
			expect(item._skipExisting).toEqual(skipMark('created', 'email'));
			return item;
		});
		expect(added.map((c) => [c.firstName, c.leadSource ?? null, c.businessId])).toEqual([
			['Ada', 'Newsletter', businessId],
		]);
		const refused = nodeOutput(run, 'Refused');
		// n8n adds the fields of the input row to an item on the error output.
		expect(refused).toEqual([
			expect.objectContaining({
				error:
					"Row 2 (Nobody): First Name is empty or only spaces. Enter the customer's first name. When it comes from an expression, check that the expression gives a value for this item.",
			}),
			expect.objectContaining({
				error:
					'Row 3 (Alan Turing): Create customer failed: the Business CRM API answered 404 "Not Found: Business biz_unknown not found". The API did not find business "biz_unknown" (or the endpoint). Check the business ID, or pick the business from the list.',
				firstName: 'Alan',
			}),
			// Without an email the node cannot tell whether the row was added before: not sent.
			expect.objectContaining({
				error:
					// On the error output already: the advice does not tell to send it there.
					`Row 4 (Edsger Dijkstra): Email is empty, so the node cannot tell whether this customer already exists. Give this row an email. ${NO_MATCH_VALUE_CHOICES}`,
				firstName: 'Edsger',
			}),
		]);
		const errorRun = run.data.resultData.runData['Add Customer'][0].data?.main?.[1] ?? [];
		expect(errorRun.map((item) => item.pairedItem)).toEqual([
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		// The refused empty name and the row without an email never reached the API.
		expect(sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
	});

	it('exports all customers to a CSV file', async () => {
		const result = await execute(exampleWorkflow('export-all-customers.json'));
		expect(whyFailed(result)).toBeUndefined();
		const { run } = result;
		expect(nodeOutput(run, 'All Customers')).toHaveLength(sandbox.customers.length);
		const file = run.data.resultData.runData['To CSV'][0].data?.main?.[0]?.[0] as {
			binary?: { data?: { fileName?: string; mimeType?: string } };
		};
		expect(file.binary?.data).toMatchObject({ fileName: 'customers.csv', mimeType: 'text/csv' });
	});

	it('survives a burst of 429s in the middle of Return All, re-reading only the limited pages', async () => {
		sandbox.setFaults({ rateLimitBurst: { path: CUSTOMERS, after: 1, count: 2, retryAfter: 1 } });
		const result = await execute(exampleWorkflow('export-all-customers.json'));
		expect(whyFailed(result)).toBeUndefined();
		const { run } = result;
		expect(nodeOutput(run, 'All Customers').map((c) => c.id)).toEqual(
			sandbox.customers.map((c) => c.id),
		);
		const log = sandbox.requests.map((r) => [r.query.offset, r.status] as const);
		expect(log[0]).toEqual(['0', 200]);
		// The first page gives the total, so pages 99 and 198 (pages overlap by one customer) are
		// asked for at once: the burst of two 429s meets both, and each is read again once after the
		// wait. Page 0 is not read again.
		expect(log).toHaveLength(5);
		for (const offset of ['99', '198']) {
			expect(log.filter(([at]) => at === offset).map(([, status]) => status)).toEqual([429, 200]);
		}
	});

	it("stops the workflow with the API's words when the key is wrong", async () => {
		const workflow = withNode(exampleWorkflow('demo-business-crm.json'), 'List Businesses', {
			credentials: { businessCrmApi: { id: 'WrongKeyCredential', name: 'Wrong key' } },
		});
		await importCredentials(folder, [
			{
				id: 'WrongKeyCredential',
				name: 'Wrong key',
				type: 'businessCrmApi',
				data: {
					baseUrl: sandbox.url,
					apiKey: 'revoked-key-123',
					organizationId: sandbox.organizationId,
				},
			},
		]);
		const { success, run, stdout, stderr } = await execute(workflow);
		expect(success).toBe(false);
		expect(run.data.resultData.error?.message).toBe(
			'Get many businesses failed: the Business CRM API answered 401 "Unauthorized: Invalid or missing API key"',
		);
		expect(run.data.resultData.error?.node?.name).toBe('List Businesses');
		expect(`${stdout}${stderr}`).not.toContain('revoked-key-123');
	});

	it("with Specific Domains not listing the API's host, no operation sends a request and each says what to change", async () => {
		await importCredentials(folder, [
			{
				id: 'RestrictedCredential',
				name: 'Restricted',
				type: 'businessCrmApi',
				data: {
					baseUrl: sandbox.url,
					apiKey: sandbox.apiKey,
					organizationId: sandbox.organizationId,
					allowedHttpRequestDomains: 'domains',
					allowedDomains: 'api.example.com',
				},
			},
		]);
		const business = sandbox.businesses[0].id;
		const roads: Array<[string, Record<string, unknown>]> = [
			[
				'Get Business',
				{
					resource: 'business',
					operation: 'get',
					businessId: { __rl: true, mode: 'id', value: business },
				},
			],
			['List Businesses', { resource: 'business', operation: 'getAll', returnAll: true }],
			[
				'Customers of Business',
				{
					resource: 'customer',
					operation: 'getAll',
					returnAll: true,
					filters: { businessId: { __rl: true, mode: 'id', value: business } },
				},
			],
			[
				'Find',
				{ resource: 'customer', operation: 'find', findBy: 'email', email: 'ada@example.com' },
			],
			[
				'Create Unless Existing',
				{
					resource: 'customer',
					operation: 'create',
					businessId: { __rl: true, mode: 'id', value: business },
					firstName: 'Ada',
					lastName: 'Lovelace',
					additionalFields: { email: 'ada@example.com' },
					skipExisting: true,
				},
			],
		];
		const names = ['Start', ...roads.map(([name]) => name)];
		const workflow = {
			name: 'Allowed Domains on every road',
			nodes: [
				{
					id: 'start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				...roads.map(([name, parameters], index) => ({
					id: `road-${index}`,
					name,
					type: 'n8n-nodes-business-crm.businessCrm',
					typeVersion: 1,
					position: [220 * (index + 1), 0],
					parameters,
					onError: 'continueRegularOutput',
					credentials: { businessCrmApi: { id: 'RestrictedCredential', name: 'Restricted' } },
				})),
			],
			connections: Object.fromEntries(
				names
					.slice(0, -1)
					.map((name, index) => [
						name,
						{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
					]),
			),
			settings: { executionOrder: 'v1' },
		};
		const { run } = await execute(workflow as Parameters<typeof importWorkflow>[1]);
		for (const [name] of roads) {
			expect([name, nodeOutput(run, name)]).toEqual([
				name,
				[
					{
						error:
							"The Base URL's host 127.0.0.1 is not among the Allowed Domains of the Business CRM credential (api.example.com), so the node sends nothing. Open the credential and add 127.0.0.1 to Allowed Domains, or set Allowed HTTP Request Domains to All.",
						errorType: 'configuration',
					},
				],
			]);
		}
		expect(sandbox.requests).toEqual([]);
	});

	describe('with n8n started', () => {
		let n8n: Awaited<ReturnType<typeof startN8n>>;
		let session: Awaited<ReturnType<typeof setupOwner>>;
		beforeAll(async () => {
			n8n = await startN8n(folder);
			session = await setupOwner(n8n.url);
		});
		afterAll(async () => await n8n?.stop());

		it('loads the node, its AI tool variant and the credential', async () => {
			const types = await loadedTypes(n8n.url, session);
			expect(types.nodes).toEqual(
				expect.arrayContaining([
					'n8n-nodes-business-crm.businessCrm',
					'n8n-nodes-business-crm.businessCrmTool',
				]),
			);
			expect(types.credentials).toContain('businessCrmApi');
		});

		it('passes the credential test with a good key', async () => {
			expect(await testCredential(n8n.url, session, credential)).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
		});

		it("serves each operation's output schema where the editor asks for it, and none for the trigger", async () => {
			const get = async (path: string) => await fetch(`${n8n.url}/schemas/${path}.json`);
			for (const [resource, byOperation] of Object.entries(OUTPUT_SCHEMAS)) {
				for (const [operation, schema] of Object.entries(byOperation)) {
					// The editor pads the type version to three parts: 1 is asked for as 1.0.0.
					const served = await get(`${NODE_TYPE}/1.0.0/${resource}/${operation}`);
					expect([resource, operation, served.status]).toEqual([resource, operation, 200]);
					expect(await served.json()).toEqual(schema);
				}
			}
			expect((await get(`${NODE_TYPE}Trigger/1.0.0`)).status).toBe(404);
		});

		it("shows Create's, Get Many's and Find's output fields in the next node's input panel before anything ran", async () => {
			sandbox.clearLog();
			const shown = await previewedFields(n8n.url, session, sandbox, `schema-preview-${version}`);
			// n8n 1.123.81 lists a node's fields in another order once the chain is longer.
			const sorted = (byNode: Record<string, string[]>) =>
				Object.fromEntries(
					Object.entries(byNode).map(([node, names]) => [node, withoutListItems(names).sort()]),
				);
			expect(sorted(shown)).toEqual(
				sorted(
					Object.fromEntries(
						Object.entries(PREVIEWED).map(([node, operation]) => [
							node,
							previewNames(OUTPUT_SCHEMAS.customer[operation]),
						]),
					),
				),
			);
			expect(sandbox.requests).toEqual([]);
		});

		/** What the credential modal shows differs by n8n version: see versions.cts. */
		const behaviour = () => behaviourOf(version);

		it('a bad key and another organization: the modal shows the rule words where n8n lets them through', async () => {
			const wrongKey = await testCredential(n8n.url, session, {
				...credential,
				data: { ...credential.data, apiKey: 'not-a-key' },
			});
			expect(wrongKey).toEqual({
				status: 'Error',
				message: !behaviour().credentialTestRuleWords
					? 'Authorization failed - please check your credentials'
					: 'The API rejected the API key (HTTP 401: missing or invalid key). Copy a current key from the organization dashboard (Settings › Organization › API Keys); keys are managed by an organization administrator.',
			});

			const otherOrganization = await testCredential(n8n.url, session, {
				...credential,
				data: { ...credential.data, apiKey: sandbox.otherOrgApiKey },
			});
			expect(otherOrganization).toEqual({
				status: 'Error',
				message: !behaviour().credentialTestRuleWords
					? 'Forbidden - perhaps check your credentials?'
					: 'The API key is valid but not allowed here (HTTP 403). Check that the Organization ID is the one the key belongs to, and ask an organization administrator whether the key has the needed permissions.',
			});
		});

		it('a Base URL the node refuses: the modal says the URL is invalid and nothing is sent', async () => {
			sandbox.clearLog();
			const refused = await testCredential(n8n.url, session, {
				...credential,
				data: { ...credential.data, baseUrl: `ftp://127.0.0.1:${sandbox.port}` },
			});
			expect(refused).toEqual({
				status: 'Error',
				message: behaviour().invalidUrlMessage,
			});
			expect(sandbox.requests).toEqual([]);
		});

		it('a plain-HTTP address typed without a scheme: https is used and the handshake fails', async () => {
			sandbox.clearLog();
			const schemeless = await testCredential(n8n.url, session, {
				...credential,
				data: { ...credential.data, baseUrl: `127.0.0.1:${sandbox.port}` },
			});
			// n8n passes OpenSSL's words on; the node itself says what to type (see the unit suite).
			expect(schemeless.status).toBe('Error');
			expect(schemeless.message).toMatch(behaviour().tlsMismatchMessage);
			expect(sandbox.requests).toEqual([]);
		});
	});
});
