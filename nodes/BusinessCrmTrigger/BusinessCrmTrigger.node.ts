import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';
import { searchBusinesses } from '../BusinessCrm/listSearch/searchBusinesses';
import { businessIdLocator } from '../BusinessCrm/shared/descriptions';
import { forgetCredentialSecrets } from '../BusinessCrm/shared/transport';
import { businessOption } from './businessFilter';
import { newCustomers } from './newCustomers';
import { newestCustomer } from './newestCustomer';

/**
 * The activated triggers (workflow and node) whose poll is still reading. n8n starts a scheduled
 * poll without waiting for the one before (a slow API, retries after 429s, or two Poll Times that
 * fire together), and two polls starting from the same state would emit the same customers. Keyed
 * by ids, not by the static data object: n8n-core 2.41 gives each poll its own staged copy.
 */
const pollsInProgress = new Set<string>();

export class BusinessCrmTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Business CRM Trigger',
		name: 'businessCrmTrigger',
		icon: {
			light: 'file:../../icons/businessCrm.svg',
			dark: 'file:../../icons/businessCrm.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] === "newCustomer" ? "New Customer" : "" }}',
		description: 'Starts the workflow when a customer is added in the Business CRM',
		documentationUrl:
			'https://github.com/n8n-nodes-business-crm/n8n-nodes-business-crm?tab=readme-ov-file#business-crm-trigger',
		defaults: {
			name: 'Business CRM Trigger',
		},
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'businessCrmApi',
				required: true,
			},
		],
		properties: [
			{
				displayName:
					'Only customers added after the workflow is published start it; the customers already there do not. Fetch Test Event shows the newest existing customer, so you can map its fields.',
				name: 'activationNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				required: true,
				options: [
					{
						name: 'New Customer',
						value: 'newCustomer',
						description: 'A customer was added to the list of customers',
					},
				],
				default: 'newCustomer',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						...businessIdLocator,
						required: false,
						description:
							'Only start for customers of this business. If the customer records do not say which business they belong to, the trigger shows an error instead of guessing.',
					},
				],
			},
		],
	};

	methods = {
		listSearch: {
			searchBusinesses,
		},
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		forgetCredentialSecrets(this);
		const businessId = await businessOption(this);
		let customers;
		if (this.getMode() === 'manual') {
			customers = await newestCustomer(this, businessId);
		} else {
			const trigger = `${this.getWorkflow().id ?? ''}\n${this.getNode().id}`;
			// The poll still reading will emit whatever this one would have found.
			if (pollsInProgress.has(trigger)) return null;
			pollsInProgress.add(trigger);
			try {
				customers = await newCustomers(this, businessId);
			} finally {
				pollsInProgress.delete(trigger);
			}
		}
		return customers.length > 0 ? [this.helpers.returnJsonArray(customers)] : null;
	}
}
