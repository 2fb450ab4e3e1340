/**
 * Point 4 of the benchmark: the same Return All of 10,000 customers in a real n8n (the e2e setup:
 * the packed package installed into a cached n8n, workflows run with `n8n execute`), once by this
 * node and once by n8n's HTTP Request node configured the way a user would: the two headers in a
 * Custom Auth credential (keys belong in credentials, not in workflows), limit=100, offset updated
 * per page, stop when hasMore is false, then Split Out into one item per customer.
 * Both workflows run against the same sandbox, taking turns.
 */
import { startSandbox } from '../test/sandbox/server';
import { executeWorkflow, importWorkflow, nodeOutput, type WorkflowJson } from '../test/e2e/n8n';
import { prepareN8n } from '../test/e2e/workflows';

export const REAL_N8N_CUSTOMERS = 10_000;
/** Localhost, then a remote API: every request answered 50 ms late (the sandbox's slow fault). */
export const REAL_N8N_LATENCIES_MS = [0, 50];

export interface RealN8nTiming {
	/** Wall time of the `n8n execute` process, start-up included. */
	processMs: number;
	/** The execution alone, from n8n's own startedAt/stoppedAt. */
	executionMs: number;
	items: number;
}

export interface RealN8nResult {
	n8nVersion: string;
	rounds: RealN8nRound[];
}

export interface RealN8nRound {
	latencyMs: number;
	node: RealN8nTiming[];
	/** HTTP Request with the headers in a Custom Auth credential, as a careful user sets it up. */
	httpRequest: RealN8nTiming[];
	/** HTTP Request with the key typed into header parameters: faster to set up, not to be shared. */
	httpRequestInline: RealN8nTiming[];
}

const trigger = {
	id: 'a1',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

function nodeWorkflow(credentialId: string): WorkflowJson {
	return {
		name: 'Bench: Business CRM node, Return All',
		nodes: [
			trigger,
			{
				id: 'a2',
				name: 'Customers',
				type: 'n8n-nodes-business-crm.businessCrm',
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'customer', operation: 'getAll', returnAll: true },
				credentials: { businessCrmApi: { id: credentialId, name: 'Business CRM account' } },
			},
		],
		connections: { Start: { main: [[{ node: 'Customers', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** With a credential id, the headers come from a Custom Auth credential; else they are typed in. */
function httpRequestWorkflow(
	url: string,
	auth: { credentialId: string } | { apiKey: string; organizationId: string },
): WorkflowJson {
	const authentication =
		'credentialId' in auth
			? { authentication: 'genericCredentialType', genericAuthType: 'httpCustomAuth' }
			: {
					sendHeaders: true,
					headerParameters: {
						parameters: [
							{ name: 'X-API-Key', value: auth.apiKey },
							{ name: 'X-Organization-ID', value: auth.organizationId },
						],
					},
				};
	return {
		name: 'Bench: HTTP Request node with pagination, then Split Out',
		nodes: [
			trigger,
			{
				id: 'a2',
				name: 'Pages',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [220, 0],
				parameters: {
					url: `${url}/api/public/v1/customers`,
					sendQuery: true,
					queryParameters: { parameters: [{ name: 'limit', value: '100' }] },
					...authentication,
					options: {
						pagination: {
							pagination: {
								paginationMode: 'updateAParameterInEachRequest',
								parameters: {
									parameters: [{ type: 'qs', name: 'offset', value: '={{ $pageCount * 100 }}' }],
								},
								paginationCompleteWhen: 'other',
								completeExpression: '={{ $response.body.content.pagination.hasMore === false }}',
								limitPagesFetched: true,
								maxRequests: 1000,
							},
						},
					},
				},
				...('credentialId' in auth
					? {
							credentials: {
								httpCustomAuth: { id: auth.credentialId, name: 'Business CRM headers' },
							},
						}
					: {}),
			},
			{
				id: 'a3',
				name: 'Customers',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 0],
				parameters: { fieldToSplitOut: 'content.customers', options: {} },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Pages', type: 'main', index: 0 }]] },
			Pages: { main: [[{ node: 'Customers', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * Runs the three workflows `runs` times each at every latency, taking turns with who goes first
 * rotating, and returns every timing.
 */
export async function compareInRealN8n(runs: number): Promise<RealN8nResult> {
	const sandbox = await startSandbox({ businesses: 5, customers: REAL_N8N_CUSTOMERS, log: false });
	try {
		const { version, folder, credential, others } = await prepareN8n(sandbox, [
			{
				name: 'Business CRM headers',
				type: 'httpCustomAuth',
				data: {
					json: JSON.stringify({
						headers: { 'X-API-Key': sandbox.apiKey, 'X-Organization-ID': sandbox.organizationId },
					}),
				},
			},
		]);
		const [headers] = others;
		try {
			const ids = {
				node: await importWorkflow(folder, nodeWorkflow(credential.id)),
				httpRequest: await importWorkflow(
					folder,
					httpRequestWorkflow(sandbox.url, { credentialId: headers.id }),
				),
				httpRequestInline: await importWorkflow(
					folder,
					httpRequestWorkflow(sandbox.url, {
						apiKey: sandbox.apiKey,
						organizationId: sandbox.organizationId,
					}),
				),
			};
			const result: RealN8nResult = { n8nVersion: version, rounds: [] };
			for (const latencyMs of REAL_N8N_LATENCIES_MS) {
				sandbox.setFaults(latencyMs > 0 ? { slow: { delayMs: latencyMs } } : {});
				result.rounds.push(await round(folder, ids, runs, latencyMs));
			}
			return result;
		} finally {
			folder.remove();
		}
	} finally {
		await sandbox.close();
	}
}

async function round(
	folder: Parameters<typeof executeWorkflow>[0],
	ids: Record<'node' | 'httpRequest' | 'httpRequestInline', string>,
	runs: number,
	latencyMs: number,
): Promise<RealN8nRound> {
	const result: RealN8nRound = { latencyMs, node: [], httpRequest: [], httpRequestInline: [] };
	const contestants = ['node', 'httpRequest', 'httpRequestInline'] as const;
	for (let run = 0; run < runs; run++) {
		// Rotate who goes first, so no workflow always runs on a cold or a warm machine.
		for (let turn = 0; turn < contestants.length; turn++) {
			const which = contestants[(run + turn) % contestants.length];
			const execution = await executeWorkflow(folder, ids[which]);
			if (!execution.success || execution.run === undefined) {
				const why =
					execution.run?.data.resultData.error?.message ??
					`exit code ${execution.exitCode}${execution.timedOut ? ', timed out' : ''}; ` +
						`stderr: ${execution.stderr.slice(-500)}; stdout: ${execution.stdout.slice(-500)}`;
				throw new Error(
					`${which} workflow failed at ${latencyMs} ms latency (run ${run + 1}): ${why}`,
				);
			}
			const items = nodeOutput(execution.run, 'Customers').length;
			if (items !== REAL_N8N_CUSTOMERS) {
				throw new Error(`${which} workflow returned ${items} customers, not ${REAL_N8N_CUSTOMERS}`);
			}
			const started = Date.parse(String(execution.run.startedAt));
			const stopped = Date.parse(String(execution.run.stoppedAt));
			result[which].push({
				processMs: execution.durationMs,
				executionMs: stopped - started,
				items,
			});
		}
	}
	return result;
}
