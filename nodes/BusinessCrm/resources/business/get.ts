import { updateDisplayOptions, type INodePropertyOptions } from 'n8n-workflow';
import { businessIdLocator } from '../../params/descriptions';
import { runOperation } from '../operation';
import { extractRecord } from '../../api/replyShapes';
import { apiRequest } from '../../api/transport';
import { businessId } from '../../params/parameters';
import { retryPolicy } from '../../params/options';

/** After 'No business with ID "<id>" was found in this organization.' */
export const CHECK_THE_ID = 'Check the ID, or pick the business from the list.';

export const businessGetOperation: INodePropertyOptions = {
	name: 'Get',
	value: 'get',
	action: 'Get a business',
	description: 'Get the details of one business of the organization by its ID',
	builderHint: {
		propertyHint:
			'Needs a business ID (biz_…). Take it from Business › Get Many; to use every business, Get Many alone gives their details.',
	},
	routing: {
		request: { method: 'GET' },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const id = businessId(this);
				const body = await apiRequest(this, {
					what: 'Get business',
					// Encoded, so no ID can point the request at another path.
					method: 'GET',
					url: `/api/business/${encodeURIComponent(id)}`,
					policy: retryPolicy(this),
					itemIndex: this.getItemIndex(),
					hints: {
						404: `No business with ID "${id}" was found in this organization. ${CHECK_THE_ID}`,
					},
				});
				return [extractRecord(body, 'business')];
			}),
		},
	},
};

export const businessGetDescription = updateDisplayOptions(
	{ show: { resource: ['business'], operation: ['get'] } },
	[{ ...businessIdLocator, description: 'The business to get' }],
);
