/**
 * CPU profile of one benchmark case, to see where the node's time goes when a target is missed.
 *
 *   node --require tsx/cjs benchmarks/profile.cts [getMany|create|bare] [count]
 *     getMany: Customer › Get Many, Return All over count customers (default 10,000)
 *     create:  Customer › Create for count input items (default 1,000)
 *     bare:    the bare fetch loop over count customers, for comparison
 *
 * Warms up, then profiles 5 runs with the inspector (so start-up and module loading stay out of
 * the profile), writes the .cpuprofile to the temp folder (open it in Chrome DevTools) and prints
 * the heaviest functions by self time and the share of each owner: our code in nodes/ and
 * credentials/, n8n-core, n8n-workflow, axios, Node's own http/net, the test harness.
 */
import { writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { bareGetMany, loadHarness, nodeCreate, nodeGetMany, SandboxProcess } from './lib.cjs';

const WARM_UP_RUNS = 3;
const PROFILED_RUNS = 5;
const SAMPLING_INTERVAL_US = 100;
const TOP_FUNCTIONS = 25;

const NODE_INTERNALS = 'Node (http, net, streams), no library on the stack';
const OWNERS: Array<[string, RegExp]> = [
	['ours (nodes/, credentials/)', /\/(nodes|credentials)\//],
	['test harness', /\/test\/helpers\//],
	['n8n-core', /\/n8n-core\//],
	['n8n-workflow', /\/n8n-workflow\/|\/@n8n\/tournament\/|\/luxon\//],
	['axios, follow-redirects', /\/axios\/|\/follow-redirects\//],
	['benchmark', /\/benchmarks\//],
];

function post<T>(session: Session, method: string, params: object = {}): Promise<T> {
	return new Promise((resolve, reject) =>
		session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
	);
}

function shortUrl(url: string): string {
	return url
		.replace(/^.*\/node_modules\//, '')
		.replace(/^file:\/\/.*?\/(?=nodes|benchmarks|test)/, '');
}

/** Self time per function, and per owner of the innermost frame that has one. */
function summarize(profile: Profiler.Profile): string[] {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);

	const self = new Map<string, number>();
	const owners = new Map<string, number>();
	let total = 0;
	profile.samples?.forEach((id, index) => {
		const micros = profile.timeDeltas?.[index + 1] ?? 0;
		total += micros;
		const frame = byId.get(id)!.callFrame;
		const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
		self.set(name, (self.get(name) ?? 0) + micros);

		// The innermost library frame decides, so a socket connect made by axios counts as axios;
		// Node's own frames count only when no library is on the stack (callbacks after an await).
		let owner = frame.url === '' ? frame.functionName || '(native)' : 'other';
		let nodeInternal = false;
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const url = byId.get(at)!.callFrame.url;
			if (url.startsWith('node:')) {
				nodeInternal = true;
				continue;
			}
			const match = OWNERS.find(([, pattern]) => pattern.test(url));
			if (match) {
				owner = match[0];
				nodeInternal = false;
				break;
			}
		}
		if (nodeInternal) owner = NODE_INTERNALS;
		owners.set(owner, (owners.get(owner) ?? 0) + micros);
	});

	const percent = (micros: number) => `${((micros / total) * 100).toFixed(1).padStart(5)} %`;
	const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
	return [
		'Share of CPU samples by owner (innermost library frame on the stack):',
		...sorted(owners).map(([owner, micros]) => `  ${percent(micros)}  ${owner}`),
		'',
		`Top ${TOP_FUNCTIONS} functions by self time:`,
		...sorted(self)
			.slice(0, TOP_FUNCTIONS)
			.map(([name, micros]) => `  ${percent(micros)}  ${name}`),
	];
}

async function main(): Promise<void> {
	const which = process.argv[2] ?? 'getMany';
	if (!['getMany', 'create', 'bare'].includes(which)) {
		throw new Error(`Unknown case "${which}": use getMany, create or bare`);
	}
	const count = Number(process.argv[3] ?? (which === 'create' ? 1_000 : 10_000));
	const runNode = await loadHarness();
	const sandbox = await SandboxProcess.start();
	try {
		const info = sandbox.info;
		await sandbox.seed(which === 'create' ? 0 : count);
		const run =
			which === 'getMany'
				? nodeGetMany(runNode, info)
				: which === 'create'
					? nodeCreate(runNode, info, count)
					: bareGetMany(info);
		for (let i = 0; i < WARM_UP_RUNS; i++) await run();

		const session = new Session();
		session.connect();
		await post(session, 'Profiler.enable');
		await post(session, 'Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
		await post(session, 'Profiler.start');
		const start = performance.now();
		for (let i = 0; i < PROFILED_RUNS; i++) await run();
		const perRun = (performance.now() - start) / PROFILED_RUNS;
		const { profile } = await post<{ profile: Profiler.Profile }>(session, 'Profiler.stop');
		session.disconnect();

		const file = join(tmpdir(), `business-crm-${which}-${count}.cpuprofile`);
		writeFileSync(file, JSON.stringify(profile));
		console.log(
			[
				`${which} over ${count.toLocaleString('en-US')}: ${perRun.toFixed(0)} ms per run while profiled`,
				`Profile: ${file}`,
				'',
				...summarize(profile),
			].join('\n'),
		);
	} finally {
		await sandbox.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
