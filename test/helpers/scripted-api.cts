/**
 * A small API on 127.0.0.1 whose answers a test writes, for the replies the sandbox does not give
 * (a 3xx, a list without pagination, an error without the usual words). It records the URL of
 * every request it gets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CrmCredentials } from './harness.cjs';

/** The key of the credential startApi gives; only a scripted API accepts it. */
export const SCRIPTED_KEY = ['test', 'key', '0123456789'].join('-');

export async function startApi(
	answer: (request: IncomingMessage, url: URL, response: ServerResponse) => void | Promise<void>,
): Promise<{ server: Server; credentials: CrmCredentials; urls: URL[] }> {
	const urls: URL[] = [];
	const server = createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		urls.push(url);
		void answer(request, url, response);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		server,
		urls,
		credentials: {
			baseUrl: `http://127.0.0.1:${port}`,
			apiKey: SCRIPTED_KEY,
			organizationId: 'org_1',
		},
	};
}

/** Answers with `body` as JSON. */
export function json(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

export async function stop(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
}
