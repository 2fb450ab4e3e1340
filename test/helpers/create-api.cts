import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject } from 'n8n-workflow';

/** What the API answers a Create with. */
export interface CreateReply {
	status: number;
	headers?: Record<string, string>;
	body?: string;
}

export interface CreateApi {
	url: string;
	/** The body of every Create received, parsed. */
	posts: unknown[];
	close(): Promise<void>;
}

/**
 * An API on 127.0.0.1 that answers every Create with what `reply` gives and every list read with
 * the customers `listed` gives (none by default): for replies the sandbox does not give.
 */
export async function startCreateApi(
	reply: () => CreateReply,
	listed: () => IDataObject[] = () => [],
): Promise<CreateApi> {
	const posts: unknown[] = [];
	const server = createServer((req, res) => {
		let text = '';
		req.on('data', (chunk: Buffer) => (text += chunk.toString()));
		req.on('end', () => {
			if (req.method === 'POST') {
				posts.push(JSON.parse(text));
				const { status, headers = {}, body } = reply();
				res.writeHead(status, headers);
				res.end(body);
				return;
			}
			const customers = listed();
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					content: { customers },
					pagination: { total: customers.length, limit: 100, offset: 0, hasMore: false },
				}),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		posts,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
