/**
 * Section 8 of the benchmark: a bulk import of M rows in a real n8n (the e2e setup: the packed
 * package installed into a cached n8n, workflows run with `n8n execute`), against the sandbox with
 * a fixed-window rate limit of R = 50 requests per 1 s window and every request answered 50 ms
 * late. Per n8n version:
 *  1. this node's Create, Skip Existing off;
 *  2. the same with Skip Existing on (match on email), into an empty CRM;
 *  3. (2) run again on the CRM (2) left: it must send no Create;
 *  4. n8n's HTTP Request, one POST per row, n8n's defaults;
 *  5. the same with Batching set as n8n's docs advise for a rate limit.
 *
 *   npm run bench:import -- [--quick] [--no-write] [--runs N] [--rows M] [--versions 2.8.4,2.41.1]
 *
 * Full form: M = 10,000 on n8n 2.8.4 and 2.41.1 (over an hour), the section spliced into
 * results.md. --quick (what CI runs): M = 500 on 2.8.4 only, printed only. Both exit non-zero
 * when a node scenario fails a row, creates a duplicate or fails its execution, the re-run sends
 * a Create, or the benchmark breaks; the quick form also when the node's median execution is over
 * 1.5× the bound, never for the 1.05× goal: its bound is 10 s, and what does not shrink with M
 * (the first window at full speed until a 429 tells the node the limit, with Retry-After in whole
 * seconds; the Code node's task runner starting, about 1 s) is a large share of that. Quick runs
 * on 2.8.4 measured about 1.25×, so 1.5× is clearly broken, not noise.
 *
 * Runs: 3 of each node scenario (the verdicts need a spread; 2 in the quick form, to keep CI
 * short); HTTP Request once, since its outcome is a recorded comparison, not a verdict, and at
 * M = 10,000 its batched run lasts as long as a node run. `--runs N` sets both.
 *
 * Each scenario starts from an empty CRM by emptying the one sandbox in place (same business, same
 * key, so the credentials and workflows stay valid): n8n's start-up takes longer than the 1 s
 * window, so no rate-limit window is left over from the run before.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { startSandbox, type Sandbox } from '../test/sandbox/server.cjs';
import {
	DEFAULT_N8N_VERSION,
	ensureNode,
	executeWorkflow,
	importWorkflow,
	REPO_ROOT,
	type Credential,
	type WorkflowJson,
} from '../test/e2e/n8n.cjs';
import { testedVersions } from '../test/e2e/versions.cjs';
import { createFromRows, prepareN8n } from '../test/e2e/workflows.cjs';
import { ADD_CUSTOMER_PATH, median, spliceSection } from './lib.cjs';
import { savedExecution, utc, type Folder } from './real-n8n.cjs';

const SECTION = '## 8. Real n8n: bulk import under a rate limit';
const RESULTS_FILE = join(__dirname, 'results.md');
const RATE = { limit: 50, windowMs: 1000 };
const LATENCY_MS = 50;
const FULL = { rows: 10_000, versions: [DEFAULT_N8N_VERSION, '2.41.1'], nodeRuns: 3, httpRuns: 1 };
const QUICK = { rows: 500, versions: [DEFAULT_N8N_VERSION], nodeRuns: 2, httpRuns: 1 };
const TARGET_RATIO = 1.05;
const QUICK_RATIO_LIMIT = 1.5;
const IMPORT = 'Import';

type WorkflowKind = 'node' | 'nodeSkip' | 'http' | 'httpBatched';

interface Scenario {
	label: string;
	workflow: WorkflowKind;
	/** Starts from an empty CRM; otherwise from what the scenario before left. */
	fresh: boolean;
	byNode: boolean;
}

const NODE_SCENARIOS: Scenario[] = [
	{ label: 'node, Skip Existing off', workflow: 'node', fresh: true, byNode: true },
	{ label: 'node, Skip Existing on', workflow: 'nodeSkip', fresh: true, byNode: true },
	{ label: 'node, Skip Existing on, re-run', workflow: 'nodeSkip', fresh: false, byNode: true },
];
const HTTP_SCENARIOS: Scenario[] = [
	{ label: 'HTTP Request, no Batching', workflow: 'http', fresh: true, byNode: false },
	{
		label: `HTTP Request, Batching ${RATE.limit} items per ${RATE.windowMs} ms`,
		workflow: 'httpBatched',
		fresh: true,
		byNode: false,
	},
];

interface Sample {
	status: string;
	/** The execution's error, when it failed. */
	error?: string;
	/** startedAt → stoppedAt as n8n saved them. */
	executionMs: number;
	/** The Import node's own run time, as n8n saved it. */
	nodeMs?: number;
	/** The first request the sandbox saw to the last; undefined when none came. */
	apiMs?: number;
	throttled: number;
	creates: number;
	rowsFailed: number;
	duplicates: number;
}

interface VersionResult {
	version: string;
	nodeVersion: string;
	samples: Map<Scenario, Sample[]>;
}

/* ------------------------------------------------------------------------------------------ */
/* Workflows                                                                                   */
/* ------------------------------------------------------------------------------------------ */

const EMAIL_DOMAIN = 'import.example';
const emailOf = (row: number) => `row${row}@${EMAIL_DOMAIN}`;

/**
 * The rows come from a Code node: the e2e suite's bulk import already runs it on both 2.8.4 and
 * 2.41.1 under `n8n execute` (in each one's task runner), and one line of code makes M rows. An
 * expression making them (Set, then Split Out) would meet 2.41.1's default expression engine, an
 * isolate with a 128 MB memory limit (N8N_EXPRESSION_ENGINE=vm).
 */
function importWorkflowJson(name: string, rows: number, importNode: Record<string, unknown>) {
	return {
		name,
		nodes: [
			{
				id: 'c1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'c2',
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: `return Array.from({ length: ${rows} }, (_, i) => ({ json: { firstName: 'First ' + i, lastName: 'Last ' + i, email: 'row' + i + '@${EMAIL_DOMAIN}' } }));`,
				},
			},
			{ id: 'c3', name: IMPORT, position: [440, 0], ...importNode },
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: IMPORT, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	} satisfies WorkflowJson;
}

function nodeImport(credential: Credential, businessId: string, skipExisting: boolean) {
	return {
		type: 'n8n-nodes-business-crm.businessCrm',
		typeVersion: 1,
		parameters: createFromRows(businessId, {
			skipExisting,
			...(skipExisting ? { matchOn: 'email', matchWithin: 'business' } : {}),
		}),
		credentials: { businessCrmApi: { id: credential.id, name: credential.name } },
	};
}

/**
 * Batching as n8n's docs advise for an API's rate limit ("Handle rate limits in the HTTP Request
 * node › Batch requests", https://docs.n8n.io/integrations/builtin/rate-limits/): Items per Batch
 * and Batch Interval (ms) set to what the API allows, here the limit per window and the window.
 */
function httpImport(url: string, headers: Credential, businessId: string, batching: boolean) {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${url}${ADD_CUSTOMER_PATH}`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpCustomAuth',
			sendBody: true,
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: {
				parameters: [
					{ name: 'businessId', value: businessId },
					{ name: 'firstName', value: '={{ $json.firstName }}' },
					{ name: 'lastName', value: '={{ $json.lastName }}' },
					{ name: 'email', value: '={{ $json.email }}' },
				],
			},
			options: batching
				? { batching: { batch: { batchSize: RATE.limit, batchInterval: RATE.windowMs } } }
				: {},
		},
		credentials: { httpCustomAuth: { id: headers.id, name: headers.name } },
	};
}

/* ------------------------------------------------------------------------------------------ */
/* Measuring                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/** The bound M/R: no client can send M Creates faster under the limit. */
const boundMs = (rows: number) => (rows / RATE.limit) * RATE.windowMs;

async function measureVersion(
	version: string,
	node: string | undefined,
	rows: number,
	runs: { node: number; http: number },
): Promise<VersionResult> {
	const sandbox = await startSandbox({ businesses: 1, rateLimit: RATE });
	try {
		const target = { version, nodeBinary: node === undefined ? undefined : await ensureNode(node) };
		const { folder, credential, others } = await prepareN8n(
			sandbox,
			[
				{
					name: 'Business CRM headers',
					type: 'httpCustomAuth',
					data: {
						json: JSON.stringify({
							headers: { 'X-API-Key': sandbox.apiKey, 'X-Organization-ID': sandbox.organizationId },
						}),
					},
				},
			],
			{ target },
		);
		const [headers] = others;
		const businessId = sandbox.businesses[0].id;
		try {
			const ids: Record<WorkflowKind, string> = {
				node: await importWorkflow(
					folder,
					importWorkflowJson(
						`Bench: import ${rows} rows, node`,
						rows,
						nodeImport(credential, businessId, false),
					),
				),
				nodeSkip: await importWorkflow(
					folder,
					importWorkflowJson(
						`Bench: import ${rows} rows, node, Skip Existing`,
						rows,
						nodeImport(credential, businessId, true),
					),
				),
				http: await importWorkflow(
					folder,
					importWorkflowJson(
						`Bench: import ${rows} rows, HTTP Request`,
						rows,
						httpImport(sandbox.url, headers, businessId, false),
					),
				),
				httpBatched: await importWorkflow(
					folder,
					importWorkflowJson(
						`Bench: import ${rows} rows, HTTP Request with Batching`,
						rows,
						httpImport(sandbox.url, headers, businessId, true),
					),
				),
			};
			const result: VersionResult = {
				version,
				nodeVersion: node ?? process.versions.node,
				samples: new Map([...NODE_SCENARIOS, ...HTTP_SCENARIOS].map((s) => [s, []])),
			};
			const lastId = { value: 0 };
			for (let run = 0; run < Math.max(runs.node, runs.http); run++) {
				const scenarios = [
					...(run < runs.node ? NODE_SCENARIOS : []),
					...(run < runs.http ? HTTP_SCENARIOS : []),
				];
				for (const scenario of scenarios) {
					progress(`n8n ${version}, run ${run + 1}: ${scenario.label}`);
					const sample = await runScenario(
						sandbox,
						folder,
						ids[scenario.workflow],
						scenario,
						rows,
						lastId,
					);
					progress(`  ${JSON.stringify({ ...sample, apiMs: sample.apiMs?.toFixed(0) })}`);
					result.samples.get(scenario)?.push(sample);
				}
			}
			return result;
		} finally {
			folder.remove();
		}
	} finally {
		await sandbox.close();
	}
}

function progress(message: string): void {
	process.stderr.write(`[bench:import] ${message}\n`);
}

async function runScenario(
	sandbox: Sandbox,
	folder: Folder,
	workflowId: string,
	scenario: Scenario,
	rows: number,
	lastId: { value: number },
): Promise<Sample> {
	if (scenario.fresh) sandbox.seedCustomers(0);
	sandbox.clearLog();
	sandbox.setFaults({ slow: { delayMs: LATENCY_MS } });
	let firstAt = 0;
	let lastAt = 0;
	sandbox.onRequest = () => {
		lastAt = performance.now();
		firstAt ||= lastAt;
	};
	try {
		// Generous: a stuck run still ends, and a slow one on a busy machine is still measured.
		const timeoutMs = Math.max(180_000, 3 * boundMs(rows) + 120_000);
		const execution = await executeWorkflow(folder, workflowId, { timeoutMs });
		const saved = await savedExecution(folder, workflowId, lastId.value, [IMPORT]);
		if (saved === undefined) {
			throw new Error(
				`${scenario.label}: n8n saved no execution; exit code ${execution.exitCode}` +
					`${execution.timedOut ? ', timed out' : ''}; stderr: ${execution.stderr.slice(-500)}`,
			);
		}
		lastId.value = saved.id;
		const importRun = saved.nodes[IMPORT];
		const emails = sandbox.customers.map((customer) => (customer.email ?? '').toLowerCase());
		const present = new Set(emails);
		let rowsFailed = 0;
		for (let row = 0; row < rows; row++) if (!present.has(emailOf(row))) rowsFailed++;
		return {
			status: saved.status,
			error:
				saved.error ??
				(typeof importRun === 'string' ? `${IMPORT}: ${importRun}` : importRun.error),
			executionMs: utc(saved.stoppedAt) - utc(saved.startedAt),
			nodeMs: typeof importRun === 'object' ? importRun.executionTime : undefined,
			apiMs: firstAt === 0 ? undefined : lastAt - firstAt,
			throttled: sandbox.requests.filter((request) => request.status === 429).length,
			creates: sandbox.requests.filter((r) => r.method === 'POST' && r.path === ADD_CUSTOMER_PATH)
				.length,
			rowsFailed,
			duplicates: emails.length - present.size,
		};
	} finally {
		sandbox.onRequest = undefined;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Report                                                                                      */
/* ------------------------------------------------------------------------------------------ */

const count = (n: number) => n.toLocaleString('en-US');
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const loads = () =>
	loadavg()
		.map((load) => load.toFixed(2))
		.join(' / ');

function spread(values: Array<number | undefined>, digits = 0): string {
	const known = values.filter((value): value is number => value !== undefined);
	if (known.length === 0) return '—';
	const text = (value: number) => value.toFixed(digits);
	const [min, max] = [Math.min(...known), Math.max(...known)];
	return `${text(median(known))} (${text(min)}–${text(max)})`;
}

type Verdict = 'PASS' | 'MISS' | 'NO VERDICT';

/** PASS when every run is at or under the line, MISS when every run is over it. */
function verdict(values: number[], line: number): Verdict {
	if (Math.max(...values) <= line) return 'PASS';
	if (Math.min(...values) > line) return 'MISS';
	return 'NO VERDICT';
}

interface Report {
	lines: string[];
	/** Why the quick form fails, if it does. */
	failures: string[];
}

function report(
	results: VersionResult[],
	options: { rows: number; runs: { node: number; http: number }; quick: boolean },
	startedAt: { date: string; load: string },
): Report {
	const bound = boundMs(options.rows);
	const lines = [
		'',
		SECTION,
		'',
		`- Date: ${startedAt.date}; load average (1/5/15 min) at start ${startedAt.load}, at end ${loads()}`,
		`- ${results.map((result) => `n8n ${result.version} on Node.js ${result.nodeVersion}`).join('; ')}; \`n8n execute\``,
		`- M = ${count(options.rows)} rows, each with its own email, first and last name, made by a Code node; R = ${RATE.limit} requests per ${RATE.windowMs} ms fixed window (the sandbox's rate limit, per API key); every request answered ${LATENCY_MS} ms late; bound M/R = ${count(bound)} ms`,
		`- Runs: ${options.runs.node} of each node scenario, ${options.runs.http} of each HTTP Request scenario; median (min–max)${options.quick ? '; quick form' : ''}`,
		"- Scenarios: the node with Skip Existing off; on (match on email, within the business); the second run again on the CRM it left; HTTP Request, one POST per row to the Create endpoint, headers from a Custom Auth credential, n8n defaults; the same with Batching at Items per Batch = R and Batch Interval = the window, as n8n's docs advise for a rate limit (https://docs.n8n.io/integrations/builtin/rate-limits/). Each but the re-run starts from an empty CRM.",
		"- Execution: startedAt to stoppedAt as n8n saved them (the whole run, rows made included); Import: that node's own run time; API: the first request the sandbox saw to the last. Import minus API is time in the node with no request out: the node checks every row (each of its expressions evaluated once; in a workflow run Create is the node's own operation, which n8n's routing does not walk first) before the first Create leaves, and ends after the last reply. Rows failed: rows whose email is not in the CRM after the run; duplicates: customers beyond one per email.",
	];
	const failures: string[] = [];
	const verdicts: string[] = [];
	for (const result of results) {
		lines.push(
			'',
			`### n8n ${result.version} (Node.js ${result.nodeVersion})`,
			'',
			row([
				'scenario',
				'status',
				'execution ms',
				'× bound',
				'Import ms',
				'× bound',
				'API first→last ms',
				'× bound',
				'429s',
				'Creates sent',
				'rows failed',
				'duplicates',
			]),
			row([
				'---',
				'---',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
				'---:',
			]),
		);
		const errors: string[] = [];
		for (const [scenario, samples] of result.samples) {
			if (samples.length === 0) continue;
			const statuses = new Map<string, number>();
			for (const sample of samples)
				statuses.set(sample.status, (statuses.get(sample.status) ?? 0) + 1);
			lines.push(
				row([
					scenario.label,
					[...statuses].map(([status, n]) => `${status} ×${n}`).join(', '),
					spread(samples.map((s) => s.executionMs)),
					spread(
						samples.map((s) => s.executionMs / bound),
						3,
					),
					spread(samples.map((s) => s.nodeMs)),
					spread(
						samples.map((s) => (s.nodeMs === undefined ? undefined : s.nodeMs / bound)),
						3,
					),
					spread(samples.map((s) => s.apiMs)),
					spread(
						samples.map((s) => (s.apiMs === undefined ? undefined : s.apiMs / bound)),
						3,
					),
					spread(samples.map((s) => s.throttled)),
					spread(samples.map((s) => s.creates)),
					spread(samples.map((s) => s.rowsFailed)),
					spread(samples.map((s) => s.duplicates)),
				]),
			);
			samples.forEach((sample, run) => {
				if (sample.error !== undefined) {
					errors.push(
						`- ${scenario.label}, run ${run + 1}: ${sample.error.replace(/\s+/g, ' ').slice(0, 300)}`,
					);
				}
			});
			if (!scenario.byNode) continue;
			const where = `n8n ${result.version}, ${scenario.label}`;
			const judge = (what: string, values: number[], line: number, shown: string) => {
				const said = verdict(values, line);
				verdicts.push(`- ${said}: ${where}: ${what} (${shown})`);
				return said;
			};
			// The node's whole run, as n8n timed it: from the rows handed in (the first 429's wait
			// and the checks before the first Create included) to its last output.
			const ratios = samples.map((s) => (s.nodeMs ?? s.executionMs) / bound);
			if (scenario.fresh) {
				judge(
					`Import node's run ≤ ${TARGET_RATIO}× the bound`,
					ratios,
					TARGET_RATIO,
					`${spread(ratios, 3)}×${ratios.length < 2 ? '; one run, so no spread to tell it from noise' : ''}${options.quick ? `; the quick form fails only over ${QUICK_RATIO_LIMIT}×` : ''}`,
				);
				if (options.quick && median(ratios) > QUICK_RATIO_LIMIT) {
					failures.push(
						`${where}: the Import node's median run ${median(ratios).toFixed(3)}× the bound, over ${QUICK_RATIO_LIMIT}×`,
					);
				}
			} else {
				const creates = samples.map((s) => s.creates);
				if (judge('0 Creates sent', creates, 0, `${spread(creates)}`) !== 'PASS') {
					failures.push(`${where}: sent Creates`);
				}
			}
			const failed = samples.map((s) => s.rowsFailed);
			if (judge('0 rows failed', failed, 0, spread(failed)) !== 'PASS')
				failures.push(`${where}: rows failed`);
			const duplicates = samples.map((s) => s.duplicates);
			if (judge('0 duplicates', duplicates, 0, spread(duplicates)) !== 'PASS') {
				failures.push(`${where}: duplicates created`);
			}
			const unsuccessful = samples.map((s): number => (s.status === 'success' ? 0 : 1));
			const succeeded = samples.filter((s) => s.status === 'success').length;
			const said = judge(
				'every execution succeeded',
				unsuccessful,
				0,
				`${succeeded} of ${samples.length}`,
			);
			if (said !== 'PASS') failures.push(`${where}: an execution did not succeed`);
		}
		if (errors.length > 0) lines.push('', 'Errors n8n saved:', '', ...errors);
	}
	lines.push('', '### Verdicts', '', ...verdicts, '');
	return { lines, failures };
}

/* ------------------------------------------------------------------------------------------ */
/* Command line                                                                                */
/* ------------------------------------------------------------------------------------------ */

interface PackageJson {
	scripts: Record<string, string>;
}

async function main(): Promise<number> {
	const { values } = parseArgs({
		strict: true,
		options: {
			quick: { type: 'boolean' },
			'no-write': { type: 'boolean' },
			runs: { type: 'string' },
			rows: { type: 'string' },
			versions: { type: 'string' },
		},
	});
	const quick = values.quick === true;
	const form = quick ? QUICK : FULL;
	const whole = (name: string, text: string | undefined, fallback: number) => {
		if (text === undefined) return fallback;
		const n = Number(text);
		if (!Number.isInteger(n) || n < 1)
			throw new Error(`--${name} takes a whole number ≥ 1, not ${text}`);
		return n;
	};
	const rows = whole('rows', values.rows, form.rows);
	const runsGiven = whole('runs', values.runs, 0);
	const runs =
		runsGiven > 0
			? { node: runsGiven, http: runsGiven }
			: { node: form.nodeRuns, http: form.httpRuns };
	// The versions CI tests, each with its Node.js, read from package.json's scripts.
	const supported = testedVersions(
		(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as PackageJson).scripts,
		DEFAULT_N8N_VERSION,
	);
	const versions = values.versions?.split(',').map((v) => v.trim()) ?? form.versions;
	for (const version of versions) {
		if (!(version in supported)) {
			throw new Error(
				`--versions: ${version} is not one CI tests; use ${Object.keys(supported).join(', ')}`,
			);
		}
	}

	const startedAt = { date: new Date().toISOString(), load: loads() };
	const results: VersionResult[] = [];
	for (const version of versions) {
		results.push(await measureVersion(version, supported[version], rows, runs));
	}
	const { lines, failures } = report(results, { rows, runs, quick }, startedAt);
	console.log(lines.join('\n'));
	if (quick || values['no-write'])
		console.log(`${quick ? '--quick' : '--no-write'}: ${RESULTS_FILE} left as it is`);
	else {
		spliceSection(RESULTS_FILE, SECTION, lines);
		console.log(`Section 8 replaced in ${RESULTS_FILE}`);
	}
	if (failures.length > 0) {
		console.error(`bench:import failed:\n${failures.map((f) => `- ${f}`).join('\n')}`);
		return 1;
	}
	return 0;
}

if (require.main === module) {
	main().then(
		(code) => process.exit(code),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
