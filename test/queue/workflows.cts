/**
 * The workflows the queue-mode suite publishes: most start with a Webhook, so the main receives
 * the call and a worker runs the execution, and answer with their execution id in an
 * `X-Execution-Id` header, so a test can tell which worker ran it. Scenario 5's starts with the
 * Business CRM Trigger, which the main polls.
 */
import type { WorkflowJson } from '../e2e/n8n.cjs';
import { createFromRows } from '../e2e/workflows.cjs';

const NODE_TYPE = 'n8n-nodes-business-crm.businessCrm';
const TRIGGER_TYPE = 'n8n-nodes-business-crm.businessCrmTrigger';

interface CredentialRef {
	id: string;
	name: string;
}

function webhook(path: string): Record<string, unknown> {
	return {
		id: `${path}-webhook`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: path,
		parameters: { httpMethod: 'POST', path, responseMode: 'responseNode', options: {} },
	};
}

function respond(
	name: string,
	position: [number, number],
	parameters: Record<string, unknown>,
): Record<string, unknown> {
	return {
		id: `${name}-respond`,
		name,
		type: 'n8n-nodes-base.respondToWebhook',
		typeVersion: 1.1,
		position,
		parameters: {
			...parameters,
			options: {
				responseHeaders: {
					entries: [{ name: 'X-Execution-Id', value: '={{ $execution.id }}' }],
				},
			},
		},
	};
}

function chain(...names: string[]): Record<string, unknown> {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i] ?? ''] = {
			main: [[{ node: names[i + 1], type: 'main', index: 0 }]],
		};
	}
	return connections;
}

/** Scenario 1: one webhook call adds one customer and answers with it. */
export function createCustomerWorkflow(
	path: string,
	credential: CredentialRef,
	businessId: string,
): WorkflowJson {
	return {
		name: `Queue: add a customer (${path})`,
		nodes: [
			webhook(path),
			{
				id: `${path}-create`,
				name: 'Add Customer',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'customer',
					operation: 'create',
					businessId: { __rl: true, mode: 'id', value: businessId },
					firstName: '={{ $json.body.firstName }}',
					lastName: '={{ $json.body.lastName }}',
					additionalFields: { email: '={{ $json.body.email }}' },
				},
				credentials: { businessCrmApi: credential },
			},
			respond('Respond', [440, 0], { respondWith: 'firstIncomingItem' }),
		],
		connections: chain('Webhook', 'Add Customer', 'Respond'),
	};
}

/** Scenario 2: Return All of every customer; answers with their ids in the order read. */
export function returnAllWorkflow(path: string, credential: CredentialRef): WorkflowJson {
	return {
		name: `Queue: read all customers (${path})`,
		nodes: [
			webhook(path),
			{
				id: `${path}-all`,
				name: 'All Customers',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
				credentials: { businessCrmApi: credential },
			},
			respond('Respond', [440, 0], {
				respondWith: 'json',
				responseBody: '={{ { "ids": $input.all().map(item => item.json.id) } }}',
			}),
		],
		connections: chain('Webhook', 'All Customers', 'Respond'),
	};
}

/**
 * Scenario 4: a bulk import. The caller posts `{rows: [...]}`; the workflow answers at once
 * (with its execution id), splits the rows into items and adds one customer per row.
 * `createParameters` are added to the Create node's parameters (e.g. `{skipExisting: true, matchOn: 'email'}`).
 */
export function importWorkflow(
	path: string,
	credential: CredentialRef,
	businessId: string,
	createParameters: Record<string, unknown> = {},
): WorkflowJson {
	return {
		name: `Queue: import customers (${path})`,
		nodes: [
			webhook(path),
			respond('Accepted', [220, 0], {
				respondWith: 'json',
				responseBody: '={{ { "accepted": $json.body.rows.length } }}',
			}),
			{
				id: `${path}-rows`,
				name: 'Rows',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 0],
				parameters: { fieldToSplitOut: 'body.rows', options: {} },
			},
			{
				id: `${path}-create`,
				name: 'Add Customer',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [660, 0],
				parameters: createFromRows(businessId, createParameters),
				credentials: { businessCrmApi: credential },
			},
		],
		connections: chain('Webhook', 'Accepted', 'Rows', 'Add Customer'),
	};
}

/**
 * Scenario 5: Business CRM Trigger (New Customer, polled on `cron`) → No Operation, so the
 * worker that runs an execution runs a node of its own on the customers the main's poll found.
 */
export function newCustomerWorkflow(credential: CredentialRef, cron: string): WorkflowJson {
	return {
		name: 'Queue: new customers (trigger)',
		nodes: [
			{
				id: 'queue-trigger-new-customer',
				name: 'New Customer',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'custom', cronExpression: cron }] },
					event: 'newCustomer',
					options: {},
				},
				credentials: { businessCrmApi: credential },
			},
			{
				id: 'queue-trigger-received',
				name: 'Received',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		connections: chain('New Customer', 'Received'),
	};
}
