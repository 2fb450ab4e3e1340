/**
 * The node's tools behind n8n's MCP Server Trigger, as an MCP client meets them: the example
 * workflow examples/mcp-server-customers.json imported as shipped (only the credentials are
 * supplied), published, and reached by the MCP SDK's own client over Streamable HTTP. What the
 * client lists is what any model connected to it reads, so it is pinned word for word.
 */
import { randomBytes } from 'node:crypto';
// The SDK's documented import paths: resolved through its "exports" (jest) and "typesVersions"
// (tsc); the lint's resolver reads neither.
// eslint-disable-next-line import-x/no-unresolved
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
// eslint-disable-next-line import-x/no-unresolved
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
// eslint-disable-next-line import-x/no-unresolved
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import {
	activateWorkflow,
	DEFAULT_N8N_VERSION,
	e2eVersion,
	importWorkflow,
	setupOwner,
	startN8n,
	type RunningN8n,
	type UserFolder,
} from './n8n.cjs';
import { exampleWorkflow, prepareN8n } from './workflows.cjs';
import { nextStepForModel } from '../../nodes/BusinessCrm/errors/agentAdvice';

const ADD_CUSTOMER = '/api/business/crm/customer/add';
/** The example's path and trigger credential id. */
const MCP_PATH = 'business-crm';
const BEARER_CREDENTIAL_ID = 'McpBearerExample';
/** What MCP clients must send: `Authorization: Bearer <token>`. */
const bearerToken = randomBytes(16).toString('hex');

// Run on the pin only, which keeps the version matrix inside CI's time. Run once on 1.123.81 and
// 2.41.1, all passed but for n8n's own framing: 2.41 lists the schemas as JSON Schema draft
// 2020-12 ($schema), 1.123.81 words a failed call "Error: <message>" instead of
// "NodeOperationError: <message>".
const describeOnPin = e2eVersion() === DEFAULT_N8N_VERSION ? describe : describe.skip;

type ToolResult = Awaited<ReturnType<Client['callTool']>>;

/** The one text block n8n answers a tool call with. */
function textOf(result: ToolResult): string {
	const content = result.content as Array<{ type: string; text?: string }>;
	expect(content).toHaveLength(1);
	expect(content[0].type).toBe('text');
	return content[0].text ?? '';
}

describeOnPin("the node's tools behind n8n's MCP Server Trigger", () => {
	let sandbox: Sandbox;
	let folder: UserFolder;
	let n8n: RunningN8n | undefined;
	let client: Client;
	let mcpUrl: URL;
	/** Everything the client received, for the check that the API key is in none of it. */
	const received: unknown[] = [];

	const connect = async (headers: Record<string, string>) => {
		const connected = new Client({ name: 'business-crm-e2e', version: '1.0.0' });
		await connected.connect(
			new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }),
		);
		return connected;
	};

	const call = async (name: string, args: Record<string, unknown>) => {
		const result = await client.callTool({ name, arguments: args });
		received.push(result);
		return result;
	};

	const added = () =>
		sandbox.requests.filter((r) => r.method === 'POST' && r.path === ADD_CUSTOMER);

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3, customers: 40 });
		({ folder } = await prepareN8n(sandbox, [
			{
				id: BEARER_CREDENTIAL_ID,
				name: "MCP clients' bearer token",
				type: 'httpBearerAuth',
				data: { token: bearerToken },
			},
		]));
		const workflowId = await importWorkflow(folder, exampleWorkflow('mcp-server-customers.json'));
		n8n = await startN8n(folder);
		const session = await setupOwner(n8n.url);
		await activateWorkflow(n8n.url, session, workflowId);
		mcpUrl = new URL(`${n8n.url}/mcp/${MCP_PATH}`);
		client = await connect({ Authorization: `Bearer ${bearerToken}` });
	});

	afterAll(async () => {
		await client?.close();
		await n8n?.stop();
		folder?.remove();
		await sandbox?.close();
	});

	beforeEach(() => {
		sandbox.clearLog();
		sandbox.resetFaults();
	});

	it('lists the four tools with the names, descriptions and arguments a model reads', async () => {
		const { tools } = await client.listTools();
		received.push(tools);
		// Every $fromAI() argument is required unless the call gives a default (Create's email).
		// additionalProperties: true is n8n's: it lists the schema with zod-to-json-schema's
		// "strict" strategy, which reads a zod object that drops unknown keys as open.
		expect([...tools].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
			{
				name: 'Create_a_customer',
				description: 'Create a customer in Business CRM',
				inputSchema: {
					$schema: 'http://json-schema.org/draft-07/schema#',
					type: 'object',
					properties: {
						businessId: {
							type: 'string',
							description:
								'ID of the business the customer joins, such as biz_8f3a2c91d04e7b65. Look it up with the Get_many_businesses tool: a business name is not an ID.',
						},
						firstName: {
							type: 'string',
							description: 'First (given) name of the customer, such as Ada',
						},
						lastName: {
							type: 'string',
							description: 'Last (family) name of the customer, such as Lovelace',
						},
						email: {
							type: 'string',
							description:
								'Email address of the customer, such as ada@example.com. Leave it out when not known.',
							default: '',
						},
					},
					required: ['businessId', 'firstName', 'lastName'],
					additionalProperties: true,
				},
			},
			{
				// Its Tool Description is set manually: by its action it would read like Find_customers.
				name: 'Find_a_customer_by_ID',
				description:
					'Find one customer in Business CRM by its customer ID (cust_ followed by letters and digits)',
				inputSchema: {
					$schema: 'http://json-schema.org/draft-07/schema#',
					type: 'object',
					properties: {
						customerId: {
							type: 'string',
							description:
								'Customer ID to look up, such as cust_5e0c7a9d2b4f1386, exactly as a tool answered it: capitals count, and part of an ID finds no one. Answers with that customer, or found false when there is none.',
						},
					},
					required: ['customerId'],
					additionalProperties: true,
				},
			},
			{
				name: 'Find_customers',
				description: 'Find customers in Business CRM',
				inputSchema: {
					$schema: 'http://json-schema.org/draft-07/schema#',
					type: 'object',
					properties: {
						email: {
							type: 'string',
							description:
								'Email address of the customer to find, such as ada@example.com. Matches the whole address, ignoring capitals and spaces around it: part of an address finds no one. Answers with the matching customers, each with its ID (cust_...), or an empty list.',
						},
					},
					required: ['email'],
					additionalProperties: true,
				},
			},
			{
				name: 'Get_many_businesses',
				description: 'Get many businesses in Business CRM',
				inputSchema: {
					$schema: 'http://json-schema.org/draft-07/schema#',
					type: 'object',
					properties: {},
					additionalProperties: true,
				},
			},
		]);
	});

	it('Find returns the customer whose email it is given, written in other capitals', async () => {
		const customer = sandbox.customers.find((c) => c.email !== undefined)!;
		const result = await call('Find_customers', { email: ` ${customer.email!.toUpperCase()} ` });
		expect(result.isError).toBeFalsy();
		expect(JSON.parse(textOf(result))).toEqual([customer]);
		expect(added()).toHaveLength(0);
	});

	it('Find by ID returns the customer whose ID it is given with spaces around it, and found false for an ID in other capitals', async () => {
		const customer = sandbox.customers[7];
		const result = await call('Find_a_customer_by_ID', { customerId: ` ${customer.id}\n` });
		expect(result.isError).toBeFalsy();
		expect(JSON.parse(textOf(result))).toEqual([customer]);
		const other = await call('Find_a_customer_by_ID', { customerId: customer.id.toUpperCase() });
		expect(other.isError).toBeFalsy();
		expect(JSON.parse(textOf(other))).toEqual([
			{ found: false, findBy: 'id', customerId: customer.id.toUpperCase() },
		]);
	});

	it('Find answers an empty list for an address nobody has', async () => {
		const result = await call('Find_customers', { email: 'nobody@example.com' });
		expect(result.isError).toBeFalsy();
		expect(JSON.parse(textOf(result))).toEqual([]);
	});

	it('Create adds exactly one customer with the arguments given and answers its cust_ id', async () => {
		const business = sandbox.businesses[1];
		const before = sandbox.customers.length;
		const result = await call('Create_a_customer', {
			businessId: business.id,
			firstName: 'Ada',
			lastName: 'Lovelace',
			email: 'ada@example.com',
		});
		expect(result.isError).toBeFalsy();
		expect(added().map((r) => r.body)).toEqual([
			{ businessId: business.id, firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
		]);
		expect(sandbox.customers).toHaveLength(before + 1);
		const created = sandbox.customers[before];
		const [answer] = JSON.parse(textOf(result)) as Array<{ id: string }>;
		expect(answer.id).toMatch(/^cust_/);
		expect(answer).toEqual(created);
	});

	it('Create sends no email when the model leaves the optional argument out', async () => {
		const business = sandbox.businesses[0];
		const result = await call('Create_a_customer', {
			businessId: business.id,
			firstName: 'Alan',
			lastName: 'Turing',
		});
		expect(result.isError).toBeFalsy();
		expect(added().map((r) => r.body)).toEqual([
			{ businessId: business.id, firstName: 'Alan', lastName: 'Turing' },
		]);
	});

	it("a call that fails comes back as a tool error carrying the node's message, and the server keeps serving", async () => {
		const before = sandbox.customers.length;
		const result = await call('Create_a_customer', {
			businessId: 'biz_0000000000000000',
			firstName: 'Grace',
			lastName: 'Hopper',
		});
		expect(result.isError).toBe(true);
		// n8n's words around the node's: "<error class>: <message>\n\nDetails: <advice>", then
		// n8n's stack trace (McpServer formatError).
		expect(textOf(result)).toMatch(
			/^NodeOperationError: Create customer failed: the Business CRM API answered 404 .*\n\nDetails: /,
		);
		expect(textOf(result)).toContain(
			'The API did not find business "biz_0000000000000000" (or the endpoint). Check the business ID, or pick the business from the list.',
		);
		expect(sandbox.customers).toHaveLength(before);

		// A client that does what the error says: list the businesses, then create with one of them.
		const next = nextStepForModel({ type: 'notFound', argument: 'businessId' });
		expect(textOf(result).split('\n\nDetails: ')[0]).toMatch(/ not found"\. Call the /);
		expect(textOf(result).split('\n\nDetails: ')[0].endsWith(next)).toBe(true);
		const businesses = await call('Get_many_businesses', {});
		expect(businesses.isError).toBeFalsy();
		const listed = (JSON.parse(textOf(businesses)) as Array<{ id: string }>).map((b) => b.id);
		expect(listed).toEqual(sandbox.businesses.map((b) => b.id));
		const created = await call('Create_a_customer', {
			businessId: listed[2],
			firstName: 'Grace',
			lastName: 'Hopper',
		});
		expect(created.isError).toBeFalsy();
		expect(sandbox.customers).toHaveLength(before + 1);
		expect(sandbox.customers.at(-1)).toMatchObject({ firstName: 'Grace', businessId: listed[2] });
	});

	it("a call with an input the node refuses gets the node's advice back", async () => {
		const result = await call('Find_customers', { email: '   ' });
		expect(result.isError).toBe(true);
		expect(textOf(result)).toContain(
			`Email is empty. ${nextStepForModel({ type: 'invalidInput', argument: 'email' })}`,
		);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('an SSE client, on the same URL, gets the same tools and the same answers', async () => {
		// MCP Server Trigger 2 serves both transports on one path: GET opens an SSE stream, POST
		// speaks Streamable HTTP. Clients that only know SSE (older ones) connect the same way.
		const sse = new Client({ name: 'business-crm-e2e-sse', version: '1.0.0' });
		const headers = { Authorization: `Bearer ${bearerToken}` };
		await sse.connect(
			new SSEClientTransport(mcpUrl, {
				requestInit: { headers },
				eventSourceInit: {
					fetch: (url, init) => fetch(url, { ...init, headers: { ...init?.headers, ...headers } }),
				},
			}),
		);
		try {
			const [viaSse, viaHttp] = await Promise.all([sse.listTools(), client.listTools()]);
			received.push(viaSse);
			expect(viaSse.tools).toEqual(viaHttp.tools);
			const customer = sandbox.customers.find((c) => c.email !== undefined)!;
			const result = await sse.callTool({
				name: 'Find_customers',
				arguments: { email: customer.email! },
			});
			received.push(result);
			expect(JSON.parse(textOf(result))).toEqual([customer]);
		} finally {
			await sse.close();
		}
	});

	it('a client without the bearer token is refused', async () => {
		await expect(connect({ Authorization: 'Bearer wrong-token' })).rejects.toThrow(
			'Authorization data is wrong!',
		);
	});

	it('the API key is in nothing the client received: tool list, results, errors', async () => {
		// Runs last, so `received` holds every earlier listing and result; this call shows that
		// the key did travel, to the API, while the client saw the customers.
		const customer = sandbox.customers.find((c) => c.email !== undefined)!;
		await call('Find_customers', { email: customer.email! });
		expect(JSON.stringify(sandbox.requests.map((r) => r.headers))).toContain(sandbox.apiKey);
		expect(received.length).toBeGreaterThanOrEqual(10);
		const everything = JSON.stringify(received);
		for (const secret of [sandbox.apiKey, encodeURIComponent(sandbox.apiKey), bearerToken]) {
			expect(everything).not.toContain(secret);
		}
	});
});
