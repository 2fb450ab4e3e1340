/**
 * The Business CRM node as an AI Agent's tools in a real n8n: examples/ai-agent-customers.json
 * (an AI Agent, the OpenAI Chat Model, and four Business CRM tool nodes) imported as a user
 * imports it, its OpenAI credential pointed at a scripted model server on 127.0.0.1
 * (test/sandbox/model-server.cts) and its Business CRM credential at the sandbox. The script
 * plays the model: it decides which tool to call with which arguments, and the test checks what
 * the sandbox received and what the model was told.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type RequestLogEntry, type Sandbox } from '../sandbox/server.cjs';
import {
	lastToolResult,
	startModelServer,
	type ChatRequest,
	type ModelServer,
	type Step,
} from '../sandbox/model-server.cjs';
import {
	DEFAULT_N8N_VERSION,
	e2eVersion,
	executeWorkflow,
	importWorkflow,
	type UserFolder,
	type WorkflowJson,
	type WorkflowRun,
	whyFailed,
} from './n8n.cjs';
import { exampleWorkflow, prepareN8n } from './workflows.cjs';
import { skipMark } from '../helpers/skip-mark.cjs';
import { LIST_BUSINESSES, nextStepForModel } from '../../nodes/BusinessCrm/errors/agentAdvice';

const ADD = '/api/business/crm/customer/add';
const CUSTOMERS = '/api/public/v1/customers';
const EXAMPLE = 'ai-agent-customers.json';
/** The id the example gives its OpenAI credential. */
const OPENAI_CREDENTIAL_ID = 'OpenAiExample';
/** The key the model server is given: a fake, so that it can be told apart from the CRM's. */
const MODEL_KEY = 'sk-scripted-model-key';

/** n8n's tool names: the node names with every run of other characters made an underscore. */
const TOOLS = {
	businesses: 'Get_many_businesses',
	find: 'Find_customers',
	create: 'Create_a_customer',
	findById: 'Find_a_customer_by_ID',
};

/** A step that calls one tool, whatever the request says. */
const call =
	(name: string, args: Record<string, unknown> = {}): Step =>
	() => ({ toolCalls: [{ name, arguments: args }] });
/** A tool call, for steps that read the request first. */
const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
	toolCalls: [{ name, arguments: args }],
});
const answer =
	(text: string): Step =>
	() => ({ text });

const ADA = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

type Json = Record<string, unknown>;

/** The last tool result of a request, which the node's tools give as a JSON list of items. */
const lastItems = (request: ChatRequest) => lastToolResult(request) as Json[];

// The agent path differs little between n8n versions once the node loads as a tool (the other
// legs prove that), and each `n8n execute` costs seconds: run on the pin only, as the examples do.
const onPin = e2eVersion() === DEFAULT_N8N_VERSION;
const describeOnPin = onPin ? describe : describe.skip;

describeOnPin('the Business CRM node as an AI Agent tool in a real n8n', () => {
	let sandbox: Sandbox;
	let model: ModelServer;
	let folder: UserFolder;
	/** Everything n8n printed and every request the model got, over the whole file. */
	const seen = {
		output: [] as string[],
		modelRequests: [] as string[],
		customerIds: [] as string[],
	};

	beforeAll(async () => {
		sandbox = await startSandbox({ businesses: 3, customers: 40 });
		model = await startModelServer();
		({ folder } = await prepareN8n(sandbox, [
			{
				id: OPENAI_CREDENTIAL_ID,
				name: 'OpenAI account',
				type: 'openAiApi',
				data: { apiKey: MODEL_KEY, url: model.url },
			},
		]));
	});

	afterAll(async () => {
		folder?.remove();
		await model?.close();
		await sandbox?.close();
	});

	interface AgentRun {
		run: WorkflowRun;
		/** What the model was sent, request by request. */
		requests: ChatRequest[];
		/** The same requests as they arrived: method, path, headers. */
		raw: ModelServer['requests'];
		/** What the sandbox received during the execution. */
		api: RequestLogEntry[];
	}

	/**
	 * Runs the example (or a copy) once, the model playing `steps`; the execution must succeed
	 * and the script must have been played to its end.
	 */
	const runAgent = async (
		steps: Step[],
		workflow: WorkflowJson = exampleWorkflow(EXAMPLE),
	): Promise<AgentRun> => {
		sandbox.clearLog();
		model.script(steps);
		const result = await executeWorkflow(folder, await importWorkflow(folder, workflow));
		seen.output.push(result.stdout, result.stderr);
		seen.modelRequests.push(
			...model.requests.map((request) => JSON.stringify(request.headers) + request.raw),
		);
		const why = whyFailed(result);
		if (why !== undefined || result.run === undefined) {
			throw new Error(`the execution failed: ${why}\n--- model\n${model.failures.join('\n')}`);
		}
		expect(model.failures).toEqual([]);
		expect(model.unscripted).toBe(0);
		expect(model.requests).toHaveLength(steps.length);
		return {
			run: result.run,
			requests: model.requests.map((request) => request.body as ChatRequest),
			raw: [...model.requests],
			api: [...sandbox.requests],
		};
	};

	const creates = (api: RequestLogEntry[]) =>
		api.filter((request) => request.method === 'POST' && request.path === ADD);
	const listReads = (api: RequestLogEntry[]) => api.filter((request) => request.path === CUSTOMERS);

	describe('a model that looks up the business, then adds Ada Lovelace there, asks again, and reads her back by ID', () => {
		let agent: AgentRun;
		let businessId: string;

		beforeAll(async () => {
			agent = await runAgent([
				call(TOOLS.businesses),
				(request) => {
					businessId = String(lastItems(request)[0].id);
					return toolCall(TOOLS.find, { email: ADA.email });
				},
				() => toolCall(TOOLS.create, { businessId, ...ADA }),
				// The same request again, as a model that lost track of the first one sends it.
				() => toolCall(TOOLS.create, { businessId, ...ADA }),
				// The ID the Create answered, pasted back with a space around it.
				(request) =>
					toolCall(TOOLS.findById, { customerId: ` ${String(lastItems(request)[0].id)} ` }),
				answer('Ada Lovelace is a customer now.'),
			]);
		});

		it("n8n asks the model only for chat completions, not streamed, with the OpenAI credential's key", () => {
			expect(agent.raw.map((request) => `${request.method} ${request.path}`)).toEqual(
				Array(6).fill('POST /v1/chat/completions'),
			);
			expect(agent.requests.map((request) => request.stream)).toEqual(Array(6).fill(false));
			expect(agent.raw.map((request) => request.headers.authorization)).toEqual(
				Array(6).fill(`Bearer ${MODEL_KEY}`),
			);
		});

		it('the model is offered the four tools, with the arguments the example describes', () => {
			const [first] = agent.requests;
			expect(first.tools?.map((tool) => tool.function.name).sort()).toEqual(
				Object.values(TOOLS).sort(),
			);
			const create = first.tools?.find((tool) => tool.function.name === TOOLS.create);
			expect(create?.function.parameters).toMatchObject({
				required: ['businessId', 'firstName', 'lastName', 'email'],
			});
			const byId = first.tools?.find((tool) => tool.function.name === TOOLS.findById);
			expect(byId?.function.description).toBe(
				'Find one customer in Business CRM by its customer ID (cust_ followed by letters and digits)',
			);
			expect(byId?.function.parameters).toMatchObject({ required: ['customerId'] });
		});

		it("the business list reaches the model, and it is the sandbox's", () => {
			expect(lastItems(agent.requests[1]).map((business) => business.id)).toEqual(
				sandbox.businesses.map((business) => business.id),
			);
			expect(businessId).toBe(sandbox.businesses[0].id);
		});

		it('the sandbox receives exactly one Create, with the fields the model gave', () => {
			expect(creates(agent.api).map((request) => request.body)).toEqual([{ businessId, ...ADA }]);
		});

		it("the model's next request carries the tool result: the new customer with its cust_ id", () => {
			const [created] = sandbox.customers.filter((customer) => customer.email === ADA.email);
			expect(created.id).toMatch(/^cust_[0-9a-f]{16}$/);
			seen.customerIds.push(created.id);
			// Find said nobody has the email; the Create answered the new customer.
			expect(lastItems(agent.requests[2])).toEqual([
				{ found: false, findBy: 'email', email: ADA.email },
			]);
			const result = lastItems(agent.requests[3]);
			expect(result).toEqual([
				expect.objectContaining({
					id: created.id,
					businessId,
					...ADA,
					_skipExisting: skipMark('created', 'email'),
				}),
			]);
		});

		it('with Skip Existing on, the same Create asked twice in one execution creates once, and says so', () => {
			expect(sandbox.customers.filter((customer) => customer.email === ADA.email)).toHaveLength(1);
			const [first] = lastItems(agent.requests[3]);
			expect(lastItems(agent.requests[4])).toEqual([
				{
					...first,
					_skipExisting: skipMark('alreadyExists', 'email'),
				},
			]);
		});

		it('the ID the Create answered reads the customer back, without reading the list again', () => {
			const [created] = sandbox.customers.filter((customer) => customer.email === ADA.email);
			expect(lastItems(agent.requests[5])).toEqual([created]);
		});

		it('the two Finds and both Creates, four tool calls, read the customer list once', () => {
			// 40 customers: one page.
			expect(listReads(agent.api)).toHaveLength(1);
		});
	});

	describe('tool calls that fail reach the model as results it can read', () => {
		let agent: AgentRun;

		beforeAll(async () => {
			const businessId = sandbox.businesses[1].id;
			const grace = {
				businessId,
				firstName: 'Grace',
				lastName: 'Hopper',
				email: 'grace@example.com',
			};
			// The Find's read: the first request and its 5 retries (Max Retries as shipped) get 429.
			// The second Create's request gets a 502: the customer may or may not have been added.
			sandbox.setFaults({
				rateLimitBurst: { path: CUSTOMERS, count: 6, retryAfter: 1 },
				serverError: { path: ADD, after: 1, count: 1, status: 502 },
			});
			try {
				agent = await runAgent([
					call(TOOLS.find, { email: 'grace@example.com' }),
					call(TOOLS.create, { ...grace, businessId: 'biz_0000000000000000' }),
					call(TOOLS.create, grace),
					// A model retries the call that timed out.
					call(TOOLS.create, grace),
					answer('I could not add Grace Hopper.'),
				]);
			} finally {
				sandbox.resetFaults();
			}
		});

		const result = (step: number) => {
			const [item, ...more] = lastItems(agent.requests[step]);
			expect(more).toEqual([]);
			return String(item.error);
		};

		it('a 429 past Max Retries: the message and what to do', () => {
			expect(result(1)).toMatch(
				/^Read the customer list failed: the Business CRM API answered 429 .*Raise Max Retries under Options/,
			);
		});

		it("an unknown business: the API's words, what the model should do next, and the kind", () => {
			expect(result(2)).toBe(
				`Create customer failed: the Business CRM API answered 404 "Not Found: Business biz_0000000000000000 not found". ${nextStepForModel({ type: 'notFound', argument: 'businessId' })} The API did not find business "biz_0000000000000000" (or the endpoint). Check the business ID, or pick the business from the list.`,
			);
			expect(lastItems(agent.requests[2])[0].errorType).toBe('notFound');
		});

		it('a Create that may have happened, then the same Create in a later tool call: refused, naming the earlier call', () => {
			expect(result(3)).toMatch(/answered 502.*may or may not have been created/);
			expect(result(4)).toMatch(
				/^Create customer not sent: row 1 of an earlier run of this node, with the same email, may have created this customer\./,
			);
			// The 404 and the 502; the refused call sent nothing.
			expect(creates(agent.api)).toHaveLength(2);
		});

		it("the execution ends with the agent's answer, not an error", () => {
			const output = agent.run.data.resultData.runData['AI Agent']?.at(-1)?.data?.main?.[0];
			expect(output?.map((item) => item.json)).toEqual([
				{ output: 'I could not add Grace Hopper.' },
			]);
		});
	});

	describe('a model that makes up a business ID reads the error, lists the businesses and creates the customer', () => {
		let agent: AgentRun;
		const linus = { firstName: 'Linus', lastName: 'Pauling', email: 'linus@example.com' };

		beforeAll(async () => {
			agent = await runAgent([
				call(TOOLS.create, { ...linus, businessId: 'biz_made_up_by_the_model' }),
				// What a model does with the error: the step fails, and the run with it, unless the
				// result says what happened and what to call next.
				(request) => {
					const [item] = lastItems(request);
					if (item.errorType !== 'notFound' || !String(item.error).includes(LIST_BUSINESSES)) {
						throw new Error(`the error does not say what to do: ${JSON.stringify(item)}`);
					}
					return toolCall(TOOLS.businesses);
				},
				(request) => toolCall(TOOLS.create, { ...linus, businessId: lastItems(request)[1].id }),
				answer('Linus Pauling is in the CRM now.'),
			]);
		});

		it('the second Create, with an ID from the list, adds the customer once', () => {
			expect(creates(agent.api).map((request) => request.status)).toEqual([404, 201]);
			const added = sandbox.customers.filter((customer) => customer.email === linus.email);
			expect(added).toEqual([
				expect.objectContaining({ ...linus, businessId: sandbox.businesses[1].id }),
			]);
			expect(lastItems(agent.requests[3])[0]).toMatchObject({ ...linus, id: added[0].id });
		});
	});

	it('measured: 5 Find calls against 10,000 customers in one execution read the list once (100 requests, not 500)', async () => {
		sandbox.seedCustomers(10_000);
		const emails = [0, 2_500, 5_000, 7_500, 9_999].map((at) => String(sandbox.customers[at].email));
		const agent = await runAgent([
			...emails.map((email) => call(TOOLS.find, { email })),
			answer('found them all'),
		]);
		const reads = listReads(agent.api).length;
		console.log(`5 Find tool calls against 10,000 customers sent ${reads} list requests`);
		// One read, in pages of 100 that overlap by one customer.
		expect(reads).toBe(Math.ceil((10_000 - 1) / 99));
		// Each call found its customer.
		emails.forEach((email, call) =>
			expect(lastItems(agent.requests[call + 1]).map((customer) => customer.email)).toEqual([
				email,
			]),
		);
	});

	it('the CRM API key reaches neither the model nor the execution data', () => {
		expect(seen.modelRequests.length).toBeGreaterThan(0);
		const key = sandbox.apiKey;
		for (const request of seen.modelRequests) expect(request).not.toContain(key);
		for (const printed of seen.output) expect(printed).not.toContain(key);
		// n8n keeps each execution in its database (and its write-ahead log): the customer the
		// agent added is in it, the key is not.
		const dir = join(folder.dir, '.n8n');
		const database = readdirSync(dir)
			.filter((name) => name.startsWith('database.sqlite'))
			.map((name) => readFileSync(join(dir, name)).toString('latin1'))
			.join('\n');
		expect(seen.customerIds).toHaveLength(1);
		expect(database).toContain(seen.customerIds[0]);
		expect(database).not.toContain(key);
	});
});
