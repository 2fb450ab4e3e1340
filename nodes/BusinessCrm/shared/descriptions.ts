import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_PAGES_IN_PARALLEL, MAX_PAGES_IN_PARALLEL } from './pagination';

/** Business picker: from the searchable list or by ID. Used by Business Get and Customer Create. */
export const businessIdLocator: INodeProperties = {
	displayName: 'Business',
	name: 'businessId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The business, picked from the list or given by its ID, such as biz_8f3a2c91d04e7b65. Business › Get Many lists every business with its ID.',
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

/** Return All and Limit of a Get Many operation. */
export function returnAllAndLimit(resource: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			displayOptions: { show: { resource: [resource], operation: ['getAll'] } },
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			displayOptions: {
				show: {
					resource: [resource],
					operation: ['getAll'],
					returnAll: [false],
				},
			},
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
		},
	];
}

/** Options › Pages Read at Once, for every read of a whole list (see its two entries below). */
const pagesReadAtOnce: INodeProperties = {
	displayName: 'Pages Read at Once',
	name: 'pagesInParallel',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_PAGES_IN_PARALLEL },
	default: DEFAULT_PAGES_IN_PARALLEL,
	description:
		'How many pages of the list are asked for at the same time once the first page gives the total. 1 reads page after page. Lower it if the API rate-limits you.',
};

/** Rate-limit handling a user can tune; shown for every operation. Defaults as DEFAULT_RETRY_POLICY. */
export const retryOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: 5,
			description:
				"How many times to retry a request the API rejected with 429 'Too Many Requests', each time after waiting as long as the API asks. Reads (not Create) are also retried after a server error (502, 503, 504) or a dropped connection.",
		},
		{
			displayName: 'Max Total Wait (Seconds)',
			name: 'maxRetryWait',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 3600 },
			default: 120,
			description:
				'The longest time one request may spend waiting for the rate limit, over all its retries. If the API asks for a longer wait, the node stops with an error that says so.',
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
	],
};
