/**
 * What the editor shows a user, as the suite expects it. When the package's or n8n's wording
 * changes on purpose, update it here and nowhere else.
 */

export interface CredentialModalTexts {
	success: string;
	failure: string;
	/** Under the failure, for a key the API does not know (HTTP 401); matched as a substring. */
	wrongKey: string;
	/** Under the failure, for a valid key of another organization (HTTP 403); a substring. */
	otherOrganizationKey: string;
	/**
	 * Under the failure, for a Base URL with a zero-width space pasted after it, and for a key
	 * with one: n8n runs the test, not the node, so its checks and words do not apply there (the
	 * README says so). Seen on 2.8.4; unset where not yet seen.
	 */
	invisibleInBaseUrl?: string;
	invisibleInKey?: string;
	/** The label above the node's credential picker (README, "Your first customer"). */
	credentialLabel: string;
}

/**
 * The credential window's buttons on every tested version (1.123.81, 2.8.4 and 2.41.1 have no Test
 * button, read in their editor's texts): Save tests the credential, and a failed test offers this.
 */
export const RETRY = 'Retry';

/** The trigger's output panel before its first event, beside the Fetch Test Event button. */
export const TEST_THIS_TRIGGER = 'Test this trigger';

/**
 * The credential modal after Save (n8n tests the credential), per n8n version. n8n 2.8.4 shows its
 * own words: the headline, then under "More details" the fixed text NodeApiError gives the status
 * (the credential's own advice does not reach the modal). 2.40.7 shows the credential's advice.
 */
export const CREDENTIAL_MODAL: Record<string, CredentialModalTexts> = {
	'2.8.4': {
		success: 'Connection tested successfully',
		failure: 'Couldn’t connect with these settings',
		wrongKey: 'Authorization failed - please check your credentials',
		otherOrganizationKey: 'Forbidden - perhaps check your credentials?',
		invisibleInBaseUrl: 'Invalid URL',
		invisibleInKey: 'Invalid character in header content ["X-API-Key"]',
		credentialLabel: 'Credential to connect with',
	},
	'2.41.1': {
		success: 'Connection tested successfully',
		failure: 'Couldn’t connect with these settings',
		wrongKey: 'The API rejected the API key (HTTP 401',
		otherOrganizationKey: 'The API key is valid but not allowed here (HTTP 403)',
		invisibleInBaseUrl: 'ERR_INVALID_URL',
		// No invisibleInKey: on 2.41.1 the test of a key with a zero-width space at its end passed.
		credentialLabel: 'Credential',
	},
	'2.40.7': {
		success: 'Connection tested successfully',
		failure: 'Couldn’t connect with these settings',
		wrongKey: 'The API rejected the API key (HTTP 401',
		otherOrganizationKey: 'The API key is valid but not allowed here (HTTP 403)',
		credentialLabel: 'Credential',
	},
};

/** n8n 2.8.4 hides the failure's detail behind this link until it is clicked. */
export const MORE_DETAILS = 'More details';

/** The node's own error for a First Name of spaces, in the NDV's error panel: message, then advice. */
export const BLANK_FIRST_NAME = {
	message: /^First Name is empty or only spaces/,
	advice: /Enter the customer's first name/,
};

/** The node's error for a custom field named like a field the node sends (here Email). */
export const CUSTOM_FIELD_EMAIL = {
	message: /Custom field "Email" would overwrite the Email the node sends/,
	advice:
		/Enter it in the node's Additional Fields › Email field, or give the custom field another name\./,
};

/** The node's error for a Base URL typed without a scheme, against a plain-HTTP server. */
export const NO_SCHEME =
	/No scheme was typed, so https:\/\/ was used, and the server at that address does not speak HTTPS\. If it is a plain-HTTP address, type http:\/\/ in front of the Base URL in the Business CRM credential\./;

/** The advice of a Create whose 429s outlast Options › Max Retries 0: it names the Settings tab. */
export const RATE_LIMIT_ADVICE =
	/The API rate limit was hit and it asked to wait 1 s\. Gave up after 0 retries .*Raise Max Retries under Options on the Parameters tab, or space the input items out on the node's Settings tab \(Request Options › Batching\)\./;

/** The trigger node's test button in the NDV. */
export const FETCH_TEST_EVENT = /Fetch Test Event/i;

/** What the nodes panel lists for the package. */
export const NODE_NAME = 'Business CRM';
export const SEARCHES = ['Business CRM', 'customer', 'CRM'];
export const ACTIONS = [
	'Get a business',
	'Get many businesses',
	'Create a customer',
	'Get many customers',
	'Find customers',
];

/**
 * The trigger in the node's own panel: n8n 2.8.4 lists a package's trigger there under "Triggers
 * (1)", named after its Event option ("New Customer" shown as "On new customer"), and while the
 * workflow has no trigger it opens Triggers and leaves "Actions (5)" collapsed.
 */
export const TRIGGER_ACTION = /^On new customer$/;

/** The nodes panel when a search finds nothing: 2.8.4, then 2.40.7. */
export const NO_RESULTS = /We didn't make that\.\.\. yet|No results for "/;

/**
 * n8n's notice over a node's output fields shown from its schema before it ran (the same words on
 * 2.8.4, 1.123.81 and 2.41.1: `dataMapping.schemaView.preview` of the editor's English texts).
 */
export const SCHEMA_PREVIEW = /Usually outputs the following fields/;
