import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { checkBusiness } from '../../shared/businessCheck';
import { businessIdLocator, returnAllAndLimit } from '../../shared/descriptions';
import { CUSTOMER_LIST, readWhole } from '../../shared/listReader';
import { runOperation } from '../../shared/operation';
import { pagesInParallel, retryPolicy, trimmedText, wantedItems } from '../../shared/validation';

/** Filters › Business, trimmed; undefined when not set. */
function businessFilter(ctx: IExecuteSingleFunctions): string | undefined {
	const id = trimmedText(ctx.getNodeParameter('filters.businessId', '', { extractValue: true }));
	return id === '' ? undefined : id;
}

function ofBusiness(customer: IDataObject, id: string): boolean {
	return trimmedText(customer.businessId) === id;
}

export const customerGetManyOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many customers',
	description: 'List the customers of the organization, each with its ID (cust_…)',
	routing: {
		request: { method: 'GET', url: '/api/public/v1/customers' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const source = {
					...CUSTOMER_LIST,
					what: 'Get many customers',
					policy: retryPolicy(this),
					pagesInParallel: pagesInParallel(this),
					itemIndex: this.getItemIndex(),
				};
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

export const customerGetManyDescription: INodeProperties[] = [
	...returnAllAndLimit('customer'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { resource: ['customer'], operation: ['getAll'] } },
		options: [
			{
				...businessIdLocator,
				required: false,
				description:
					'Only the customers of this business. The node reads the customer list and keeps those of this business, so it may read many more customers than it outputs.',
			},
		],
	},
];
