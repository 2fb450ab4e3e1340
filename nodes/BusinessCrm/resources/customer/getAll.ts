import { updateDisplayOptions } from 'n8n-workflow';
import type { IDataObject, IExecuteSingleFunctions, INodePropertyOptions } from 'n8n-workflow';
import { checkBusiness } from '../../api/businessCheck';
import { businessIdLocator, returnAllAndLimit } from '../../params/descriptions';
import { readWhole } from '../../api/listReader';
import { CUSTOMER_LIST } from '../../api/lists';
import { runOperation } from '../operation';
import { inputError } from '../../errors/errors';
import { trimmedText } from '../../values';
import { leftEmptyByModel, textParameter, wantedItems } from '../../params/parameters';
import { listOfItem } from '../../params/options';

export const EMPTY_FILTER =
	'Filters › Business is empty, so the node would read the customers of every business';
export const EMPTY_FILTER_HELP =
	'Pick a business under Filters › Business or enter its ID. To read the customers of every business, remove the filter. When the ID comes from an expression, check that the expression gives a value for this item.';

/**
 * Filters › Business, trimmed; undefined when the filter is not added. An added filter that
 * gives no ID is refused: read as "no filter" it would output every business's customers.
 */
function businessFilter(ctx: IExecuteSingleFunctions): string | undefined {
	const filters = ctx.getNodeParameter('filters', {}) as IDataObject;
	if (!('businessId' in filters)) return undefined;
	const id = textParameter(ctx, 'filters.businessId', 'Filters › Business', { extractValue: true });
	if (id !== '') return id;
	// A model that leaves an optional filter empty means no filter; a person's empty one is a slip.
	if (leftEmptyByModel(ctx, 'filters.businessId', id)) return undefined;
	throw inputError(ctx, EMPTY_FILTER, EMPTY_FILTER_HELP, ctx.getItemIndex(), {
		parameter: 'filters.businessId',
	});
}

function ofBusiness(customer: IDataObject, id: string): boolean {
	return trimmedText(customer.businessId) === id;
}

export const customerGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many customers',
	description: 'List the customers of the organization, each with its ID (cust_…)',
	builderHint: {
		propertyHint:
			'To look up one customer by email, phone, name or ID, use Customer › Find instead: Get Many returns the list, filtered at most by business.',
	},
	routing: {
		request: { method: 'GET', url: '/api/public/v1/customers' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const source = listOfItem(this, CUSTOMER_LIST, 'Get many customers');
				const wanted = wantedItems(this);
				const business = businessFilter(this);
				if (business === undefined) return (await readWhole(this, source, { wanted })).items;
				await checkBusiness(this, business, 'Filters › Business', source.policy, source.itemIndex);
				// The API cannot filter: pages are read and filtered here, until enough match.
				const keep = (customer: IDataObject) => ofBusiness(customer, business);
				return (await readWhole(this, source, { wanted, keep })).items;
			}),
		},
	},
};

export const customerGetManyDescription = updateDisplayOptions(
	{ show: { resource: ['customer'], operation: ['getAll'] } },
	[
		...returnAllAndLimit,
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: [
				{
					...businessIdLocator,
					required: false,
					description:
						'Only the customers of this business. The node reads the customer list and keeps those of this business, so it may read many more customers than it outputs.',
				},
			],
		},
	],
);
