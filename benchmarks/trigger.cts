/**
 * The cost of a Business CRM Trigger poll at N = 10,000 and 100,000 customers, the trigger run
 * by n8n-core's poll machinery (test/helpers/poll-harness.cts) against the sandbox process:
 * the first activation (which reads the whole list), a poll that finds nothing new, a poll that
 * finds 100 appended customers, a poll after a deletion (the fallback: a full read), and the
 * polls until a customer inserted inside the list while the last known customer kept its offset
 * is found by the sweep.
 *
 * Part of `npm run bench` (bench.cts prints it as the last section of results.md); on its own,
 * `node --expose-gc --require tsx/cjs benchmarks/trigger.cts [--quick]` prints just this section.
 */
import { loadavg } from 'node:os';
import type { CrmCredentials } from '../test/helpers/harness.cjs';
import {
	loadPollHarness,
	measure,
	SandboxProcess,
	summarize,
	type Sample,
	type Summary,
} from './lib.cjs';

const PAGE_SIZE = 100;
const APPENDED = 100;

interface Case {
	name: string;
	/** For the sweep: polls until the inserted customer was emitted, per run. */
	polls?: number[];
	/** The exact request count for this case. */
	expected: (n: number) => number;
	/** What the README promises. */
	promise: string;
	summary: Summary;
}

export interface TriggerResult {
	lines: string[];
	/** Whether every poll made exactly the requests promised. */
	targets: Array<{ name: string; pass: boolean; detail: string }>;
}

const count = (n: number) => n.toLocaleString('en-US');
const time = (s: Summary) => `${s.ms.toFixed(0)} (${s.minMs.toFixed(0)}–${s.maxMs.toFixed(0)})`;

/** Measures the trigger on `sandbox`, `runs` times per case, at each size in `sizes`. */
export async function benchTrigger(
	sandbox: SandboxProcess,
	runs: number,
	sizes: number[],
): Promise<TriggerResult> {
	const { TriggerHarness } = await loadPollHarness();
	const info = sandbox.info;
	const credentials: CrmCredentials = {
		baseUrl: info.url,
		apiKey: info.apiKey,
		organizationId: info.organizationId,
	};
	const emitted = (outcome: { items: unknown[]; error?: Error }) => {
		if (outcome.error) throw outcome.error;
		return outcome.items;
	};

	// Warm-up: JIT and n8n-core's lazy setup, so the first measured run is not an outlier.
	await sandbox.seed(1_000);
	const warmUp = new TriggerHarness(credentials);
	emitted(await warmUp.activate());
	await sandbox.append(APPENDED);
	emitted(await warmUp.poll());

	const results: Array<{ size: number; cases: Case[]; stateBytes: number }> = [];
	for (const size of sizes) {
		const activation: Sample[] = [];
		const nothingNew: Sample[] = [];
		const hundredNew: Sample[] = [];
		const afterDeletion: Sample[] = [];
		const untilSwept: Sample[] = [];
		const sweepPolls: number[] = [];
		let stateBytes = 0;
		for (let run = 0; run < runs; run++) {
			await sandbox.seed(size);
			const trigger = new TriggerHarness(credentials);
			activation.push(await measure(sandbox, async () => emitted(await trigger.activate())));
			stateBytes = Buffer.byteLength(JSON.stringify(trigger.nodeStaticData()));
			nothingNew.push(await measure(sandbox, async () => emitted(await trigger.poll())));
			await sandbox.append(APPENDED);
			const sample = await measure(sandbox, async () => emitted(await trigger.poll()));
			if (sample.items !== APPENDED) throw new Error(`emitted ${sample.items}, not ${APPENDED}`);
			hundredNew.push(sample);
			await sandbox.remove(Math.floor(size / 2));
			afterDeletion.push(await measure(sandbox, async () => emitted(await trigger.poll())));
			// One deleted and one inserted before the last known customer, which keeps its offset:
			// only the sweep can find the inserted one. Its worst place: just behind the sweep.
			emitted(await trigger.poll());
			await sandbox.remove(0);
			await sandbox.insert(0);
			let polls = 0;
			untilSwept.push(
				await measure(sandbox, async () => {
					for (;;) {
						polls++;
						const found = emitted(await trigger.poll());
						if (found.length > 0 || polls > 2 * size) return found;
					}
				}),
			);
			sweepPolls.push(polls);
		}
		results.push({
			size,
			stateBytes,
			cases: [
				{
					name: 'first activation (records all, emits nothing)',
					// Pages of 100 overlapping by one customer.
					expected: (n) => Math.max(1, Math.ceil((n - 1) / (PAGE_SIZE - 1))),
					promise: 'ceil((N-1)/99)',
					summary: summarize(activation),
				},
				{
					name: 'nothing new (the tail and one page of the sweep)',
					expected: () => 2,
					promise: '≤ 2',
					summary: summarize(nothingNew),
				},
				{
					name: `${APPENDED} new, appended`,
					expected: () => 1 + Math.max(1, Math.ceil(APPENDED / (PAGE_SIZE - 1))),
					promise: `1 + max(1, ceil(${APPENDED}/99)) = 3`,
					summary: summarize(hundredNew),
				},
				{
					name: 'one customer deleted (fallback: tail, then a full read)',
					// The tail from the last known customer (now one further on), then N + 99 customers.
					expected: (n) => 1 + Math.ceil((n + APPENDED - 2) / (PAGE_SIZE - 1)),
					promise: '1 + ceil((N-1)/99)',
					summary: summarize(afterDeletion),
				},
				{
					name: 'one inserted inside, one deleted (the last known customer keeps its offset): all polls until the sweep emits it',
					// Two requests per poll, at most one sweep of the known list.
					expected: (n) => 2 * Math.ceil((n + APPENDED - 2) / (PAGE_SIZE - 1)),
					promise: '≤ 2 per poll, ≤ ceil((N-1)/99) polls',
					summary: summarize(untilSwept),
					polls: sweepPolls,
				},
			],
		});
	}

	const lines = [
		'## 6. Business CRM Trigger: the cost of a poll',
		'',
		`Measured ${new Date().toISOString()}; load average (1/5/15 min) ${loadavg()
			.map((load) => load.toFixed(2))
			.join(' / ')} at the end, Node ${process.version}.`,
		'',
		`The trigger run by n8n-core's PollContext and PollTriggerExecutor (test/helpers/poll-harness.cts) against the same sandbox process; ${runs} runs per figure, each on a fresh list of N customers: activation, a poll with nothing new, ${APPENDED} customers appended and a poll, one customer deleted and a poll, then one customer deleted and one inserted at the front (just behind the sweep, its worst place) and polls until it is emitted (requests and time of all those polls together; at the default Poll Times, every minute, each poll is a minute). Time: median (min–max).`,
		'',
		'| N | poll | requests | promised | wall ms | items emitted | peak heap MB |',
		'| ---: | --- | ---: | --- | ---: | ---: | ---: |',
	];
	const targets: TriggerResult['targets'] = [];
	for (const { size, cases } of results) {
		for (const item of cases) {
			const expected = item.expected(size);
			const seen = [...new Set(item.summary.requests)].map(count).join('/');
			lines.push(
				`| ${count(size)} | ${item.name} | ${seen} | ${item.promise} | ${time(item.summary)} | ${count(item.summary.items)} | ${(item.summary.heapBytes / 2 ** 20).toFixed(1)} |`,
			);
			if (item.polls) {
				// The sweep: at most `expected` requests, two per poll, within the bound of polls.
				const bound = expected / 2;
				targets.push({
					name: `Trigger at N = ${count(size)}, ${item.name}: within ${count(bound)} polls of 2 requests`,
					pass: item.polls.every(
						(polls, run) => polls <= bound && item.summary.requests[run] === 2 * polls,
					),
					detail: `polls ${item.polls.join(', ')}; requests ${item.summary.requests.join(', ')}`,
				});
				continue;
			}
			targets.push({
				name: `Trigger at N = ${count(size)}, ${item.name}: exactly ${count(expected)} ${expected === 1 ? 'request' : 'requests'}`,
				pass: item.summary.requests.every((requests) => requests === expected),
				detail: `saw ${item.summary.requests.join(', ')}`,
			});
		}
	}
	lines.push('');
	for (const { size, stateBytes } of results) {
		lines.push(
			`- Remembered state at N = ${count(size)}: ${count(stateBytes)} bytes of static data, ${(stateBytes / size).toFixed(2)} bytes per known customer.`,
		);
	}
	for (const { size, cases } of results) {
		const sweep = cases.find((item) => item.polls);
		if (!sweep?.polls) continue;
		const bound = sweep.expected(size) / 2;
		const hours = (bound / 60).toFixed(1);
		lines.push(
			`- The sweep at N = ${count(size)} (${count(size + APPENDED - 1)} customers then): the inserted customer came after ${sweep.polls.join(', ')} polls; the bound is ${count(bound)} polls, ${count(bound)} minutes (${hours} h) at the default Poll Times.`,
		);
	}
	lines.push(
		'',
		...targets.map((t) => `- ${t.pass ? 'PASS' : 'MISS'}: ${t.name} (${t.detail})`),
		'',
	);
	return { lines, targets };
}

async function main(): Promise<void> {
	const quick = process.argv.includes('--quick');
	const sandbox = await SandboxProcess.start();
	try {
		const { lines } = await benchTrigger(
			sandbox,
			quick ? 3 : 5,
			quick ? [10_000] : [10_000, 100_000],
		);
		console.log(lines.join('\n'));
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}
