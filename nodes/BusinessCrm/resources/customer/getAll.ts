import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../shared/descriptions';
import { runOperation } from '../../shared/operation';
import { readList } from '../../shared/pagination';
import { pagesInParallel, retryPolicy, wantedItems } from '../../shared/validation';

export const customerGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many customers',
	description: 'List the customers of the organization',
	routing: {
		request: { method: 'GET', url: '/api/public/v1/customers' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function (request) {
				return await readList(this, {
					what: 'Get many customers',
					options: request,
					listKeys: ['customers'],
					idKeys: ['id'],
					wanted: wantedItems(this),
					pagedFromStart: true,
					policy: retryPolicy(this),
					pagesInParallel: pagesInParallel(this),
					itemIndex: this.getItemIndex(),
				});
			}),
		},
	},
};

export const customerGetManyDescription: INodeProperties[] = returnAllAndLimit('customer');
