import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';
import { searchBusinesses } from '../BusinessCrm/listSearch/searchBusinesses';
import { businessIdLocator, optionsCollection } from '../BusinessCrm/params/descriptions';
import { clock, deadline } from '../BusinessCrm/api/clock';
import { transportError } from '../BusinessCrm/errors/errors';
import { endPollWith } from '../BusinessCrm/api/requestSettings';
import { forgetCredentialSecrets } from '../BusinessCrm/api/requestCredential';
import { seconds } from '../BusinessCrm/values';
import { businessOption } from './businessFilter';
import { newCustomers } from './newCustomers';
import { newestCustomer } from './newestCustomer';
import { triggerKey } from './seenCustomers';

/**
 * The activated triggers (workflow and node) whose poll is still reading. n8n starts a scheduled
 * poll without waiting for the one before (a slow API, retries after 429s, or two Poll Times that
 * fire together), and two polls starting from the same state would emit the same customers. Keyed
 * by ids, not by the static data object: n8n-core 2.41 gives each poll its own staged copy.
 */
const pollsInProgress = new Set<string>();

/**
 * How long a poll (or Fetch Test Event) may take in all where n8n gives no budget. Each request
 * ends within 60 s and the retries are bounded, but a slow API over many pages could still keep
 * a poll past the next ones, which would then be skipped: this makes it end, with an error, so
 * the next one runs.
 */
export const POLL_DEADLINE_MS = 10 * 60_000;

/**
 * The poll's deadline: n8n's budget for it where n8n gives one (n8n-workflow 2.38 and later: 36 s
 * on the durable scheduler's ticks, which n8n abandons after 45 s without stopping them, and 5
 * minutes elsewhere), else POLL_DEADLINE_MS. A poll that ends by itself stops its requests, and
 * the next poll is not held back by one n8n no longer waits for.
 */
export function pollDeadlineMs(ctx: IPollFunctions): number {
	const budget: unknown =
		typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() : undefined;
	if (typeof budget !== 'number' || !Number.isFinite(budget) || budget <= 0) {
		return POLL_DEADLINE_MS;
	}
	return Math.min(POLL_DEADLINE_MS, budget);
}

/**
 * The part of its deadline a poll spends starting new pages of a long read; what it has read by
 * then is kept, and the next poll reads on from there. The rest is for the pages still on their
 * way (each ends within 60 s, or at the deadline): a poll that hit its deadline would keep nothing.
 */
export const READING_SHARE = 0.5;

/** "10 minutes", "1 minute", "36 s". */
export function deadlineWords(ms: number): string {
	if (ms < 60_000 || ms % 60_000 !== 0) return seconds(ms);
	return ms === 60_000 ? '1 minute' : `${ms / 60_000} minutes`;
}

/** Why a poll that passed POLL_DEADLINE_MS emitted nothing. */
export const POLL_TOO_SLOW =
	'The Business CRM API answered too slowly to read the list in that time. Nothing was emitted or remembered; the next poll tries again.';

/** The notice above the trigger's parameters. */
export const ACTIVATION_NOTICE =
	'Only customers added after the workflow is published start it; the customers already there do not. Fetch Test Event shows the newest existing customer, so you can map its fields.';

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
		// Read by n8n's node catalog (MCP workflow-builder tools, Instance AI); older n8n ignores it.
		builderHint: {
			searchHint:
				'Starts a workflow once for each customer added to the Business CRM, checked every poll (every minute by default); each item is the new customer with its ID (cust_…). Limit it to one business with Options › Business (biz_…).',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-business-crm.businessCrm',
					relationHint: 'Reads the business of the new customer, or finds related customers',
				},
			],
		},
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
				displayName: ACTIVATION_NOTICE,
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
			optionsCollection([
				{
					...businessIdLocator,
					required: false,
					description:
						'Only start for customers of this business. If the customer records do not say which business they belong to, the trigger shows an error instead of guessing.',
				},
			]),
		],
	};

	methods = {
		listSearch: {
			searchBusinesses,
		},
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const deadlineMs = pollDeadlineMs(this);
		const ends = deadline(deadlineMs);
		const poll = endPollWith(this, ends.signal);
		const stopReading = clock.now() + deadlineMs * READING_SHARE;
		try {
			return await pollOnce(this, () => clock.now() >= stopReading).catch((error: unknown) => {
				if (!ends.passed()) throw error;
				throw transportError(
					this,
					`Read customers failed: the poll did not finish within ${deadlineWords(deadlineMs)}`,
					POLL_TOO_SLOW,
					[],
				);
			});
		} finally {
			poll.forget();
			ends.clear();
		}
	}
}

/** One poll, or Fetch Test Event in the editor (manual mode). */
async function pollOnce(
	ctx: IPollFunctions,
	until: () => boolean,
): Promise<INodeExecutionData[][] | null> {
	forgetCredentialSecrets(ctx);
	const businessId = await businessOption(ctx);
	let customers;
	if (ctx.getMode() === 'manual') {
		customers = await newestCustomer(ctx, businessId);
	} else {
		const trigger = triggerKey(ctx);
		// The poll still reading will emit whatever this one would have found.
		if (pollsInProgress.has(trigger)) return null;
		pollsInProgress.add(trigger);
		try {
			customers = await newCustomers(ctx, businessId, until);
		} finally {
			pollsInProgress.delete(trigger);
		}
	}
	return customers.length > 0 ? [ctx.helpers.returnJsonArray(customers)] : null;
}
