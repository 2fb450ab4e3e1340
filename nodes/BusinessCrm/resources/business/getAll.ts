import { updateDisplayOptions, type INodePropertyOptions } from 'n8n-workflow';
import { returnAllAndLimit } from '../../params/descriptions';
import { runOperation } from '../operation';
import { readWhole } from '../../api/listReader';
import { BUSINESS_LIST } from '../../api/lists';
import { wantedItems } from '../../params/parameters';
import { listOfItem } from '../../params/options';

export const businessGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many businesses',
	description: 'List the businesses of the organization, each with the ID other operations take',
	builderHint: {
		propertyHint:
			'Use first when a later node needs a business ID (biz_…): Customer › Create and the Business filters take an ID from this list, never an invented one.',
	},
	routing: {
		request: { method: 'GET', url: '/api/business/list/all' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const source = listOfItem(this, BUSINESS_LIST, 'Get many businesses');
				return (await readWhole(this, source, { wanted: wantedItems(this) })).items;
			}),
		},
	},
};

export const businessGetManyDescription = updateDisplayOptions(
	{ show: { resource: ['business'], operation: ['getAll'] } },
	returnAllAndLimit,
);
