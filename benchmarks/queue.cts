/**
 * Queue-mode throughput: scenario 1 of the queue-mode suite (100 concurrent webhook calls, each
 * one Business CRM › Create, answered by Respond to Webhook) on n8n 2.8.4 in queue mode, with one
 * worker and with two (`--concurrency=5` each), against the sandbox at 20 requests/s (the
 * suite's setting) and without a limit (what the machine itself allows). Also records where
 * the CPU went, to say what limits the figure. Writes benchmarks/queue-results.md.
 *
 *   npm run bench:queue               # 5 measured runs per figure
 *   npm run bench:queue -- --runs 3
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox, type Sandbox } from '../test/sandbox/server.cjs';
import {
	callWebhook,
	createCredential,
	publishWorkflow,
	startQueueCluster,
	type QueueCluster,
} from '../test/queue/cluster.cjs';
import { createCustomerWorkflow } from '../test/queue/workflows.cjs';

const CALLS = 100;
const OUTPUT = path.join(__dirname, 'queue-results.md');

function option(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	const value = index === -1 ? undefined : Number(process.argv[index + 1]);
	return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}
const RUNS = option('runs', 5);

const log = (message: string) => process.stderr.write(`[bench:queue] ${message}\n`);

/* ------------------------------------------------------------------------------------------ */
/* CPU accounting from /proc                                                                  */
/* ------------------------------------------------------------------------------------------ */

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

type Role = 'main' | 'workers' | 'postgres' | 'redis';

/** CPU seconds used so far by every live process whose working directory belongs to a role. */
function cpuByRole(cluster: QueueCluster): Record<Role, number> {
	const roots: Array<[string, Role]> = [
		...cluster
			.processes()
			.map((entry): [string, Role] => [
				entry.folder.dir,
				entry.name === 'main' ? 'main' : 'workers',
			]),
		[cluster.postgres.dir, 'postgres'],
		[cluster.redis.dir, 'redis'],
	];
	const totals: Record<Role, number> = { main: 0, workers: 0, postgres: 0, redis: 0 };
	for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		try {
			const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
			const role = roots.find(([root]) => cwd === root || cwd.startsWith(`${root}/`))?.[1];
			if (role === undefined) continue;
			// Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
			const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			totals[role] += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
		} catch {
			// the process ended while we looked
		}
	}
	return totals;
}

/** Busy and total CPU time of the whole machine, other people's work included. */
function machineTicks(): { busy: number; total: number } {
	const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
	const values = line.trim().split(/\s+/).slice(1).map(Number);
	const total = values.reduce((sum, value) => sum + value, 0);
	const idle = (values[3] ?? 0) + (values[4] ?? 0);
	return { busy: total - idle, total };
}

/* ------------------------------------------------------------------------------------------ */
/* One run                                                                                     */
/* ------------------------------------------------------------------------------------------ */

interface Sample {
	wallMs: number;
	perSecond: number;
	p50: number;
	p95: number;
	rateLimited: number;
	cpu: Record<Role | 'bench', number>;
	/** Cores the whole machine kept busy during the run (of os.cpus().length). */
	machineCores: number;
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function burst(
	cluster: QueueCluster,
	sandbox: Sandbox,
	webhookPath: string,
): Promise<Sample> {
	sandbox.customers.length = 0;
	sandbox.clearLog();
	const cpuBefore = cpuByRole(cluster);
	const benchBefore = process.cpuUsage();
	const machineBefore = machineTicks();
	const started = performance.now();
	const replies = await Promise.all(
		Array.from(
			{ length: CALLS },
			async (_, i) =>
				await callWebhook(cluster, webhookPath, {
					firstName: `Bench${i}`,
					lastName: 'Queue',
					email: `bench-${i}@queue.test`,
				}),
		),
	);
	const wallMs = performance.now() - started;
	const machineAfter = machineTicks();
	const benchCpu = process.cpuUsage(benchBefore);
	const cpuAfter = cpuByRole(cluster);

	const failed = replies.filter((reply) => reply.status !== 200);
	if (failed.length > 0 || sandbox.customers.length !== CALLS) {
		throw new Error(
			`run failed: ${failed.length} calls answered other than 200 (first: ${JSON.stringify(failed[0]?.body)}), ${sandbox.customers.length} customers created`,
		);
	}
	const latencies = replies.map((reply) => reply.ms).sort((a, b) => a - b);
	const cpu = { bench: (benchCpu.user + benchCpu.system) / 1e6 } as Record<Role | 'bench', number>;
	for (const role of Object.keys(cpuBefore) as Role[]) cpu[role] = cpuAfter[role] - cpuBefore[role];
	return {
		wallMs,
		perSecond: CALLS / (wallMs / 1000),
		p50: percentile(latencies, 50),
		p95: percentile(latencies, 95),
		rateLimited: sandbox.requests.filter((request) => request.status === 429).length,
		cpu,
		machineCores:
			((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) *
			os.cpus().length,
	};
}

/* ------------------------------------------------------------------------------------------ */
/* Report                                                                                      */
/* ------------------------------------------------------------------------------------------ */

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? (sorted[middle] ?? NaN)
		: ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

function spread(values: number[], digits = 0): string {
	const format = (value: number) => value.toFixed(digits);
	return `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

interface Figure {
	workers: number;
	limit: string;
	samples: Sample[];
}

function cpuCell(samples: Sample[], role: Role | 'bench'): string {
	return median(samples.map((sample) => sample.cpu[role])).toFixed(1);
}

function report(figures: Figure[], context: { n8nVersion: string; loadAtStart: number[] }): string {
	const cpu = os.cpus();
	const lines = [
		'# Business CRM node in n8n queue mode: benchmark',
		'',
		'Written by `npm run bench:queue` (benchmarks/queue.cts); do not edit by hand.',
		'',
		`- Date: ${new Date().toISOString()}`,
		`- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, shared with other work (load average at start ${context.loadAtStart.map((value) => value.toFixed(2)).join(' / ')})`,
		`- Node ${process.version}; n8n ${context.n8nVersion} in queue mode: one main, Redis ${redisVersion()}, Postgres ${postgresVersion()}, workers with \`--concurrency=5\`; each n8n process has its own copy of the package`,
		`- One run: ${CALLS} concurrent webhook calls to a published workflow Webhook → Business CRM › Create → Respond to Webhook; every call must answer 200 with its customer and the sandbox must hold ${CALLS} customers, or the benchmark stops`,
		`- ${RUNS} measured runs per figure after one warm-up run; median (min–max)`,
		'- Executions/s: calls divided by the time from the first call to the last answer. Latency: one webhook call, from sending it to the end of its answer.',
		'- CPU: seconds used during one run (median) by the main, the workers together (task runners included), Postgres, Redis, and this process (the sandbox API and the 100 HTTP clients). Busy cores: the whole machine during the run, other work on it included.',
		'',
		'| workers | sandbox rate limit | executions/s | p50 latency ms | p95 latency ms | 429s per run | CPU s: main / workers / Postgres / Redis / bench | CPU ms per execution (n8n, Postgres, Redis) | busy cores (of 2) |',
		'| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |',
	];
	for (const { workers, limit, samples } of figures) {
		const cpuSeconds = (['main', 'workers', 'postgres', 'redis', 'bench'] as const)
			.map((role) => cpuCell(samples, role))
			.join(' / ');
		const cells = [
			String(workers),
			limit,
			spread(
				samples.map((x) => x.perSecond),
				1,
			),
			spread(samples.map((x) => x.p50)),
			spread(samples.map((x) => x.p95)),
			spread(samples.map((x) => x.rateLimited)),
			cpuSeconds,
			spread(samples.map(cpuPerExecution)),
			spread(
				samples.map((x) => x.machineCores),
				2,
			),
		];
		lines.push(`| ${cells.join(' | ')} |`);
	}
	lines.push('', '## What limits the figure', '', ...limits(figures));
	return `${lines.join('\n')}\n`;
}

/** Milliseconds of CPU the cluster (not the benchmark process) spent per execution. */
function cpuPerExecution(sample: Sample): number {
	const { main, workers, postgres, redis } = sample.cpu;
	return ((main + workers + postgres + redis) * 1000) / CALLS;
}

function rangesOverlap(a: Figure | undefined, b: Figure | undefined): boolean {
	if (a === undefined || b === undefined) return true;
	const rates = (figure: Figure) => figure.samples.map((x) => x.perSecond);
	return (
		Math.max(...rates(a)) >= Math.min(...rates(b)) && Math.max(...rates(b)) >= Math.min(...rates(a))
	);
}

/** Conclusions drawn from this run's numbers, so they change when the numbers do. */
function limits(figures: Figure[]): string[] {
	const find = (workers: number, limited: boolean) =>
		figures.find((figure) => figure.workers === workers && (figure.limit !== 'none') === limited);
	const rate = (figure: Figure | undefined) =>
		figure === undefined
			? 'n/a'
			: spread(
					figure.samples.map((x) => x.perSecond),
					1,
				);
	const free = figures
		.filter((figure) => figure.limit === 'none')
		.flatMap((figure) => figure.samples);
	const cpuMs = median(free.map(cpuPerExecution));
	const busy = median(free.map((x) => x.machineCores));
	const cores = os.cpus().length;
	const limited1 = find(1, true);
	const limited2 = find(2, true);
	const free1 = find(1, false);
	const free2 = find(2, false);
	return [
		`- **With the API's limit (20 requests/s per key)** the ceiling is 20 executions/s, each execution being one request: measured ${rate(limited1)} with one worker and ${rate(limited2)} with two. A request refused with 429 waits the whole seconds the API asks for (\`retryAfter\`) although the window may reopen sooner, so part of every window goes unused; every 429 was waited out inside its execution and none reached a caller. ${rangesOverlap(limited1, limited2) ? 'The ranges of one and two workers overlap: no difference shown.' : 'Two workers beat one here: five executions at a time on one worker leave part of the 20 requests/s unused.'}`,
		`- **Without a limit** the figure is ${busy >= 0.9 * cores ? 'CPU-bound' : 'not CPU-bound'}: the machine's ${cores} cores were ${busy.toFixed(2)} busy (median, other work on the machine included), and n8n, Postgres and Redis spent ${cpuMs.toFixed(0)} ms of CPU per execution (the main takes the webhook, saves and enqueues the execution and sends the answer; a worker loads the execution from Postgres, runs it and saves the result). ${cores} cores can run at most about ${((cores * 1000) / cpuMs).toFixed(0)} such executions/s, less whatever else runs on the machine: measured ${rate(free1)} with one worker and ${rate(free2)} with two. ${rangesOverlap(free1, free2) ? 'The ranges of one and two workers overlap: on 2 cores a second worker adds no CPU, only more executions at once.' : 'Two workers beat one here even on 2 cores.'} More workers pay off with more cores or machines, up to the API's limit.`,
	];
}

function redisVersion(): string {
	return /v=(\S+)/.exec(execFileSync('redis-server', ['--version']).toString())?.[1] ?? '?';
}

function postgresVersion(): string {
	const root = '/usr/lib/postgresql';
	const major = fs.readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] ?? '';
	const text = execFileSync(path.join(root, major, 'bin', 'postgres'), ['--version']).toString();
	return /(\d+\.\d+)/.exec(text)?.[1] ?? major;
}

/* ------------------------------------------------------------------------------------------ */

async function main(): Promise<void> {
	const loadAtStart = os.loadavg();
	const limited = await startSandbox({
		businesses: 1,
		customers: 0,
		rateLimit: { limit: 20, windowMs: 1000 },
	});
	const free = await startSandbox({ businesses: 1, customers: 0 });
	let cluster: QueueCluster | undefined;
	try {
		cluster = await startQueueCluster({ workers: 1, concurrency: 5, log });
		const targets: Array<{ limit: string; sandbox: Sandbox; path: string }> = [];
		for (const [limit, sandbox, webhookPath] of [
			['20 requests/s', limited, 'bench-limited'],
			['none', free, 'bench-free'],
		] as const) {
			const credential = await createCredential(cluster, {
				name: `Business CRM (${limit})`,
				type: 'businessCrmApi',
				data: {
					baseUrl: sandbox.url,
					apiKey: sandbox.apiKey,
					organizationId: sandbox.organizationId,
				},
			});
			const businessId = sandbox.businesses[0]?.id ?? '';
			await publishWorkflow(cluster, createCustomerWorkflow(webhookPath, credential, businessId));
			targets.push({ limit, sandbox, path: webhookPath });
		}

		const figures: Figure[] = [];
		for (const workers of [1, 2]) {
			while (cluster.workers().length < workers) await cluster.startWorker();
			const byTarget = targets.map((target) => ({ ...target, samples: [] as Sample[] }));
			for (const target of byTarget) await burst(cluster, target.sandbox, target.path);
			// Runs of the two targets take turns, so a spell of load elsewhere hits both alike.
			for (let run = 1; run <= RUNS; run++) {
				for (const target of byTarget) {
					const sample = await burst(cluster, target.sandbox, target.path);
					target.samples.push(sample);
					log(
						`${workers} worker(s), limit ${target.limit}, run ${run}: ${sample.perSecond.toFixed(1)}/s, p50 ${sample.p50.toFixed(0)} ms, p95 ${sample.p95.toFixed(0)} ms, ${sample.rateLimited} 429s, ${sample.machineCores.toFixed(2)} cores busy`,
					);
				}
			}
			figures.push(
				...byTarget.map((target) => ({ workers, limit: target.limit, samples: target.samples })),
			);
		}
		fs.writeFileSync(OUTPUT, report(figures, { n8nVersion: cluster.install.version, loadAtStart }));
		log(`wrote ${OUTPUT}`);
		process.stdout.write(fs.readFileSync(OUTPUT, 'utf8'));
	} finally {
		await cluster?.stop();
		await limited.close();
		await free.close();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
	process.exitCode = 1;
});
