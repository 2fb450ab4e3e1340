import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';
import { checkBusiness } from '../../shared/businessCheck';
import { businessIdLocator, returnAllAndLimit } from '../../shared/descriptions';
import { runOperation } from '../../shared/operation';
import { MAX_PAGE_SIZE, readList, type ListRead } from '../../shared/pagination';
import { pagesInParallel, retryPolicy, trimmedText, wantedItems } from '../../shared/validation';

/** Filters › Business, trimmed; undefined when not set. */
function businessFilter(ctx: IExecuteSingleFunctions): string | undefined {
	const id = trimmedText(ctx.getNodeParameter('filters.businessId', '', { extractValue: true }));
	return id === '' ? undefined : id;
}

function ofBusiness(customer: IDataObject, id: string): boolean {
	return trimmedText(customer.businessId) === id;
}

/**
 * The customers of one business. The API cannot filter, so pages are read and filtered here: all
 * of them for Return All; for a Limit, a page at a time until enough customers match.
 */
async function readFiltered(read: ListRead, ctx: IExecuteSingleFunctions, id: string) {
	if (read.wanted === Infinity) {
		return (await readList(ctx, read)).filter((customer) => ofBusiness(customer, id));
	}
	const found: IDataObject[] = [];
	const seen = new Set<unknown>();
	let offset = 0;
	for (;;) {
		const page = await readList(ctx, { ...read, wanted: MAX_PAGE_SIZE, startOffset: offset });
		for (const customer of page) {
			// Offsets shift when customers are added during the read: a customer seen is not repeated.
			if (customer.id !== undefined && seen.has(customer.id)) continue;
			seen.add(customer.id);
			if (ofBusiness(customer, id)) found.push(customer);
			if (found.length >= read.wanted) return found;
		}
		// Fewer than asked means the list ended (readList reads on while the API says hasMore).
		if (page.length < MAX_PAGE_SIZE) return found;
		offset += page.length;
	}
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
			pagination: runOperation(async function (request: IHttpRequestOptions) {
				const read: ListRead = {
					what: 'Get many customers',
					options: request,
					listKeys: ['customers'],
					idKeys: ['id'],
					wanted: wantedItems(this),
					pagedFromStart: true,
					policy: retryPolicy(this),
					pagesInParallel: pagesInParallel(this),
					itemIndex: this.getItemIndex(),
				};
				const business = businessFilter(this);
				if (business !== undefined) {
					await checkBusiness(this, business, 'Filters › Business', read.policy, read.itemIndex);
					return await readFiltered(read, this, business);
				}
				return await readList(this, read);
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
