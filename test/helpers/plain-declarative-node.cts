/**
 * A declarative node with nothing of ours in it: three fields whose routing sends Create's POST,
 * the Business CRM credential's headers, and n8n's own request path. The benchmark runs it in the
 * same harness beside the Business CRM node, so what n8n itself spends per item (its routing
 * loop, expressions, its HTTP client) is measured, not guessed: the floor of any declarative node.
 */
import { NodeConnectionTypes, type INodeType } from 'n8n-workflow';
import { DirectoryLoader } from 'n8n-core';
import { CREATE_URL } from '../../nodes/BusinessCrm/resources/customer/create/request';

const field = (name: string) => ({
	displayName: name,
	name,
	type: 'string' as const,
	default: '',
	routing: { send: { type: 'body' as const, property: name } },
});

export function plainDeclarativeCreate(): INodeType {
	const nodeType: INodeType = {
		description: {
			displayName: 'Plain Create',
			name: 'plainCreate',
			group: ['transform'],
			version: 1,
			description: "Create's POST by n8n's routing alone",
			defaults: { name: 'Plain Create' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'businessCrmApi', required: true }],
			requestDefaults: {
				baseURL: '={{ $credentials.baseUrl }}',
				headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
			},
			properties: [
				{
					displayName: 'Operation',
					name: 'operation',
					type: 'options',
					noDataExpression: true,
					default: 'create',
					options: [
						{
							name: 'Create',
							value: 'create',
							action: 'Create a customer',
							routing: { request: { method: 'POST', url: CREATE_URL } },
						},
					],
				},
				field('businessId'),
				field('firstName'),
				field('lastName'),
			],
		},
	};
	// As n8n's loader does for every declarative node: the Request Options collection.
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
	return nodeType;
}
