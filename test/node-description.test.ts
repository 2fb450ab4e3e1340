// n8n-core's own converter from a node to an AI Agent tool; not re-exported from its index.
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';
import { getToolDescriptionForNode, type INode, type INodeProperties } from 'n8n-workflow';
import codex from '../nodes/BusinessCrm/BusinessCrm.node.json';
import triggerCodex from '../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node.json';
import packageJson from '../package.json';
import { loadNodeType, NODE_TYPE } from './helpers/harness';
import { DEFAULT_RETRY_POLICY } from '../nodes/BusinessCrm/shared/transport';
import { businessIdLocator } from '../nodes/BusinessCrm/shared/descriptions';
import { BusinessCrmTrigger } from '../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import { TRIGGER_TYPE } from './helpers/poll-harness';

const nodeType = loadNodeType();
const { description } = nodeType;

function node(parameters: INode['parameters']): INode {
	return {
		id: '1',
		name: 'Business CRM',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
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
			[['customer'], ['create', 'getAll']],
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
			'returnAll',
			'limit',
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

	it('describes each operation to an AI agent in plain words', () => {
		const cases: Array<[string, string, string]> = [
			['business', 'get', 'Get a business in Business CRM'],
			['business', 'getAll', 'Get many businesses in Business CRM'],
			['customer', 'create', 'Create a customer in Business CRM'],
			['customer', 'getAll', 'Get many customers in Business CRM'],
		];
		for (const [resource, operation, expected] of cases) {
			expect(getToolDescriptionForNode(node({ resource, operation }), nodeType)).toBe(expected);
		}
	});

	it('lets a model fill Create through $fromAI, with the parameters described', async () => {
		const calls: unknown[] = [];
		const { response: tool } = createNodeAsTool({
			node: node({
				resource: 'customer',
				operation: 'create',
				businessId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('businessId', 'ID of the business', 'string') }}",
				},
				firstName: "={{ $fromAI('firstName', 'Given name of the customer', 'string') }}",
				lastName: "={{ $fromAI('lastName', 'Family name of the customer', 'string') }}",
			}),
			nodeType,
			handleToolInvocation: async (args: unknown) => {
				calls.push(args);
				return 'ok';
			},
		});
		expect(tool.description).toBe('Create a customer in Business CRM');
		const shape = (tool.schema as unknown as { shape: Record<string, { description?: string }> })
			.shape;
		expect(Object.keys(shape).sort()).toEqual(['businessId', 'firstName', 'lastName']);
		expect(shape.firstName.description).toBe('Given name of the customer');
		await tool.invoke({ businessId: 'biz_1', firstName: 'Ada', lastName: 'Lovelace' });
		expect(calls).toEqual([{ businessId: 'biz_1', firstName: 'Ada', lastName: 'Lovelace' }]);
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
		});
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

	it('files the node under a category n8n knows, findable by the words users search for', () => {
		expect(codex.node).toBe(NODE_TYPE);
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.categories.every((c) => categories.includes(c))).toBe(true);
		expect(codex.alias).toEqual(expect.arrayContaining(['customer', 'CRM', 'business', 'contact']));
		expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
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
		expect(triggerCodex.resources.primaryDocumentation[0].url).toMatch(
			/^https:\/\/.*#business-crm-trigger$/,
		);
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
		expect(triggerDescription.properties.map((p) => p.name)).toEqual(['event', 'options']);
		const [event, options] = triggerDescription.properties;
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
		const [business] = triggerDescription.properties[1].options as INodeProperties[];
		expect(business.modes).toEqual(businessIdLocator.modes);
		expect(business.default).toEqual({ mode: 'list', value: '' });
		expect(trigger.methods.listSearch.searchBusinesses).toBe(
			nodeType.methods?.listSearch?.searchBusinesses,
		);
	});

	it('shows the same icons, links its README section and is not offered as an AI tool', () => {
		expect(triggerDescription.icon).toEqual(description.icon);
		expect(triggerDescription.documentationUrl).toMatch(/^https:\/\/.*#business-crm-trigger$/);
		expect(triggerDescription.usableAsTool).toBeUndefined();
		expect(typeof trigger.poll).toBe('function');
	});
});
