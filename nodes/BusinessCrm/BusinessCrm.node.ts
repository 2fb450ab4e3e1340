import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { searchBusinesses } from './listSearch/searchBusinesses';
import { businessDescription } from './resources/business';
import { customerDescription } from './resources/customer';
import { BASE_URL_EXPRESSION } from './shared/baseUrl';
import { retryOptions } from './shared/descriptions';

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
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Read businesses and add or list customers with the Business and Customer Service API',
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
		requestDefaults: {
			// From the credential, so n8n's allowed-domains check covers every request.
			baseURL: BASE_URL_EXPRESSION,
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
			},
		},
		properties: [
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
		],
	};

	methods = {
		listSearch: {
			searchBusinesses,
		},
	};
}
