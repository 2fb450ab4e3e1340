/**
 * What the editor shows a user, as the suite expects it. When the package's or n8n's wording
 * changes on purpose, update it here and nowhere else.
 */

/**
 * The credential modal after Save (n8n tests the credential). n8n 2.8.4 shows its own words: the
 * headline, then under "More details" the fixed text NodeApiError gives the status; the
 * credential's own 401/403 advice does not reach the modal on this version.
 */
export const CREDENTIAL_MODAL = {
	success: 'Connection tested successfully',
	failure: 'Couldn’t connect with these settings',
	moreDetails: 'More details',
	/** A key the API does not know (HTTP 401). */
	wrongKey: 'Authorization failed - please check your credentials',
	/** A valid key of another organization (HTTP 403). */
	otherOrganizationKey: 'Forbidden - perhaps check your credentials?',
};

/** The node's own error for a First Name of spaces, in the NDV's error panel: message, then advice. */
export const BLANK_FIRST_NAME = {
	message: /^First Name is empty/,
	advice: /Enter the customer's first name/,
};

/** What the nodes panel lists for the package. */
export const NODE_NAME = 'Business CRM';
export const SEARCHES = ['Business CRM', 'customer', 'CRM'];
export const ACTIONS = [
	'Get a business',
	'Get many businesses',
	'Create a customer',
	'Get many customers',
];
