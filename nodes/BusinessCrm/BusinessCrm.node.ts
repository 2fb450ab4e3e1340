import {
	NodeConnectionTypes,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { searchBusinesses } from './listSearch/searchBusinesses';
import { businessDescription } from './resources/business';
import { customerDescription } from './resources/customer';
import { findHints } from './resources/customer/find';
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
			},
			{
				name: 'Customer',
				value: 'customer',
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
}
