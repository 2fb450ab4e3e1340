/**
 * Point 4 of the benchmark: the same Return All of 10,000 customers in a real n8n (the e2e setup:
 * the packed package installed into a cached n8n, workflows run with `n8n execute`), once by this
 * node and once by n8n's HTTP Request node configured the way a user would: the two headers in a
 * Custom Auth credential (keys belong in credentials, not in workflows), limit=100, offset updated
 * per page, stop when hasMore is false, then Split Out into one item per customer.
 * Both workflows then end in the same Summarize node counting the customers' ids, and run against
 * the same sandbox, taking turns.
 *
 * The timing and the count are read from the execution n8n saved in its database, not from
 * `n8n execute`'s stdout: that prints every node's output (over 10,000 items here), and under
 * load it was cut off mid-JSON, leaving nothing to read.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSandbox } from '../test/sandbox/server.cjs';
import { executeWorkflow, importWorkflow, type WorkflowJson } from '../test/e2e/n8n.cjs';
import { prepareN8n } from '../test/e2e/workflows.cjs';

export const REAL_N8N_CUSTOMERS = 10_000;
/** Localhost, then a remote API: every request answered 50 ms late (the sandbox's slow fault). */
export const REAL_N8N_LATENCIES_MS = [0, 50];

export interface RealN8nTiming {
	/** Wall time of the `n8n execute` process, start-up included. */
	processMs: number;
	/** The execution alone, from the startedAt/stoppedAt n8n saved for it. */
	executionMs: number;
	/** Customers counted by the workflow's last node (Summarize, count of id). */
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
}

const trigger = {
	id: 'a1',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** The same last node on both sides: every customer materialised as an item, then counted. */
const COUNT = 'Count';
function countNode(x: number) {
	return {
		id: 'a9',
		name: COUNT,
		type: 'n8n-nodes-base.summarize',
		typeVersion: 1.1,
		position: [x, 0],
		parameters: {
			fieldsToSummarize: { values: [{ aggregation: 'count', field: 'id' }] },
			options: {},
		},
	};
}

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
			countNode(440),
		],
		connections: {
			Start: { main: [[{ node: 'Customers', type: 'main', index: 0 }]] },
			Customers: { main: [[{ node: COUNT, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The headers come from a Custom Auth credential. */
function httpRequestWorkflow(url: string, credentialId: string): WorkflowJson {
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
					authentication: 'genericCredentialType',
					genericAuthType: 'httpCustomAuth',
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
				credentials: { httpCustomAuth: { id: credentialId, name: 'Business CRM headers' } },
			},
			{
				id: 'a3',
				name: 'Customers',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 0],
				parameters: { fieldToSplitOut: 'content.customers', options: {} },
			},
			countNode(660),
		],
		connections: {
			Start: { main: [[{ node: 'Pages', type: 'main', index: 0 }]] },
			Pages: { main: [[{ node: 'Customers', type: 'main', index: 0 }]] },
			Customers: { main: [[{ node: COUNT, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

/**
 * Runs the two workflows `runs` times each at every latency, taking turns with who goes first
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
				httpRequest: await importWorkflow(folder, httpRequestWorkflow(sandbox.url, headers.id)),
			};
			const result: RealN8nResult = { n8nVersion: version, rounds: [] };
			const lastId = { value: 0 };
			for (const latencyMs of REAL_N8N_LATENCIES_MS) {
				sandbox.setFaults(latencyMs > 0 ? { slow: { delayMs: latencyMs } } : {});
				result.rounds.push(await round(folder, ids, runs, latencyMs, lastId));
			}
			return result;
		} finally {
			folder.remove();
		}
	} finally {
		await sandbox.close();
	}
}

export type Folder = Parameters<typeof executeWorkflow>[0];

/** One node's first run, as n8n saved it. */
export interface SavedNodeRun {
	/** When the node started (ms since the epoch) and how long it ran, n8n's own figures. */
	startTime?: number;
	executionTime?: number;
	/** The json of the items on its first output, when asked for; undefined when it output none. */
	items?: Array<Record<string, unknown>>;
	/** Its error message, when it failed. */
	error?: string;
}

export interface SavedExecution {
	id: number;
	status: string;
	startedAt: string;
	stoppedAt: string;
	/** The execution's error message, when it failed. */
	error?: string;
	/** Each node asked for: its first run, or why it could not be read (it did not run, say). */
	nodes: Record<string, SavedNodeRun | string>;
}

/*
 * Runs under n8n's own node binary from its install, so n8n's sqlite3 (built for that node) and
 * flatted (the format n8n saves run data in) are the ones n8n itself uses.
 */
const READ_EXECUTION = `
const sqlite3 = require('sqlite3');
const { parse } = require('flatted');
const [file, workflowId, after, names, withItems] = process.argv.slice(1);
const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
db.get(
	'SELECT e.id, e.status, e.startedAt, e.stoppedAt, d.data FROM execution_entity e ' +
		'LEFT JOIN execution_data d ON d.executionId = e.id ' +
		'WHERE e.workflowId = ? AND e.id > ? ORDER BY e.id DESC LIMIT 1',
	[workflowId, Number(after)],
	(error, row) => {
		db.close();
		if (error) throw error;
		if (!row) return console.log('null');
		let result;
		try {
			result = parse(row.data).resultData;
			if (!result) throw new Error('no resultData');
		} catch (e) {
			result = { why: 'run data unreadable: ' + e.message };
		}
		const nodes = {};
		for (const name of JSON.parse(names)) {
			const run = result.runData?.[name]?.[0];
			nodes[name] = result.why ?? (run === undefined ? 'no run saved' : {
				startTime: run.startTime,
				executionTime: run.executionTime,
				items: JSON.parse(withItems).includes(name) ? run.data?.main?.[0]?.map((item) => item.json) : undefined,
				error: run.error?.message,
			});
		}
		console.log(JSON.stringify({
			id: row.id, status: row.status, startedAt: row.startedAt, stoppedAt: row.stoppedAt,
			error: result.error?.message, nodes,
		}));
	},
);
`;

/**
 * The newest execution of the workflow after `afterId` that n8n saved in its database, with the
 * first run of each node named in `nodes`, and the output items of those in `withItems` (a node
 * of 10,000 items is megabytes to read and pass on); undefined when there is none.
 */
export async function savedExecution(
	folder: Folder,
	workflowId: string,
	afterId: number,
	nodes: string[],
	withItems: string[] = [],
): Promise<SavedExecution | undefined> {
	const { stdout } = await promisify(execFile)(
		folder.install.nodeBinary,
		[
			'-e',
			READ_EXECUTION,
			path.join(folder.dir, '.n8n', 'database.sqlite'),
			workflowId,
			String(afterId),
			JSON.stringify(nodes),
			JSON.stringify(withItems),
		],
		{ cwd: folder.install.dir, maxBuffer: 1 << 20 },
	);
	return (JSON.parse(stdout) as SavedExecution | null) ?? undefined;
}

/** n8n's sqlite keeps UTC times as "YYYY-MM-DD HH:MM:SS.SSS", without a zone. */
export function utc(time: string): number {
	return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(time) ? time : `${time.replace(' ', 'T')}Z`);
}

async function round(
	folder: Folder,
	ids: Record<'node' | 'httpRequest', string>,
	runs: number,
	latencyMs: number,
	lastId: { value: number },
): Promise<RealN8nRound> {
	const result: RealN8nRound = { latencyMs, node: [], httpRequest: [] };
	const contestants = ['node', 'httpRequest'] as const;
	for (let run = 0; run < runs; run++) {
		// Alternate who goes first, so no workflow always runs on a cold or a warm machine.
		for (let turn = 0; turn < contestants.length; turn++) {
			const which = contestants[(run + turn) % contestants.length];
			const execution = await executeWorkflow(folder, ids[which]);
			const saved = await savedExecution(folder, ids[which], lastId.value, [COUNT], [COUNT]);
			const fail = (why: string) =>
				new Error(
					`${which} workflow failed at ${latencyMs} ms latency (run ${run + 1}): ${why}; ` +
						`exit code ${execution.exitCode}${execution.timedOut ? ', timed out' : ''}; ` +
						`stderr: ${execution.stderr.slice(-500)}`,
				);
			if (saved === undefined) throw fail('n8n saved no execution');
			lastId.value = saved.id;
			if (execution.exitCode !== 0 || saved.status !== 'success') {
				throw fail(`execution ${saved.id} status ${saved.status}`);
			}
			const count = saved.nodes[COUNT];
			const counted = typeof count === 'object' ? (count.items ?? []) : [];
			const items = counted.length === 1 ? counted[0]?.count_id : undefined;
			if (items !== REAL_N8N_CUSTOMERS) {
				throw fail(`counted ${JSON.stringify(count)}, not ${REAL_N8N_CUSTOMERS} customers`);
			}
			result[which].push({
				processMs: execution.durationMs,
				executionMs: utc(saved.stoppedAt) - utc(saved.startedAt),
				items,
			});
		}
	}
	return result;
}
