/**
 * n8n in queue mode on one machine: Redis, Postgres, one main (`n8n start` with
 * EXECUTIONS_MODE=queue) and workers (`n8n worker`), all sharing one encryption key, each n8n
 * process with its own user folder and its own copy of the packed package installed as n8n
 * installs a community package (as on separate machines). Used by the queue-mode suite and
 * the queue benchmark.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

import {
	createApiKey as createKey,
	createUserFolder,
	e2eTarget,
	ensureN8n,
	installPackage,
	packPackage,
	rest,
	setupOwner,
	startN8n,
	startN8nWorker,
	type N8nInstall,
	type RunningN8n,
	type Session,
	type UserFolder,
	type WorkflowJson,
	workflowExecutions as executionsOf,
	type ExecutionWithData,
} from '../e2e/n8n.cjs';
import { startPostgres, startRedis, type PostgresServer, type RedisServer } from './services.cjs';

/**
 * Bull's lock on a running job and how often workers look for jobs whose lock ran out. n8n's
 * defaults (60 s, renewed every 10 s, checked every 30 s) would make the killed-worker scenario
 * wait up to 90 s; these keep it under 20 s and are still far above any pause of a busy worker.
 */
export const QUEUE_TIMINGS = {
	QUEUE_WORKER_LOCK_DURATION: '12000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '3000',
	QUEUE_WORKER_STALLED_INTERVAL: '4000',
};

export interface QueueProcess {
	/** 'main', 'worker-1', 'worker-2', ... */
	name: string;
	folder: UserFolder;
	process: RunningN8n;
	/** Set once the process was stopped or killed. */
	ended: boolean;
}

export interface QueueCluster {
	install: N8nInstall;
	redis: RedisServer;
	postgres: PostgresServer;
	main: QueueProcess;
	/** The editor/REST/webhook address of the main. */
	url: string;
	session: Session;
	/** Workers still running. */
	workers(): QueueProcess[];
	/** Every n8n process started, the ended ones too (their output stays readable). */
	processes(): QueueProcess[];
	/** Starts one more worker (own user folder, package installed). */
	startWorker(): Promise<QueueProcess>;
	/** SIGKILL to the worker and everything it started, as when its machine dies. */
	killWorker(worker: QueueProcess): Promise<void>;
	/** Graceful stop (SIGTERM). */
	stopWorker(worker: QueueProcess): Promise<void>;
	/** The worker that logged starting this execution, if any did. */
	workerOf(executionId: string): QueueProcess | undefined;
	/** Stops every process and removes every folder; safe to call twice. */
	stop(): Promise<void>;
}

export interface QueueClusterOptions {
	workers?: number;
	/** `n8n worker --concurrency`. */
	concurrency?: number;
	/** Packed package to install; packed from this repo when missing. */
	tarball?: string;
	/** Progress lines (startup takes a while). */
	log?: (message: string) => void;
}

/** The settings every n8n process of the cluster shares: the README lists them for users. */
export function queueEnv(
	redis: RedisServer,
	postgres: PostgresServer,
	encryptionKey: string,
): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: '',
		N8N_ENCRYPTION_KEY: encryptionKey,
		...QUEUE_TIMINGS,
	};
}

export async function startQueueCluster(options: QueueClusterOptions = {}): Promise<QueueCluster> {
	const log = options.log ?? (() => undefined);
	const concurrency = options.concurrency ?? 5;
	const undo: Array<() => Promise<void> | void> = [];
	const processes: QueueProcess[] = [];
	let stopped = false;
	const stop = async (): Promise<void> => {
		if (stopped) return;
		stopped = true;
		for (const step of undo.splice(0).reverse()) {
			try {
				await step();
			} catch (error) {
				log(`cleanup step failed: ${(error as Error).message}`);
			}
		}
	};

	try {
		const install = await ensureN8n(await e2eTarget());
		const [redis, postgres, tarball] = await Promise.all([
			startRedis().then((server) => {
				undo.push(server.stop);
				return server;
			}),
			startPostgres().then((server) => {
				undo.push(server.stop);
				return server;
			}),
			options.tarball ?? packPackage(),
		]);
		log(`redis on ${redis.port}, postgres on ${postgres.port}`);
		const env = queueEnv(redis, postgres, randomBytes(24).toString('base64url'));

		const prepareFolder = async (): Promise<UserFolder> => {
			const folder = await createUserFolder(install, { env });
			undo.push(() => folder.remove());
			await installPackage(folder, tarball);
			return folder;
		};

		const endProcess = (entry: QueueProcess, how: 'stop' | 'kill') => async () => {
			if (entry.ended) return;
			entry.ended = true;
			await (how === 'kill' ? entry.process.kill() : entry.process.stop());
		};

		const mainFolder = await prepareFolder();
		log('starting the main (migrations on a fresh database take a while)');
		const mainProcess = await startN8n(mainFolder, { timeoutMs: 240_000 });
		const main: QueueProcess = {
			name: 'main',
			folder: mainFolder,
			process: mainProcess,
			ended: false,
		};
		processes.push(main);
		undo.push(endProcess(main, 'stop'));
		const url = mainProcess.url;
		const session = await setupOwner(url);

		let workerCount = 0;
		const startWorker = async (): Promise<QueueProcess> => {
			const name = `worker-${++workerCount}`;
			const folder = await prepareFolder();
			const running = await startN8nWorker(folder, { concurrency, timeoutMs: 240_000 });
			const worker: QueueProcess = { name, folder, process: running, ended: false };
			processes.push(worker);
			undo.push(endProcess(worker, 'stop'));
			log(`${name} ready`);
			return worker;
		};
		await Promise.all(Array.from({ length: options.workers ?? 2 }, startWorker));

		return {
			install,
			redis,
			postgres,
			main,
			url,
			session,
			workers: () => processes.filter((entry) => entry.name !== 'main' && !entry.ended),
			processes: () => [...processes],
			startWorker,
			killWorker: async (worker) => await endProcess(worker, 'kill')(),
			stopWorker: async (worker) => await endProcess(worker, 'stop')(),
			workerOf: (executionId) =>
				processes.find(
					(entry) =>
						entry.name !== 'main' &&
						entry.process.output().includes(`Worker started execution ${executionId} (`),
				),
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Credentials, workflows and webhooks through the main's REST API, as the editor does it     */
/* ------------------------------------------------------------------------------------------ */

export async function createCredential(
	cluster: QueueCluster,
	credential: { name: string; type: string; data: Record<string, unknown> },
): Promise<{ id: string; name: string }> {
	const created = await rest<{ id: string; name: string }>(
		cluster.url,
		cluster.session,
		'POST',
		'/credentials',
		credential,
	);
	return { id: created.id, name: created.name };
}

/** Saves the workflow and publishes it (n8n 2.x: activate a version), so its webhooks listen. */
export async function publishWorkflow(
	cluster: QueueCluster,
	workflow: WorkflowJson,
): Promise<string> {
	const saved = await rest<{ id: string; versionId: string }>(
		cluster.url,
		cluster.session,
		'POST',
		'/workflows',
		{ settings: { executionOrder: 'v1' }, ...workflow, active: false },
	);
	await rest(cluster.url, cluster.session, 'POST', `/workflows/${saved.id}/activate`, {
		versionId: saved.versionId,
	});
	return saved.id;
}

export interface WebhookReply {
	status: number;
	body: unknown;
	/** The execution id the workflow put in its X-Execution-Id response header. */
	executionId: string | undefined;
	/** From sending the request to the end of the response body. */
	ms: number;
}

export async function callWebhook(
	cluster: QueueCluster,
	path: string,
	body: unknown,
): Promise<WebhookReply> {
	const started = performance.now();
	const response = await fetch(`${cluster.url}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const text = await response.text();
	const ms = performance.now() - started;
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: keep the text, the caller's assertion shows it
	}
	return {
		status: response.status,
		body: parsed,
		executionId: response.headers.get('x-execution-id') ?? undefined,
		ms,
	};
}

export interface ExecutionSummary {
	id: string;
	status: string;
	finished: boolean;
	mode: string;
	retryOf?: string | null;
	retrySuccessId?: string | null;
}

export async function getExecution(
	cluster: QueueCluster,
	executionId: string,
): Promise<ExecutionSummary> {
	return await rest<ExecutionSummary>(
		cluster.url,
		cluster.session,
		'GET',
		`/executions/${executionId}`,
	);
}

/** Turns a published workflow off (its trigger stops polling); resolves to its `active` flag. */
export async function deactivateWorkflow(
	cluster: QueueCluster,
	workflowId: string,
): Promise<boolean> {
	const workflow = await rest<{ active: boolean }>(
		cluster.url,
		cluster.session,
		'POST',
		`/workflows/${workflowId}/deactivate`,
		{},
	);
	return workflow.active;
}

/** A key for n8n's public API (`/api/v1`) on the cluster's main. */
export async function createApiKey(cluster: QueueCluster, scopes: string[]): Promise<string> {
	return await createKey(cluster.url, cluster.session, `queue suite ${scopes.join(' ')}`, scopes);
}

/** Every execution of a workflow with its data, oldest first, from the main's public API. */
export async function workflowExecutions(
	cluster: QueueCluster,
	apiKey: string,
	workflowId: string,
): Promise<ExecutionWithData[]> {
	return await executionsOf(cluster.url, apiKey, workflowId);
}

/** The node type as the main loaded it, from `/types/nodes.json` (what the editor reads). */
export async function loadedNodeType(
	cluster: QueueCluster,
	name: string,
): Promise<{ name: string; properties: unknown[] } | undefined> {
	const response = await fetch(`${cluster.url}/types/nodes.json`, {
		headers: { cookie: cluster.session.cookie },
	});
	if (!response.ok) throw new Error(`GET /types/nodes.json: ${response.status}`);
	const types = (await response.json()) as Array<{ name: string; properties: unknown[] }>;
	return types.find((type) => type.name === name);
}

/** Files n8n wrote into a user folder (event log, crash journal, config), the package aside. */
export function userFolderFiles(folder: UserFolder): string[] {
	const files: string[] = [];
	const walk = (dir: string) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = `${dir}/${entry.name}`;
			if (entry.isDirectory()) {
				if (entry.name !== 'nodes') walk(full);
			} else if (entry.isFile()) files.push(full);
		}
	};
	walk(folder.dir);
	return files;
}
