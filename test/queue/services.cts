/**
 * Redis and Postgres for the queue-mode suite: Debian's packages (test/queue/install-services.sh),
 * each started as a process of ours in a temporary folder on a free 127.0.0.1 port, never as a
 * system service, and removed when stopped.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { freePort, removeAtExit, run, startProcess, type BackgroundProcess } from '../e2e/n8n.cjs';
import { RedisClient } from './redis.cjs';

const INSTALL_HINT = 'Install it with test/queue/install-services.sh (Debian: apt-get).';

function requireFile(file: string, what: string): string {
	if (!fs.existsSync(file)) throw new Error(`${what} not found at ${file}. ${INSTALL_HINT}`);
	return file;
}

export interface RedisServer {
	port: number;
	/** Its temp folder (and working directory). */
	dir: string;
	process: BackgroundProcess;
	/** A new connection; close it when done. */
	connect(): Promise<RedisClient>;
	stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
	const binary = requireFile('/usr/bin/redis-server', 'redis-server');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-redis-'));
	const remove = removeAtExit(dir);
	const port = await freePort();
	// No persistence: the suite's Redis lives as long as the suite.
	const redis = await startProcess(
		binary,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
		],
		{
			name: 'redis-server',
			cwd: dir,
			ready: async () => {
				const client = await RedisClient.connect(port);
				try {
					return (await client.command('PING')) === 'PONG';
				} finally {
					client.close();
				}
			},
		},
	).catch((error: unknown) => {
		remove();
		throw error;
	});
	return {
		port,
		dir,
		process: redis,
		connect: async () => await RedisClient.connect(port),
		stop: async () => {
			await redis.stop('SIGTERM', 5_000);
			remove();
		},
	};
}

export interface PostgresServer {
	port: number;
	/** Its temp folder; the server's processes run in `<dir>/data`. */
	dir: string;
	user: string;
	database: string;
	process: BackgroundProcess;
	/** Runs one SQL statement with psql and returns its unaligned, tuples-only output. */
	query(sql: string): Promise<string>;
	/** `pg_dump` of the whole database as SQL text. */
	dump(): Promise<string>;
	stop(): Promise<void>;
}

/** The newest Postgres server Debian installed (/usr/lib/postgresql/<major>/bin). */
function postgresBinDir(): string {
	const root = '/usr/lib/postgresql';
	const majors = fs.existsSync(root)
		? fs
				.readdirSync(root)
				.filter((name) => /^\d+$/.test(name))
				.sort((a, b) => Number(b) - Number(a))
		: [];
	if (majors.length === 0) throw new Error(`No Postgres server under ${root}. ${INSTALL_HINT}`);
	return requireFile(path.join(root, majors[0] ?? '', 'bin'), 'Postgres binaries');
}

async function checked(command: string, args: string[], what: string): Promise<string> {
	const result = await run(command, args, { timeoutMs: 120_000 });
	if (result.code !== 0)
		throw new Error(`${what} failed (code ${result.code}):\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

/**
 * A fresh cluster (initdb) in a temp folder, superuser `n8n` with trust auth on 127.0.0.1 only,
 * and an empty database `n8n`. Postgres refuses to run as root, so as root it runs as the
 * `postgres` user Debian's package creates. fsync is off: the data is thrown away at the end.
 */
export async function startPostgres(): Promise<PostgresServer> {
	const bin = postgresBinDir();
	const user = 'n8n';
	const database = 'n8n';
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'queue-postgres-'));
	const remove = removeAtExit(dir);
	const dataDir = path.join(dir, 'data');
	const asOwner: string[] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
	const launch = (binary: string, args: string[]): [string, string[]] => {
		const full = [...asOwner, path.join(bin, binary), ...args];
		return [full[0] ?? '', full.slice(1)];
	};
	try {
		if (asOwner.length > 0) await checked('chown', ['postgres:postgres', dir], 'chown');
		await checked(
			...launch('initdb', [
				'-D',
				dataDir,
				'-U',
				user,
				'--auth=trust',
				'--encoding=UTF8',
				'--locale=C',
			]),
			'initdb',
		);
	} catch (error) {
		remove();
		throw error;
	}

	const port = await freePort();
	const psqlArgs = ['-h', '127.0.0.1', '-p', String(port), '-U', user, '-v', 'ON_ERROR_STOP=1'];
	const [command, args] = launch('postgres', [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=100',
	]);
	const postgres = await startProcess(command, args, {
		name: 'postgres',
		cwd: dir,
		ready: async () =>
			(await run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)])).code === 0,
	}).catch((error: unknown) => {
		remove();
		throw error;
	});

	const query = async (sql: string, db = database): Promise<string> =>
		await checked(
			path.join(bin, 'psql'),
			[...psqlArgs, '-d', db, '-At', '-c', sql],
			`psql ${JSON.stringify(sql.slice(0, 80))}`,
		);
	await query(`CREATE DATABASE ${database}`, 'postgres');

	return {
		port,
		dir,
		user,
		database,
		process: postgres,
		query: async (sql) => await query(sql),
		dump: async () =>
			await checked(
				path.join(bin, 'pg_dump'),
				['-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database],
				'pg_dump',
			),
		stop: async () => {
			// SIGINT is Postgres's "fast" shutdown: roll back, disconnect, exit.
			await postgres.stop('SIGINT', 10_000);
			remove();
		},
	};
}
