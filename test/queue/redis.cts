/**
 * The smallest Redis client the suite needs (RESP2 over a TCP socket to 127.0.0.1): enough to
 * ping a server and to read every key Bull and n8n keep in it, without an npm dependency.
 */
import * as net from 'node:net';

export type RespValue = string | number | null | RespValue[];

export class RespError extends Error {}

/** Parses one reply from `buffer` at `offset`; undefined when the reply is not complete yet. */
function parseReply(
	buffer: Buffer,
	offset: number,
): { value: RespValue | RespError; next: number } | undefined {
	const lineEnd = buffer.indexOf('\r\n', offset);
	if (lineEnd === -1) return undefined;
	const type = String.fromCharCode(buffer[offset] ?? 0);
	const line = buffer.toString('utf8', offset + 1, lineEnd);
	const afterLine = lineEnd + 2;
	switch (type) {
		case '+':
			return { value: line, next: afterLine };
		case '-':
			return { value: new RespError(line), next: afterLine };
		case ':':
			return { value: Number(line), next: afterLine };
		case '$': {
			const length = Number(line);
			if (length < 0) return { value: null, next: afterLine };
			if (buffer.length < afterLine + length + 2) return undefined;
			return {
				value: buffer.toString('utf8', afterLine, afterLine + length),
				next: afterLine + length + 2,
			};
		}
		case '*': {
			const count = Number(line);
			if (count < 0) return { value: null, next: afterLine };
			const items: RespValue[] = [];
			let next = afterLine;
			for (let i = 0; i < count; i++) {
				const item = parseReply(buffer, next);
				if (item === undefined) return undefined;
				// An error inside an array (EVAL can return one) is kept as its text.
				items.push(item.value instanceof RespError ? `ERR ${item.value.message}` : item.value);
				next = item.next;
			}
			return { value: items, next };
		}
		default:
			throw new Error(`unexpected RESP reply type ${JSON.stringify(type)}`);
	}
}

function encodeCommand(args: Array<string | number>): Buffer {
	const parts = args.map((arg) => Buffer.from(String(arg), 'utf8'));
	return Buffer.concat([
		Buffer.from(`*${parts.length}\r\n`),
		...parts.flatMap((part) => [Buffer.from(`$${part.length}\r\n`), part, Buffer.from('\r\n')]),
	]);
}

export class RedisClient {
	private buffer = Buffer.alloc(0);
	private readonly pending: Array<{
		resolve: (value: RespValue) => void;
		reject: (error: Error) => void;
	}> = [];

	private constructor(private readonly socket: net.Socket) {
		socket.on('data', (chunk: Buffer) => this.onData(chunk));
		const failAll = (error: Error) => {
			for (const waiter of this.pending.splice(0)) waiter.reject(error);
		};
		socket.on('error', failAll);
		socket.on('close', () => failAll(new Error('Redis connection closed')));
	}

	static async connect(port: number, host = '127.0.0.1'): Promise<RedisClient> {
		const socket = await new Promise<net.Socket>((resolve, reject) => {
			const connection = net.connect(port, host, () => resolve(connection));
			connection.once('error', reject);
		});
		return new RedisClient(socket);
	}

	private onData(chunk: Buffer): void {
		this.buffer = Buffer.concat([this.buffer, chunk]);
		for (;;) {
			const reply = parseReply(this.buffer, 0);
			if (reply === undefined) return;
			this.buffer = this.buffer.subarray(reply.next);
			const waiter = this.pending.shift();
			if (waiter === undefined) continue;
			if (reply.value instanceof RespError) waiter.reject(reply.value);
			else waiter.resolve(reply.value);
		}
	}

	async command(...args: Array<string | number>): Promise<RespValue> {
		return await new Promise((resolve, reject) => {
			this.pending.push({ resolve, reject });
			this.socket.write(encodeCommand(args));
		});
	}

	close(): void {
		this.socket.destroy();
	}
}

export interface RedisEntry {
	key: string;
	type: string;
	/** Every string the key holds: hash fields and values, list/set members, stream fields. */
	values: string[];
}

/** Reads every key and its content in one atomic call, whatever the key's type. */
const SNAPSHOT_SCRIPT = `
local out = {}
for _, key in ipairs(redis.call('KEYS', '*')) do
	local kind = redis.call('TYPE', key).ok
	local values = {}
	if kind == 'string' then values = { redis.call('GET', key) }
	elseif kind == 'hash' then values = redis.call('HGETALL', key)
	elseif kind == 'list' then values = redis.call('LRANGE', key, 0, -1)
	elseif kind == 'set' then values = redis.call('SMEMBERS', key)
	elseif kind == 'zset' then values = redis.call('ZRANGE', key, 0, -1)
	elseif kind == 'stream' then
		for _, entry in ipairs(redis.call('XRANGE', key, '-', '+')) do
			table.insert(values, entry[1])
			for _, field in ipairs(entry[2]) do table.insert(values, field) end
		end
	end
	table.insert(out, { key, kind, values })
end
return out
`;

export async function snapshot(client: RedisClient): Promise<RedisEntry[]> {
	const reply = (await client.command('EVAL', SNAPSHOT_SCRIPT, 0)) as Array<
		[string, string, RespValue[]]
	>;
	return reply.map(([key, type, values]) => ({
		key,
		type,
		values: values.map((value) => String(value)),
	}));
}
