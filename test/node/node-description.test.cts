// n8n-core's own converter from a node to an AI Agent tool; not re-exported from its index.
import {
	getToolDescriptionForNode,
	NodeHelpers,
	Workflow,
	type INode,
	type INodeProperties,
} from 'n8n-workflow';
import codex from '../../nodes/BusinessCrm/BusinessCrm.node.json';
import triggerCodex from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node.json';
import packageJson from '../../package.json';
import { loadNodeType, NODE_TYPE, onlyType, savedNode, toolOf } from '../helpers/harness.cjs';
import { startSandbox, type Sandbox } from '../sandbox/server.cjs';
import { credentialsFor } from '../helpers/fixtures.cjs';
import { DEFAULT_RETRY_POLICY } from '../../nodes/BusinessCrm/api/retries';
import { DEFAULT_PAGES_IN_PARALLEL } from '../../nodes/BusinessCrm/api/lists';
import { businessIdLocator } from '../../nodes/BusinessCrm/params/descriptions';
import {
	ACTIVATION_NOTICE,
	BusinessCrmTrigger,
} from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import { TRIGGER_TYPE } from '../helpers/poll-harness.cjs';
import { BusinessCrmApi } from '../../credentials/BusinessCrmApi.credentials';
import { KEY_HELP } from '../../nodes/BusinessCrm/errors/errors';

const nodeType = loadNodeType();
const { description } = nodeType;

function node(parameters: INode['parameters']): INode {
	return savedNode('Business CRM', NODE_TYPE, parameters, '1');
}

/** An expression of the description (subtitle, hint condition) as n8n evaluates it for a node. */
function evaluate(expression: string, parameters: INode['parameters']): unknown {
	const crm = node(parameters);
	const workflow = new Workflow({
		nodes: [crm],
		connections: {},
		active: false,
		nodeTypes: onlyType(nodeType),
	});
	return workflow.expression.getSimpleParameterValue(crm, expression, 'internal', {});
}

function property(name: string, operation?: string): INodeProperties {
	const found = description.properties.find(
		(p) =>
			p.name === name && (!operation || p.displayOptions?.show?.operation?.includes(operation)),
	);
	if (!found) throw new Error(`no property ${name}`);
	return found;
}

describe('node description', () => {
	it('keeps the names saved workflows depend on', () => {
		expect(description.name).toBe('businessCrm');
		expect(description.version).toBe(1);
		expect(description.credentials).toEqual([{ name: 'businessCrmApi', required: true }]);
		const operations = description.properties
			.filter((p) => p.name === 'operation')
			.map((p) => [
				p.displayOptions?.show?.resource,
				p.options?.map((o) => (o as { value: string }).value),
			]);
		expect(operations).toEqual([
			[['business'], ['get', 'getAll']],
			[['customer'], ['create', 'find', 'getAll']],
		]);
		expect(description.properties.map((p) => p.name)).toEqual([
			'resource',
			'operation',
			'businessId',
			'returnAll',
			'limit',
			'operation',
			'businessId',
			'firstName',
			'lastName',
			'additionalFields',
			'skipExisting',
			'matchOn',
			'matchWithin',
			'noMatchValue',
			'previewOnly',
			'findBy',
			'email',
			'phone',
			'firstName',
			'lastName',
			'customerId',
			'whenNothingMatches',
			'returnAll',
			'limit',
			'filters',
			'options',
			'requestOptions',
		]);
	});

	it('is a transform node usable as an AI tool, with a subtitle and both icons', () => {
		expect(description.usableAsTool).toBe(true);
		expect(description.group).toEqual(['transform']);
		expect(description.subtitle).toContain('$parameter["operation"]');
		expect(description.icon).toEqual({
			light: 'file:../../icons/businessCrm.svg',
			dark: 'file:../../icons/businessCrm.dark.svg',
		});
	});

	it('shows the operation and resource on the canvas by their display names, as n8n asks', () => {
		const subtitle = (resource: string, operation: string) =>
			evaluate(description.subtitle as string, { resource, operation });
		expect(subtitle('customer', 'getAll')).toBe('Get Many: Customer');
		expect(subtitle('customer', 'create')).toBe('Create: Customer');
		expect(subtitle('customer', 'find')).toBe('Find: Customer');
		expect(subtitle('business', 'get')).toBe('Get: Business');
		expect(subtitle('business', 'getAll')).toBe('Get Many: Business');
	});

	it('after a Find with Output Nothing, points at Output a Not-Found Item in the output pane', () => {
		const [hint] = description.hints ?? [];
		const shown = (parameters: INode['parameters']) =>
			evaluate(hint.displayCondition as string, parameters);
		expect(description.hints).toHaveLength(1);
		expect(hint).toMatchObject({ location: 'outputPane', whenToDisplay: 'afterExecution' });
		expect(hint.message).toContain('<b>Output a Not-Found Item</b>');
		expect(shown({ resource: 'customer', operation: 'find' })).toBe(true);
		expect(shown({ operation: 'find', whenNothingMatches: 'nothing' })).toBe(true);
		expect(
			shown({ resource: 'customer', operation: 'find', whenNothingMatches: 'notFoundItem' }),
		).toBe(false);
		expect(shown({ resource: 'customer', operation: 'getAll' })).toBe(false);
		expect(shown({ resource: 'business', operation: 'find' })).toBe(false);
	});

	it('describes each operation to an AI agent in plain words', () => {
		const cases: Array<[string, string, string]> = [
			['business', 'get', 'Get a business in Business CRM'],
			['business', 'getAll', 'Get many businesses in Business CRM'],
			['customer', 'create', 'Create a customer in Business CRM'],
			['customer', 'find', 'Find customers in Business CRM'],
			['customer', 'getAll', 'Get many customers in Business CRM'],
		];
		for (const [resource, operation, expected] of cases) {
			expect(getToolDescriptionForNode(node({ resource, operation }), nodeType)).toBe(expected);
		}
	});

	it("names each operation's tool within the 64 characters n8n 2.41+ keep of a tool name", () => {
		// A tool node's default name is the action plus " in Business CRM" (n8n's editor,
		// makeNodeName), and the tool's name is that node name with spaces as _ (nodeNameToToolName).
		for (const operation of description.properties.filter((p) => p.name === 'operation')) {
			for (const option of operation.options as Array<{ action: string }>) {
				expect(
					`${option.action} in Business CRM`.replace(/[^a-zA-Z0-9_-]+/g, '_').length,
				).toBeLessThanOrEqual(64);
			}
		}
	});

	it('says in each operation which IDs it takes and gives, and what Find compares', () => {
		const operation = (resource: string, value: string) =>
			(
				description.properties
					.filter(
						(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
					)
					.flatMap((p) => p.options as Array<{ value: string; description: string }>)
					.find((o) => o.value === value) as { description: string }
			).description;
		expect(operation('customer', 'create')).toContain(
			"given the business ID and the customer's first and last name",
		);
		expect(operation('customer', 'create')).toContain('the new customer with its ID (cust_…)');
		expect(operation('customer', 'getAll')).toContain('each with its ID (cust_…)');
		expect(operation('business', 'getAll')).toContain('each with the ID other operations take');
		expect(operation('business', 'get')).toContain('by its ID');
		expect(operation('customer', 'find')).toBe(
			'Find customers by email or by first and last name (whole, in any capitals), by the digits of a phone number, or by customer ID (exactly)',
		);
		expect(property('email', 'find').description).toContain('part of an address finds no one');
	});

	describe('as an AI Agent tool, against the sandbox', () => {
		let sandbox: Sandbox;
		beforeAll(async () => {
			sandbox = await startSandbox({ businesses: 2, customers: 3 });
		});
		afterAll(async () => await sandbox.close());

		const asTool = (parameters: INode['parameters']) =>
			toolOf(node(parameters), nodeType, credentialsFor(sandbox));

		it('lets a model fill Create through $fromAI, with the parameters described', async () => {
			const parameters = {
				resource: 'customer',
				operation: 'create',
				businessId: {
					__rl: true,
					mode: 'id',
					value:
						"={{ $fromAI('businessId', 'ID of the business, such as biz_8f3a2c91d04e7b65. Find it by name with the Get many businesses tool.', 'string') }}",
				},
				firstName: "={{ $fromAI('firstName', 'Given name of the customer', 'string') }}",
				lastName: "={{ $fromAI('lastName', 'Family name of the customer', 'string') }}",
			};
			const tool = asTool(parameters);
			expect(tool.description).toBe('Create a customer in Business CRM');
			const shape = (tool.schema as unknown as { shape: Record<string, { description?: string }> })
				.shape;
			expect(Object.keys(shape).sort()).toEqual(['businessId', 'firstName', 'lastName']);
			expect(shape.firstName.description).toBe('Given name of the customer');
			// The README's suggested description is what the model reads for the Business.
			expect(shape.businessId.description).toBe(
				'ID of the business, such as biz_8f3a2c91d04e7b65. Find it by name with the Get many businesses tool.',
			);
			const businessId = sandbox.businesses[1].id;
			sandbox.clearLog();
			const reply = (await tool.invoke({
				businessId,
				firstName: 'Ada',
				lastName: 'Lovelace',
			})) as string;
			// The model's values reached the API, and the new customer is what the model reads back.
			const posted = sandbox.requests.filter((request) => request.method === 'POST');
			expect(posted.map((request) => request.body)).toEqual([
				{ businessId, firstName: 'Ada', lastName: 'Lovelace' },
			]);
			const created = sandbox.customers.at(-1)!;
			expect(created).toMatchObject({ businessId, firstName: 'Ada', lastName: 'Lovelace' });
			expect(JSON.parse(reply)).toEqual([created]);
		});

		it('lets a model fill Find by email through $fromAI, told what to pass', async () => {
			const findBy = property('findBy', 'find');
			expect(findBy).toMatchObject({ type: 'options', default: 'email' });
			expect(findBy.options?.map((o) => (o as { value: string }).value)).toEqual([
				'email',
				'phone',
				'name',
				'id',
			]);
			const operation = description.properties
				.filter((p) => p.name === 'operation')[1]
				.options?.find((o) => (o as { value: string }).value === 'find') as {
				action: string;
				description: string;
			};
			expect(operation.action).toBe('Find customers');
			expect(operation.description).toMatch(
				/by email or by first and last name .*, by the digits of a phone number, or by customer ID/,
			);
			const tool = asTool({
				resource: 'customer',
				operation: 'find',
				findBy: 'email',
				email: "={{ $fromAI('email', 'Email address of the customer', 'string') }}",
			});
			expect(tool.description).toBe('Find customers in Business CRM');
			const shape = (tool.schema as unknown as { shape: Record<string, unknown> }).shape;
			expect(Object.keys(shape)).toEqual(['email']);
			const wanted = sandbox.customers[1];
			const reply = (await tool.invoke({
				email: ` ${String(wanted.email).toUpperCase()} `,
			})) as string;
			expect(JSON.parse(reply)).toEqual([wanted]);
		});
	});

	it('filters Get Many customers by a Business picked as everywhere else, not required', () => {
		const filters = property('filters', 'getAll');
		expect(filters).toMatchObject({ type: 'collection', default: {} });
		expect(filters.displayOptions?.show?.resource).toEqual(['customer']);
		const [business] = filters.options as INodeProperties[];
		expect(business).toMatchObject({
			name: 'businessId',
			type: 'resourceLocator',
			required: false,
			default: { mode: 'list', value: '' },
		});
		expect(business.modes).toEqual(businessIdLocator.modes);
	});

	it('documents Limit as n8n expects and keeps the retry defaults in sync with the code', () => {
		expect(property('limit', 'getAll')).toMatchObject({
			default: 50,
			typeOptions: { minValue: 1 },
		});
		expect(property('returnAll', 'getAll')).toMatchObject({ default: false });
		const options = property('options').options as INodeProperties[];
		expect(Object.fromEntries(options.map((o) => [o.name, o.default]))).toEqual({
			maxRetries: DEFAULT_RETRY_POLICY.maxRetries,
			maxRetryWait: DEFAULT_RETRY_POLICY.maxWaitMs / 1000,
			pagesInParallel: DEFAULT_PAGES_IN_PARALLEL,
		});
	});

	it('shows Pages Read at Once for every list read: Get Many, Find, and Create only with Skip if the Customer Already Exists', () => {
		const kept = (resource: string, operation: string, extra: object = {}) => {
			const parameters = { resource, operation, ...extra, options: { pagesInParallel: 3 } };
			const resolved = NodeHelpers.getNodeParameters(
				description.properties,
				parameters,
				false,
				false,
				node(parameters),
				description,
			);
			return (resolved?.options as { pagesInParallel?: number }).pagesInParallel;
		};
		expect(kept('customer', 'getAll')).toBe(3);
		expect(kept('business', 'getAll')).toBe(3);
		expect(kept('customer', 'find')).toBe(3);
		expect(kept('customer', 'create', { skipExisting: true })).toBe(3);
		expect(kept('customer', 'create')).toBeUndefined();
		expect(kept('customer', 'create', { skipExisting: false })).toBeUndefined();
		expect(kept('business', 'get')).toBeUndefined();
	});

	it("shows Skip if the Customer Already Exists as Create's own switch, its settings only when it is on, and Preview Only always", () => {
		const create = description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('create'),
		);
		const names = create.map((p) => p.name);
		expect(names.slice(names.indexOf('skipExisting'))).toEqual([
			'skipExisting',
			'matchOn',
			'matchWithin',
			'noMatchValue',
			'previewOnly',
		]);
		const shown = (parameters: object) => {
			const all = { resource: 'customer', operation: 'create', ...parameters };
			const resolved = NodeHelpers.getNodeParameters(
				description.properties,
				all,
				true,
				false,
				node(all),
				description,
			);
			return ['skipExisting', 'matchOn', 'matchWithin', 'noMatchValue', 'previewOnly'].filter(
				(name) => resolved?.[name] !== undefined,
			);
		};
		// Preview Only whatever the switch says: n8n drops a hidden parameter, and a preview that
		// lost its Preview Only would write.
		expect(shown({})).toEqual(['skipExisting', 'previewOnly']);
		expect(shown({ skipExisting: false, previewOnly: true })).toEqual([
			'skipExisting',
			'previewOnly',
		]);
		expect(shown({ skipExisting: true })).toEqual([
			'skipExisting',
			'matchOn',
			'matchWithin',
			'noMatchValue',
			'previewOnly',
		]);
		expect(shown({ skipExisting: true, matchOn: 'name' })).toEqual([
			'skipExisting',
			'matchOn',
			'matchWithin',
			'previewOnly',
		]);
		expect(property('previewOnly', 'create')).toMatchObject({ type: 'boolean', default: false });
		expect(property('skipExisting', 'create')).toMatchObject({ type: 'boolean', default: false });
		expect(property('matchOn', 'create')).toMatchObject({ default: 'email' });
		expect(property('matchWithin', 'create')).toMatchObject({ default: 'business' });
		expect(property('noMatchValue', 'create')).toMatchObject({ default: 'error' });
	});
});

describe('words on screen', () => {
	it("uses n8n's casing for collections and plain words for the Options tooltips", () => {
		const options = description.properties.find((p) => p.name === 'options') as INodeProperties;
		expect(options.placeholder).toBe('Add option');
		const triggerOptions = new BusinessCrmTrigger().description.properties.find(
			(p) => p.name === 'options',
		);
		expect(triggerOptions?.placeholder).toBe('Add option');
		const tooltip = (name: string) =>
			(options.options as INodeProperties[]).find((o) => o.name === name)?.description;
		expect(tooltip('maxRetries')).toBe(
			'How many times the node asks again when the API says it is busy, after waiting as long as the API asks. Reads are also asked again after a brief server or connection problem; a Create is not, so that no customer is added twice. Raise it if big runs stop because the API is busy; 0 turns it off. Settings › Retry On Fail is something else: it runs the whole node again after it failed, every item, Creates that worked included.',
		);
		expect(tooltip('maxRetryWait')).toBe(
			'The most time the node spends waiting to ask again, added up over the retries of one request. If the API asks for a longer wait, the node stops with an error that says how long. Raise it if runs stop on such an error; lower it if a run should rather fail fast.',
		);
	});

	it('the retry and page tooltips name no HTTP status and say when to change them', () => {
		const options = description.properties.find((p) => p.name === 'options') as INodeProperties;
		for (const name of ['maxRetries', 'maxRetryWait', 'pagesInParallel']) {
			const text = (options.options as INodeProperties[]).find((o) => o.name === name)
				?.description as string;
			expect(text).not.toMatch(/\b[1-5]\d\d\b|Too Many Requests|total/);
			expect(text).toMatch(/Raise it|Lower it/);
		}
	});

	it("shows every placeholder of the node and the credential in n8n's e.g. form", () => {
		const placeholders: string[] = [];
		const walk = (properties: INodeProperties[]) => {
			for (const property of properties) {
				const inputs = ['string', 'number'].includes(property.type);
				if (inputs && property.placeholder !== undefined) placeholders.push(property.placeholder);
				for (const mode of property.modes ?? []) {
					if (mode.type === 'string' && mode.placeholder) placeholders.push(mode.placeholder);
				}
				for (const option of (property.options ?? []) as Array<
					INodeProperties | { values?: INodeProperties[] }
				>) {
					if ('displayName' in option && 'type' in option) walk([option]);
					if ('values' in option && option.values) walk(option.values);
				}
			}
		};
		walk(description.properties);
		walk(new BusinessCrmApi().properties.filter((property) => property.name !== 'organizationId'));
		expect(placeholders).toContain('e.g. nathan@example.com');
		expect(placeholders).toContain('e.g. https://api.example.com');
		for (const placeholder of placeholders) expect(placeholder).toMatch(/^e\.g\. \S/);
	});

	it('describes Find for people: what it searches by, and what the choices when nothing matches do', () => {
		const find = description.properties
			.filter((p) => p.name === 'operation')[1]
			.options?.find((o) => (o as { value: string }).value === 'find') as { description: string };
		expect(find.description).toContain(
			'Find customers by email or by first and last name (whole, in any capitals)',
		);
		const otherwise = property('whenNothingMatches', 'find');
		expect(otherwise).toMatchObject({ type: 'options', default: 'nothing' });
		expect(otherwise.options?.map((o) => (o as { value: string }).value)).toEqual([
			'nothing',
			'notFoundItem',
		]);
		expect(otherwise.description).toContain('If node');
		expect(otherwise.description).toContain('Always Output Data');
		expect(property('phone', 'find').description).toContain('(202) 555-0236 finds +1 202 555 0236');
	});

	it('names one place for API keys in the credential and the errors, and gives Organization ID a placeholder', () => {
		const fields = new BusinessCrmApi().properties;
		const field = (name: string) => fields.find((f) => f.name === name);
		expect(field('apiKey')?.description).toContain('(Settings › Organization › API Keys)');
		expect(field('organizationId')?.placeholder).toBe(
			'ID of the organization the API key belongs to',
		);
		const rules = new BusinessCrmApi().test.rules ?? [];
		const unauthorized = rules.find(
			(rule) => rule.type === 'responseCode' && rule.properties.value === 401,
		);
		expect(unauthorized?.properties.message).toContain('(Settings › Organization › API Keys)');
		expect(KEY_HELP).toContain('(Settings › Organization › API Keys)');
	});
});

describe('codex and package manifest', () => {
	const categories = [
		'Data & Storage',
		'Finance & Accounting',
		'Marketing & Content',
		'Productivity',
		'Miscellaneous',
		'Sales',
		'Development',
		'Analytics',
		'Communication',
		'Utility',
	];

	it('tells the user in the Business tooltip what an ID looks like and where to find one', () => {
		expect(businessIdLocator.description).toBe(
			'The business, picked from the list or given by its ID, such as biz_8f3a2c91d04e7b65. Business › Get Many lists every business with its ID.',
		);
	});

	it('shows a By ID placeholder shaped like a real business ID (biz_ and 16 hex characters)', () => {
		const locators = description.properties.filter((p) => p.name === 'businessId');
		expect(locators.length).toBeGreaterThan(0);
		for (const locator of locators) {
			const byId = locator.modes?.find((mode) => mode.name === 'id');
			expect(byId?.placeholder).toMatch(/^e\.g\. biz_[0-9a-f]{16}$/);
		}
	});

	it('files the node under a category n8n knows, findable by the words users search for', () => {
		expect(codex.node).toBe(NODE_TYPE);
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.categories.every((c) => categories.includes(c))).toBe(true);
		expect(codex.alias).toEqual(expect.arrayContaining(['customer', 'CRM', 'business', 'contact']));
		expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
		// n8n's editor appends "?utm_source=…" to the codex link: it must hold no #anchor.
		for (const url of [
			codex.resources.primaryDocumentation[0].url,
			triggerCodex.resources.primaryDocumentation[0].url,
		]) {
			expect(new URL(`${url}?utm_source=n8n_app`).hash).toBe('');
		}
		// A documentationUrl starting with http is opened as given, anchor included.
		expect(description.documentationUrl).toMatch(/^https:\/\/.*#operations$/);
		expect(codex.resources.credentialDocumentation[0].url).toMatch(/^https:\/\//);
	});

	it('is a community package n8n can install: no runtime dependencies, only n8n-workflow as peer', () => {
		expect(packageJson.name).toBe('n8n-nodes-business-crm');
		expect(packageJson.license).toBe('MIT');
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.files).toEqual(['dist']);
		expect((packageJson as { dependencies?: object }).dependencies).toBeUndefined();
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(packageJson.n8n).toMatchObject({
			n8nNodesApiVersion: 1,
			credentials: ['dist/credentials/BusinessCrmApi.credentials.js'],
			nodes: [
				'dist/nodes/BusinessCrm/BusinessCrm.node.js',
				'dist/nodes/BusinessCrmTrigger/BusinessCrmTrigger.node.js',
			],
		});
	});

	it('files the trigger beside the node, under its own type name', () => {
		expect(triggerCodex.node).toBe(TRIGGER_TYPE);
		expect(triggerCodex.categories.length).toBeGreaterThan(0);
		expect(triggerCodex.categories.every((c) => categories.includes(c))).toBe(true);
		expect(triggerCodex.alias).toEqual(expect.arrayContaining(['customer', 'CRM', 'new customer']));
		expect(triggerCodex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
		expect(triggerCodex.resources.credentialDocumentation[0].url).toMatch(/^https:\/\//);
	});
});

describe('trigger description', () => {
	const trigger = new BusinessCrmTrigger();
	const { description: triggerDescription } = trigger;

	it('keeps the names saved workflows depend on', () => {
		expect(triggerDescription).toMatchObject({
			name: 'businessCrmTrigger',
			displayName: 'Business CRM Trigger',
			version: 1,
			polling: true,
			group: ['trigger'],
			inputs: [],
			outputs: ['main'],
			credentials: [{ name: 'businessCrmApi', required: true }],
			defaults: { name: 'Business CRM Trigger' },
		});
		expect(triggerDescription.properties.map((p) => p.name)).toEqual([
			'activationNotice',
			'event',
			'options',
		]);
		const [, event, options] = triggerDescription.properties;
		expect(event).toMatchObject({
			type: 'options',
			default: 'newCustomer',
			noDataExpression: true,
		});
		expect(event.options).toEqual([
			expect.objectContaining({ name: 'New Customer', value: 'newCustomer' }),
		]);
		expect(options.options).toEqual([
			expect.objectContaining({ name: 'businessId', type: 'resourceLocator', required: false }),
		]);
	});

	it('picks the Business as the action node does, from the same searchable list', () => {
		const [business] = triggerDescription.properties[2].options as INodeProperties[];
		expect(business.modes).toEqual(businessIdLocator.modes);
		expect(business.default).toEqual({ mode: 'list', value: '' });
		expect(trigger.methods.listSearch.searchBusinesses).toBe(
			nodeType.methods?.listSearch?.searchBusinesses,
		);
	});

	it('says in a notice that only customers added after publishing start it, and what Fetch Test Event shows', () => {
		const [notice] = triggerDescription.properties;
		expect(notice).toMatchObject({ type: 'notice', default: '' });
		expect(notice.displayName).toBe(ACTIVATION_NOTICE);
		const [business] = triggerDescription.properties[2].options as INodeProperties[];
		expect(business.description).not.toMatch(/businessId|poll/);
	});

	it('shows the same icons, links its README section and is not offered as an AI tool', () => {
		expect(triggerDescription.icon).toEqual(description.icon);
		expect(triggerDescription.documentationUrl).toMatch(/^https:\/\/.*#business-crm-trigger$/);
		expect(triggerDescription.usableAsTool).toBeUndefined();
		expect(typeof trigger.poll).toBe('function');
	});
});
