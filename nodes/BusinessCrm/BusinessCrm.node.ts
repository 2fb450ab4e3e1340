import {
	NodeConnectionTypes,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { searchBusinesses } from './listSearch/searchBusinesses';
import { businessDescription } from './resources/business';
import { customerDescription } from './resources/customer';
import { customerCreate } from './resources/customer/create/operation';
import { findHints } from './resources/customer/findHint';
import { retryOptions } from './params/descriptions';
import { displayNameSubtitle } from './params/subtitle';

const PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Business',
				value: 'business',
				builderHint: {
					propertyHint:
						'The businesses of the organization; their IDs (biz_…) are what customers belong to',
				},
			},
			{
				name: 'Customer',
				value: 'customer',
				builderHint: {
					propertyHint:
						'Create, find or list customers; each belongs to one business and has an ID (cust_…)',
				},
			},
		],
		default: 'customer',
	},
	...businessDescription,
	...customerDescription,
	retryOptions,
];

export class BusinessCrm implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Business CRM',
		name: 'businessCrm',
		icon: {
			light: 'file:../../icons/businessCrm.svg',
			dark: 'file:../../icons/businessCrm.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: displayNameSubtitle(PROPERTIES),
		description:
			'Read businesses and add or list customers with the Business and Customer Service API',
		// Used as given. The codex's primaryDocumentation gets n8n's tracking query appended
		// after it, which would break an #anchor, so the codex links the README without one.
		documentationUrl:
			'https://github.com/n8n-nodes-business-crm/n8n-nodes-business-crm?tab=readme-ov-file#operations',
		defaults: {
			name: 'Business CRM',
		},
		usableAsTool: true,
		// Read by n8n's node catalog (MCP workflow-builder tools, Instance AI); older n8n ignores it.
		builderHint: {
			searchHint:
				'CRM of the Business and Customer Service API: read businesses, create, find and list customers. Business IDs look like biz_…, customer IDs like cust_…; take a business ID from Business › Get Many, never invent one. To add people without duplicates, use Customer › Create with Skip Existing on, or Customer › Find first. For new customers as they arrive, use the Business CRM Trigger.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-business-crm.businessCrmTrigger',
					relationHint: 'Starts a workflow for each new customer',
				},
				{
					nodeType: 'n8n-nodes-base.if',
					relationHint:
						'After Find with Output a Not-Found Item, sends the items whose found field is false on to Create',
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'businessCrmApi',
				required: true,
			},
		],
		// No baseURL here: the transport sets the credential's (repaired) Base URL on every request.
		requestDefaults: {
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
			},
		},
		properties: PROPERTIES,
		hints: findHints,
	};

	methods = {
		listSearch: {
			searchBusinesses,
		},
	};

	// A workflow run of Create skips n8n's routing, which evaluates every parameter of every row
	// before the first Create (see runEachItem); tool calls still take the routing.
	customOperations = {
		customer: { create: customerCreate },
	};
}
