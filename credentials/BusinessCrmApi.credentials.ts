import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';
import { BASE_URL_EXPRESSION } from '../nodes/BusinessCrm/shared/baseUrl';

export class BusinessCrmApi implements ICredentialType {
	name = 'businessCrmApi';

	displayName = 'Business CRM API';

	icon: Icon = {
		light: 'file:../icons/businessCrm.svg',
		dark: 'file:../icons/businessCrm.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-business-crm/n8n-nodes-business-crm?tab=readme-ov-file#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Address of the Business CRM API, without a path such as /api/public/v1. A trailing slash does not matter.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"An API key of your organization. An organization administrator creates keys in the dashboard's settings (Organization › API Keys).",
		},
		{
			displayName: 'Organization ID',
			name: 'organizationId',
			type: 'string',
			default: '',
			required: true,
			description: 'The ID of the organization the API key belongs to',
		},
	];

	// Surrounding whitespace from copy and paste would make the headers invalid.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-API-Key': '={{ String($credentials.apiKey ?? "").trim() }}',
				'X-Organization-ID': '={{ String($credentials.organizationId ?? "").trim() }}',
			},
		},
	};

	// n8n replaces a failed test's reply with these rules' words, so they say what to check.
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_EXPRESSION,
			url: '/api/public/v1/test-api-key',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API rejected the API key (HTTP 401: missing or invalid key). Copy a current key from the organization dashboard (Settings › Organization › API Keys); keys are managed by an organization administrator.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key is valid but not allowed here (HTTP 403). Check that the Organization ID is the one the key belongs to, and ask an organization administrator whether the key has the needed permissions.',
				},
			},
		],
	};
}
