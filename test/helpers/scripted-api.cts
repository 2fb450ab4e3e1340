/**
 * The one small API on 127.0.0.1 whose answers a test writes, for the replies the sandbox does not
 * give: a 3xx, a list without pagination, an error without the usual words, a reply that never
 * comes, a server with a self-signed certificate. It records every request it gets.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import type { CrmCredentials } from './harness.cjs';

/** The key of the credential startApi gives; only a scripted API accepts it. */
export const SCRIPTED_KEY = ['test', 'key', '0123456789'].join('-');

export type Answer = (
	request: IncomingMessage,
	url: URL,
	response: ServerResponse,
) => void | Promise<void>;

export interface ScriptedApi {
	server: Server;
	/** The Base URL: http://127.0.0.1:port, or https:// with `tls`. */
	url: string;
	port: number;
	/** A credential for this API, with SCRIPTED_KEY. */
	credentials: CrmCredentials;
	/** The URL of every request, in the order they came. */
	urls: URL[];
	/** Every request as "METHOD /path?query key=<x-api-key header>", and "connection" per socket. */
	seen: string[];
	/** Ends every connection, answered or not, and stops listening. */
	close(): Promise<void>;
}

export interface ApiOptions {
	/** Serve HTTPS with this key and certificate (see selfSignedCertificate). */
	tls?: { key: Buffer; cert: Buffer };
}

export async function startApi(
	answer: Answer = (_request, _url, response) => json(response, 200, {}),
	options: ApiOptions = {},
): Promise<ScriptedApi> {
	const urls: URL[] = [];
	const seen: string[] = [];
	const handle = (request: IncomingMessage, response: ServerResponse) => {
		const url = new URL(request.url ?? '/', 'http://127.0.0.1');
		urls.push(url);
		seen.push(`${request.method} ${request.url} key=${String(request.headers['x-api-key'])}`);
		void answer(request, url, response);
	};
	const server: Server = options.tls
		? (createHttpsServer(options.tls, handle) as unknown as Server)
		: createServer(handle);
	server.on('connection', () => seen.push('connection'));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
	return {
		server,
		url,
		port,
		urls,
		seen,
		credentials: { baseUrl: url, apiKey: SCRIPTED_KEY, organizationId: 'org_1' },
		close: async () => await stop(server),
	};
}

/** Runs `use` against an API started for it, and closes that API however `use` ends. */
export async function withApi<T>(
	answer: Answer | undefined,
	use: (api: ScriptedApi) => Promise<T>,
	options: ApiOptions = {},
): Promise<T> {
	const api = await startApi(answer, options);
	try {
		return await use(api);
	} finally {
		await api.close();
	}
}

/** The path of every request, in the order they came. */
export const pathsOf = (api: ScriptedApi): string[] => api.urls.map((url) => url.pathname);

/** Answers with `body` as JSON. */
export function json(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { 'content-type': 'application/json' });
	response.end(JSON.stringify(body));
}

/**
 * An Answer that gives every request the same reply: JSON unless a `type` is given; `type` given
 * as undefined sends no content-type.
 */
export function always(
	status: number,
	body: string,
	...typeAndHeaders: [type?: string | undefined, headers?: Record<string, string>]
): Answer {
	// A default parameter would turn an explicit undefined into JSON as well.
	const [type, headers = {}] = typeAndHeaders.length === 0 ? ['application/json'] : typeAndHeaders;
	return (_request, _url, response) => {
		response.writeHead(status, {
			...(type === undefined ? {} : { 'content-type': type }),
			...headers,
		});
		response.end(body);
	};
}

/** An Answer that reads the request and never replies. */
export const never: Answer = () => {};

/** The request's body, read to its end. */
async function bodyOf(request: IncomingMessage): Promise<string> {
	let text = '';
	for await (const chunk of request) text += String(chunk);
	return text;
}

async function stop(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
}

/** A key and a certificate for 127.0.0.1 made by the machine's openssl, valid for one day. */
export function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
	const folder = mkdtempSync(join(tmpdir(), 'crm-tls-'));
	try {
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'ec',
				'-pkeyopt',
				'ec_paramgen_curve:prime256v1',
				'-nodes',
				'-keyout',
				join(folder, 'key.pem'),
				'-out',
				join(folder, 'cert.pem'),
				'-days',
				'1',
				'-subj',
				'/CN=127.0.0.1',
				'-addext',
				'subjectAltName=IP:127.0.0.1',
			],
			{ stdio: 'ignore' },
		);
		return {
			key: readFileSync(join(folder, 'key.pem')),
			cert: readFileSync(join(folder, 'cert.pem')),
		};
	} finally {
		rmSync(folder, { recursive: true });
	}
}

/** What the API answers a Create with. */
export interface CreateReply {
	status: number;
	headers?: Record<string, string>;
	body?: string;
}

export interface CreateApi extends ScriptedApi {
	/** The body of every Create received, parsed. */
	posts: unknown[];
}

/**
 * An API that answers every Create with what `reply` gives and every list read with the
 * customers `listed` gives (none by default).
 */
export async function startCreateApi(
	reply: () => CreateReply,
	listed: () => IDataObject[] = () => [],
): Promise<CreateApi> {
	const posts: unknown[] = [];
	const api = await startApi(async (request, _url, response) => {
		const text = await bodyOf(request);
		if (request.method === 'POST') {
			posts.push(JSON.parse(text));
			const { status, headers = {}, body } = reply();
			response.writeHead(status, headers);
			response.end(body);
			return;
		}
		const customers = listed();
		json(response, 200, {
			content: { customers },
			pagination: { total: customers.length, limit: 100, offset: 0, hasMore: false },
		});
	});
	return { ...api, posts };
}
