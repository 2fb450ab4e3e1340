/**
 * Errors a model can act on (errors/agentAdvice.ts, errors/errorTypes.ts, resources/operation.ts):
 * every error carries its kind, and in the node's tool variant its message ends with what the
 * model should do next, since n8n hands a model a tool's error message alone. Empty answers a
 * model gives for optional $fromAI arguments count as not given.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { type Sandbox } from '../sandbox/server.cjs';
import { runNode, type RunOptions } from '../helpers/harness.cjs';
import {
	answered,
	byId,
	closedPort,
	createAda as createAdaParameters,
	credentialsFor,
	getBusinessOf,
	useSandbox,
} from '../helpers/fixtures.cjs';
import { always, json, SCRIPTED_KEY, withApi } from '../helpers/scripted-api.cjs';
import { OUTPUT_SCHEMAS } from '../helpers/output-schemas.cjs';
import {
	DEFAULT_WAIT_SECONDS,
	LIST_BUSINESSES,
	nextStepForModel,
	runsAsTool,
} from '../../nodes/BusinessCrm/errors/agentAdvice';
import {
	ERROR_TYPES,
	errorTypeOf,
	type ErrorType,
} from '../../nodes/BusinessCrm/errors/errorTypes';
import { EMPTY_FILTER } from '../../nodes/BusinessCrm/resources/customer/getAll';
import { NO_SEARCH_VALUE } from '../../nodes/BusinessCrm/resources/customer/find';
import { EMPTY_BUSINESS } from '../../nodes/BusinessCrm/params/parameters';

/** A parameter filled by the model, as the ✨ button or the examples write it. */
const fromAi = (key: string, type = 'string') =>
	`={{ $fromAI('${key}', 'what the model should give', '${type}') }}`;

/** A text as a pattern that matches it exactly. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const contextOf = (error: unknown) => (error as { context?: Record<string, unknown> }).context;

describe('what a model is told to do next', () => {
	it('every kind of error has its own instruction', () => {
		const steps = ERROR_TYPES.map((type) => nextStepForModel({ type }));
		expect(steps.every((step) => step.endsWith('.'))).toBe(true);
		// configuration and unexpectedReply share "tell the user"; the others differ.
		expect(new Set(steps).size).toBe(ERROR_TYPES.length - 1);
	});

	it('names the argument to give again, and the wait the API asked for', () => {
		expect(nextStepForModel({ type: 'notFound', argument: 'businessId' })).toBe(
			`${LIST_BUSINESSES}, then call this tool again with it as the argument businessId.`,
		);
		expect(nextStepForModel({ type: 'invalidInput', argument: 'lastName' })).toContain(
			'the argument lastName; if you do not know it, ask the user for it.',
		);
		expect(nextStepForModel({ type: 'rateLimited', retryAfterSeconds: 7 })).toBe(
			'Wait 7 s and call this tool again.',
		);
		expect(nextStepForModel({ type: 'rateLimited' })).toContain(`Wait ${DEFAULT_WAIT_SECONDS} s`);
		// Without an argument to name (a 404 of Get Many's filter check, an API 400):
		expect(nextStepForModel({ type: 'notFound' })).toBe(
			`${LIST_BUSINESSES}, then call this tool again with it.`,
		);
		expect(nextStepForModel({ type: 'invalidInput' })).toMatch(
			/^Correct what the message names and call this tool again;/,
		);
	});

	it('the tool variant is the node type n8n appends "Tool" to', () => {
		const node = { type: 'n8n-nodes-business-crm.businessCrmTool' };
		expect(runsAsTool(node as never)).toBe(true);
		expect(runsAsTool({ type: 'n8n-nodes-business-crm.businessCrm' } as never)).toBe(false);
	});

	it("every output schema lists exactly the kinds, so the editor's preview and a drift agree", () => {
		for (const byOperation of Object.values(OUTPUT_SCHEMAS)) {
			for (const schema of Object.values(byOperation)) {
				const properties = schema.properties as Record<string, { enum?: string[] }>;
				expect(properties.errorType.enum).toEqual(ERROR_TYPES);
			}
		}
	});

	it('an error without a known kind counts as a problem with the input', () => {
		expect(errorTypeOf({ context: {} } as never)).toBe('invalidInput');
		expect(errorTypeOf({ context: { errorType: 'made up' } } as never)).toBe('invalidInput');
		expect(errorTypeOf({ context: { errorType: 'rateLimited' } } as never)).toBe('rateLimited');
	});
});

describe('an unknown business, as a tool and as a node', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 3 }, (started) => (sandbox = started));

	const getUnknown = (options: Partial<RunOptions>) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'business',
				operation: 'get',
				businessId: byId(fromAi('businessId')),
			},
			items: [{ businessId: 'biz_made_up' }],
			...options,
		});
	const notFound = nextStepForModel({ type: 'notFound', argument: 'businessId' });

	it('a tool that stops: the message ends with the next step, the kind is on the error', async () => {
		const { error } = await getUnknown({ asTool: true });
		expect(error?.message).toMatch(/^Get business failed: the Business CRM API answered 404/);
		expect(error?.message.endsWith(`". ${notFound}`)).toBe(true);
		expect(contextOf(error)?.errorType).toBe('notFound');
	});

	it('a tool that continues: the item has the error, its next step and its kind', async () => {
		const { items } = await getUnknown({ asTool: true, onError: 'continueRegularOutput' });
		expect(items).toHaveLength(1);
		expect(items[0].json.errorType).toBe('notFound');
		expect(String(items[0].json.error)).toContain(`". ${notFound} No business with ID`);
	});

	it('a node a person runs: the words are as before, with the kind beside them', async () => {
		const stopped = await getUnknown({});
		expect(stopped.error?.message).toBe(
			answered('Get business', 404, '"Not Found: Business biz_made_up not found"'),
		);
		expect(contextOf(stopped.error)?.errorType).toBe('notFound');
		const { items } = await getUnknown({ onError: 'continueRegularOutput' });
		expect(items[0].json).toEqual({
			error: expect.not.stringContaining(LIST_BUSINESSES) as string,
			errorType: 'notFound',
		});
	});

	it('on the error output the item keeps the one key n8n routes there', async () => {
		const { items, errorItems } = await getUnknown({ onError: 'continueErrorOutput' });
		expect(items).toEqual([]);
		expect(errorItems).toHaveLength(1);
		// n8n adds the input item's fields; errorType would keep the item off the error output.
		expect(errorItems[0].json).toEqual({
			businessId: 'biz_made_up',
			error: expect.stringContaining('answered 404') as string,
		});
	});

	it('an empty business ID from the model names the argument to give', async () => {
		const { error } = await getUnknown({ asTool: true, items: [{ businessId: ' ' }] });
		expect(error?.message).toBe(
			`${EMPTY_BUSINESS}. ${nextStepForModel({ type: 'invalidInput', argument: 'businessId' })}`,
		);
		expect(sandbox.requests).toEqual([]);
	});

	it('a failed read shared by several items tells each of them once', async () => {
		sandbox.setFaults({ serverError: { status: 401 } });
		const { items } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'find',
				findBy: 'email',
				email: '={{ $json.email }}',
			},
			items: [{ email: 'a@example.com' }, { email: 'b@example.com' }],
			asTool: true,
			onError: 'continueRegularOutput',
		});
		const step = nextStepForModel({ type: 'authentication' });
		expect(items.map((item) => item.json.errorType)).toEqual(['authentication', 'authentication']);
		for (const item of items) expect(String(item.json.error).split(step)).toHaveLength(2);
	});
});

describe('each kind of failure', () => {
	const kindOf = async (
		status: number,
		parameters: RunOptions['parameters'],
		body: unknown = { message: 'no' },
	) =>
		withApi(
			(_request, _url, response) => json(response, status, body),
			async (api) => {
				const { error } = await runNode({
					credentials: api.credentials,
					parameters: { ...parameters, options: { maxRetries: 0 } },
				});
				return contextOf(error)?.errorType as ErrorType | undefined;
			},
		);
	const createAda = {
		resource: 'customer',
		operation: 'create',
		businessId: byId('biz_1'),
		firstName: 'Ada',
		lastName: 'Lovelace',
	};

	it.each([
		[400, 'invalidInput'],
		[401, 'authentication'],
		[403, 'authentication'],
		[404, 'notFound'],
		[429, 'rateLimited'],
		[503, 'unavailable'],
	] as const)('a read answered %i is %s', async (status, type) => {
		expect(await kindOf(status, getBusinessOf())).toBe(type);
	});

	it('a Create answered 503 may have added the customer: unknownOutcome', async () => {
		expect(await kindOf(503, createAda)).toBe('unknownOutcome');
		expect(await kindOf(400, createAda)).toBe('invalidInput');
	});

	it('a reply that is not the API is the setup; a read nothing answers is for later', async () => {
		expect(await kindOf(200, getBusinessOf(), 'a JSON string')).toBe('unexpectedReply');
		const page = await withApi(always(200, '<html></html>', 'text/html'), async (api) => {
			const { error } = await runNode({
				credentials: api.credentials,
				parameters: getBusinessOf(),
			});
			return contextOf(error)?.errorType;
		});
		expect(page).toBe('configuration');
		const port = await closedPort();
		const { error } = await runNode({
			credentials: {
				baseUrl: `http://127.0.0.1:${port}`,
				apiKey: SCRIPTED_KEY,
				organizationId: 'org_1',
			},
			parameters: { ...getBusinessOf(), options: { maxRetries: 0 } },
		});
		expect(contextOf(error)?.errorType).toBe('unavailable');
	});

	it('a 429 tells the model how long the API asked to wait', async () => {
		await withApi(
			(_request, _url, response) => {
				response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '12' });
				response.end(JSON.stringify({ message: 'slow down', retryAfter: 12 }));
			},
			async (api) => {
				const { error } = await runNode({
					credentials: api.credentials,
					parameters: { ...getBusinessOf(), options: { maxRetries: 0 } },
					asTool: true,
				});
				expect(contextOf(error)?.errorType).toBe('rateLimited');
				expect(error?.message).toContain('Wait 12 s and call this tool again.');
			},
		);
	});
});

describe('optional arguments a model leaves empty count as not given', () => {
	let sandbox: Sandbox;
	useSandbox({ businesses: 2 }, { customers: 60 }, (started) => (sandbox = started));

	const getMany = (parameters: INodeParameters, item: IDataObject) =>
		runNode({
			credentials: credentialsFor(sandbox),
			parameters: { resource: 'customer', operation: 'getAll', ...parameters },
			items: [item],
			asTool: true,
		});

	it('Return All and Limit left out of the call: the first 50', async () => {
		const { items, error } = await getMany(
			{ returnAll: fromAi('returnAll', 'boolean'), limit: fromAi('limit', 'number') },
			{},
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(50);
	});

	it.each([[''], [' '], [null]])('Return All and Limit given %j: the first 50', async (empty) => {
		const { items, error } = await getMany(
			{ returnAll: fromAi('returnAll', 'boolean'), limit: fromAi('limit', 'number') },
			{ returnAll: empty, limit: empty },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(50);
	});

	it('a call written with spaces and other capitals is still read; a Limit given as text counts', async () => {
		const limit = "={{ $fromAi( 'limit', 'how many', 'number') }}";
		const given = await getMany({ limit }, { limit: '7' });
		expect(given.error).toBeUndefined();
		expect(given.items).toHaveLength(7);
		const empty = await getMany({ limit }, { limit: '' });
		expect(empty.error).toBeUndefined();
		expect(empty.items).toHaveLength(50);
	});

	it('a Business filter left empty reads every business', async () => {
		const { items, error } = await getMany(
			{ returnAll: true, filters: { businessId: byId(fromAi('businessId')) } },
			{ businessId: '' },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(60);
	});

	it('an empty filter a person set up is still refused', async () => {
		const { error } = await getMany(
			{ returnAll: true, filters: { businessId: byId('={{ $json.businessId }}') } },
			{ businessId: '' },
		);
		expect(error?.message).toMatch(new RegExp(`^${EMPTY_FILTER}`));
	});

	it('a required name left empty names its argument', async () => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'create',
				businessId: byId('biz_1'),
				firstName: fromAi('firstName'),
				lastName: fromAi('lastName'),
			},
			items: [{ firstName: 'Ada', lastName: '' }],
			asTool: true,
		});
		expect(error?.message).toBe(
			`Last Name is empty or only spaces. ${nextStepForModel({ type: 'invalidInput', argument: 'lastName' })}`,
		);
		expect(sandbox.customers).toHaveLength(60);
	});

	it('Skip if the Customer Already Exists names the email the model left empty', async () => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: createAdaParameters('biz_1', {
				additionalFields: { email: fromAi('email') },
				skipExisting: true,
			}),
			items: [{ email: '' }],
			asTool: true,
		});
		expect(error?.message).toMatch(
			/^Email is empty, so the node cannot tell whether this customer already exists/,
		);
		expect(error?.message).toMatch(
			new RegExp(`${escape(nextStepForModel({ type: 'invalidInput', argument: 'email' }))}$`),
		);
		expect(sandbox.customers).toHaveLength(60);
	});

	it('Find by name names the name left empty', async () => {
		const { error } = await runNode({
			credentials: credentialsFor(sandbox),
			parameters: {
				resource: 'customer',
				operation: 'find',
				findBy: 'name',
				firstName: fromAi('firstName'),
				lastName: fromAi('lastName'),
			},
			items: [{ firstName: 'Ada', lastName: null }],
			asTool: true,
		});
		expect(error?.message).toBe(
			`${NO_SEARCH_VALUE.name}. ${nextStepForModel({ type: 'invalidInput', argument: 'lastName' })}`,
		);
		expect(sandbox.requests).toEqual([]);
	});
});
