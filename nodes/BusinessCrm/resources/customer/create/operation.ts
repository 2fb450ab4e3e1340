import type { INodePropertyOptions } from 'n8n-workflow';
import { runOperation } from '../../operation';
import { customerBody } from './body';
import { rememberedCreate } from './memory';
import { CREATE_URL } from './request';
import { createUnlessExists, skipExistingSettings } from './skipExisting';

export const customerCreateOperation: INodePropertyOptions = {
	name: 'Create',
	value: 'create',
	action: 'Create a customer',
	description:
		"Add a customer to a business's CRM, given the business ID and the customer's first and last name; outputs the new customer with its ID (cust_…)",
	routing: {
		request: { method: 'POST', url: CREATE_URL },
		send: { paginate: true },
		operations: {
			pagination: runOperation(async function () {
				const skipExisting = skipExistingSettings(this);
				const body = customerBody(this);
				const create = async () => await rememberedCreate(this, body);
				if (skipExisting === undefined) return [await create()];
				return [await createUnlessExists(this, body, skipExisting, create)];
			}),
		},
	},
};
