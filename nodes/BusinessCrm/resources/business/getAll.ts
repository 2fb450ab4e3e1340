import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../shared/descriptions';
import { runOperation } from '../../shared/operation';
import { readList } from '../../shared/pagination';
import { pagesInParallel, retryPolicy, wantedItems } from '../../shared/validation';

export const BUSINESS_LIST_KEYS = ['businesses', 'items', 'data'];
export const BUSINESS_ID_KEYS = ['id', '_id', 'businessId', 'uuid'];

export const businessGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many businesses',
	description: 'List the businesses of the organization, each with the ID other operations take',
	routing: {
		request: { method: 'GET', url: '/api/business/list/all' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function (request) {
				return await readList(this, {
					what: 'Get many businesses',
					options: request,
					listKeys: BUSINESS_LIST_KEYS,
					idKeys: BUSINESS_ID_KEYS,
					wanted: wantedItems(this),
					pagedFromStart: false,
					policy: retryPolicy(this),
					pagesInParallel: pagesInParallel(this),
					itemIndex: this.getItemIndex(),
				});
			}),
		},
	},
};

export const businessGetManyDescription: INodeProperties[] = returnAllAndLimit('business');
