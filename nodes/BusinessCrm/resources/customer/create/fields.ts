import type { INodeProperties } from 'n8n-workflow';

/**
 * The optional text fields of a Create, in one place: each entry is an option under Additional
 * Fields, a field of the request body under the same name, and a name a custom field may not take.
 * Adding a field is one entry here (and its test in body.test.cts). Lower-case names: these are
 * parts of the description, which the description snapshot pins, not texts of messages.
 */
export const optionalFields: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'e.g. nathan@example.com',
		default: '',
		description: "The customer's email address",
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		placeholder: 'e.g. +44 20 7946 0958',
		description: "The customer's phone number",
	},
];

/** The required fields of a Create, with the parameter each comes from. */
export const requiredFields: ReadonlyArray<{ name: string; label: string }> = [
	{ name: 'businessId', label: 'Business' },
	{ name: 'firstName', label: 'First Name' },
	{ name: 'lastName', label: 'Last Name' },
];

/** Every field the node sets in the body, with where the user sets it; a custom field may not overwrite them. */
export const nodeFields: Record<string, { label: string; where: string }> = Object.fromEntries([
	...requiredFields.map(({ name, label }) => [name, { label, where: label }]),
	...optionalFields.map(({ name, displayName }) => [
		name,
		{ label: displayName, where: `Additional Fields › ${displayName}` },
	]),
]);
