import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_PAGES_IN_PARALLEL, MAX_PAGES_IN_PARALLEL } from '../api/lists';

/** Business picker: from the searchable list or by ID. Used by Business Get and Customer Create. */
export const businessIdLocator: INodeProperties = {
	displayName: 'Business',
	name: 'businessId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The business, picked from the list or given by its ID, such as biz_8f3a2c91d04e7b65. Business › Get Many lists every business with its ID.',
	builderHint: {
		propertyHint:
			'A business ID such as biz_8f3a2c91d04e7b65, from the list mode or from the id field of a Business › Get Many item; never invent one',
	},
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a business...',
			typeOptions: {
				searchListMethod: 'searchBusinesses',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. biz_8f3a2c91d04e7b65',
		},
	],
};

/** Return All and Limit of a Get Many operation; its updateDisplayOptions adds the operation. */
export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		displayOptions: { show: { returnAll: [false] } },
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
	},
];

/** Options › Pages Read at Once, for every read of a whole list (see its two entries below). */
const pagesReadAtOnce: INodeProperties = {
	displayName: 'Pages Read at Once',
	name: 'pagesInParallel',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_PAGES_IN_PARALLEL },
	default: DEFAULT_PAGES_IN_PARALLEL,
	description:
		'How many pages of a long list the node asks for at the same time: more is faster, 1 reads one page after another. Lower it if the API says it is busy.',
};

/** The Options collection n8n's nodes end with: settings a user adds one by one. */
export function optionsCollection(options: INodeProperties['options']): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options,
	};
}

/** Rate-limit handling a user can tune; shown for every operation. Defaults as DEFAULT_RETRY_POLICY. */
export const retryOptions: INodeProperties = optionsCollection([
	{
		displayName: 'Max Retries',
		name: 'maxRetries',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 100 },
		default: 5,
		description:
			'How many times the node asks again when the API says it is busy, after waiting as long as the API asks. Reads are also asked again after a brief server or connection problem; a Create is not, so that no customer is added twice. Raise it if big runs stop because the API is busy; 0 turns it off. Settings › Retry On Fail is something else: it runs the whole node again after it failed, every item, Creates that worked included.',
	},
	{
		displayName: 'Max Total Wait (Seconds)',
		name: 'maxRetryWait',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 3600 },
		default: 120,
		description:
			'The most time the node spends waiting to ask again, added up over the retries of one request. If the API asks for a longer wait, the node stops with an error that says how long. Raise it if runs stop on such an error; lower it if a run should rather fail fast.',
	},
	{
		...pagesReadAtOnce,
		displayOptions: {
			show: { '/resource': ['business', 'customer'], '/operation': ['getAll', 'find'] },
		},
	},
	// The same option for Create's lookup, shown only when Skip if the Customer Already Exists is on.
	{
		...pagesReadAtOnce,
		displayOptions: {
			show: { '/resource': ['customer'], '/operation': ['create'], '/skipExisting': [true] },
		},
	},
]);
