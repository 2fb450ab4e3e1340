import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The credential test's Base URL. An expression holds no code of the node, so this repeats with
 * plain string methods what parseBaseUrl does: repairs spaces, a mistyped http(s) scheme, no
 * scheme (https), trailing slashes and a copied /api/public/v1, and turns what it refuses
 * (another scheme, ? or #, inner spaces, invisible characters, no host) into "", which n8n
 * reports as an invalid URL without sending anything. The node explains those when it runs.
 */
const TEST_BASE_URL =
	'={{ String($credentials.baseUrl ?? "").trim()' +
	'.replace(/^h+t+p+s+(?::\\/*|\\/+)/i, "https://")' +
	'.replace(/^h+t+p+(?::\\/*|\\/+)/i, "http://")' +
	'.replace(/^(?![a-z][a-z0-9+.-]*:\\/\\/)/i, "https://")' +
	'.replace(/(\\/api\\/public\\/v1)?\\/*$/i, "")' +
	'.replace(/^.*[?#\\s\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\ufeff\\ufff9-\\ufffb].*$|^(?!https?:\\/\\/[^/:]).*$/i, "") }}';

const REDIRECT_MESSAGE =
	'The API answered with a redirect to another address. The node does not follow redirects, so the API key never goes to an address you did not enter: put the address of the API itself into the Base URL.';

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
			placeholder: 'e.g. https://api.example.com',
			description:
				'Address of the Business CRM API, e.g. https://api.example.com. A trailing slash or a copied /api/public/v1 does not matter.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'An API key of your organization. An organization administrator creates keys in the dashboard (Settings › Organization › API Keys).',
		},
		{
			displayName: 'Organization ID',
			name: 'organizationId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'ID of the organization the API key belongs to',
			description:
				'The ID of the organization the API key belongs to. With the ID of another organization the API refuses the key (HTTP 403).',
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
			baseURL: TEST_BASE_URL,
			url: '/api/public/v1/test-api-key',
			method: 'GET',
			// A redirect would carry the key's headers to whatever host it names.
			disableFollowRedirect: true,
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
			...[301, 302, 303, 307, 308].map((value) => ({
				type: 'responseCode' as const,
				properties: { value, message: `${REDIRECT_MESSAGE} (HTTP ${value})` },
			})),
		],
	};
}
