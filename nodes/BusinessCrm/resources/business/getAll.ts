import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../params/descriptions';
import { runOperation } from '../operation';
import { readWhole, type ListSource } from '../../api/listReader';
import { pagesInParallel, retryPolicy, wantedItems } from '../../params/parameters';

export const BUSINESS_LIST_KEYS = ['businesses', 'items', 'data'];
export const BUSINESS_ID_KEYS = ['id', '_id', 'businessId', 'uuid'];

/** The business list: its first request goes without limit and offset (the spec shows none). */
export const BUSINESS_LIST: Omit<ListSource, 'what' | 'policy'> = {
	url: '/api/business/list/all',
	noun: 'businesses',
	one: 'business',
	listKeys: BUSINESS_LIST_KEYS,
	idKeys: BUSINESS_ID_KEYS,
	pagedFromStart: false,
};

export const businessGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many businesses',
	description: 'List the businesses of the organization, each with the ID other operations take',
	routing: {
		request: { method: 'GET', url: '/api/business/list/all' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const source: ListSource = {
					...BUSINESS_LIST,
					what: 'Get many businesses',
					policy: retryPolicy(this),
					pagesInParallel: pagesInParallel(this),
					itemIndex: this.getItemIndex(),
				};
				return (await readWhole(this, source, { wanted: wantedItems(this) })).items;
			}),
		},
	},
};

export const businessGetManyDescription: INodeProperties[] = returnAllAndLimit('business');
