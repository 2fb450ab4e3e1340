/**
 * Scripted model server: a stand-in for the OpenAI API on 127.0.0.1, for tests of the AI Agent
 * with the Business CRM node as its tools. Node standard library only.
 *
 * It speaks only what n8n 2.8.4's OpenAI Chat Model node sends during an execution with
 * "Use Responses API" off: `POST <base>/chat/completions` with a JSON body {model, messages,
 * tools, stream: false, ...}, answered with one JSON chat completion (no streaming: the AI Agent
 * streams only when the execution itself streams, e.g. from a Chat Trigger, never under
 * `n8n execute`). Anything else gets 404, or 400 for a streaming request, so a test sees at once
 * what the node asked that this server does not know. (`GET <base>/models` is asked only by the
 * editor's model list; this server does not answer it.)
 *
 * Each test gives a script: one step per request, in order. A step is a function of the request
 * (its messages: system, user, the assistant's earlier tool calls and the `tool` results) that
 * returns either tool calls to make or the final text answer. A request past the end of the
 * script gets 400 (and `unscripted` counts it), so a model that is asked once too often fails
 * the execution visibly instead of looping; so does a step that throws (`failures` keeps its
 * words). 400, not 500: the OpenAI client sends a request that got a 5xx again. Every request is recorded (method, path, headers,
 * raw body, parsed body), so a test can assert on what the model was told (the tools and their
 * schemas, the tool results) and on what it never was (the CRM's API key).
 *
 * Usage: `const model = await startModelServer(); model.script([step1, step2]);` then point the
 * OpenAI credential's Base URL at `model.url` (which ends in /v1, as OpenAI's does).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of a chat completion request, as the OpenAI API defines it. */
export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
	content: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
	[key: string]: unknown;
}

/** A tool as the request offers it to the model. */
export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model?: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

export interface RecordedRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	/** The body as it arrived, to search for text that must never reach the model. */
	raw: string;
	/** The parsed body, when it was JSON. */
	body?: ChatRequest;
}

/** What a step answers: tool calls (name and arguments) or the final text. */
export type StepAnswer =
	| { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
	| { text: string };

export type Step = (request: ChatRequest) => StepAnswer;

export interface ModelServer {
	/** The Base URL to give the OpenAI credential, e.g. http://127.0.0.1:PORT/v1. */
	url: string;
	/** Every request received, in order. */
	requests: RecordedRequest[];
	/** Requests that came after the script ended. */
	unscripted: number;
	/** The steps that threw (a step's own check failed), with their words. */
	failures: string[];
	/** Replaces the script and clears the record. */
	script(steps: Step[]): void;
	close(): Promise<void>;
}

/** The text of a message, whether the client sent a string or content parts. */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content))
		return message.content.map((part) => part.text ?? '').join('');
	return '';
}

/** The `tool` messages of a request: what each tool call gave back, in order. */
export function toolResults(request: ChatRequest): Array<{ callId: string; text: string }> {
	return request.messages
		.filter((message) => message.role === 'tool')
		.map((message) => ({ callId: String(message.tool_call_id), text: messageText(message) }));
}

/** The last tool result of a request, parsed as JSON when it is JSON. */
export function lastToolResult(request: ChatRequest): unknown {
	const last = toolResults(request).at(-1);
	if (last === undefined) throw new Error('the request carries no tool result');
	try {
		return JSON.parse(last.text);
	} catch {
		return last.text;
	}
}

function send(res: ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		'content-type': 'application/json',
		'content-length': Buffer.byteLength(text),
	});
	res.end(text);
}

function completion(request: ChatRequest, answer: StepAnswer, n: number): unknown {
	const message =
		'text' in answer
			? { role: 'assistant', content: answer.text }
			: {
					role: 'assistant',
					content: null,
					tool_calls: answer.toolCalls.map((call, index) => ({
						id: `call_${n}_${index}`,
						type: 'function',
						function: { name: call.name, arguments: JSON.stringify(call.arguments) },
					})),
				};
	return {
		id: `chatcmpl-${n}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model: request.model ?? 'scripted',
		choices: [
			{
				index: 0,
				message,
				finish_reason: 'text' in answer ? 'stop' : 'tool_calls',
			},
		],
		usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
	};
}

export async function startModelServer(): Promise<ModelServer> {
	let steps: Step[] = [];
	let next = 0;
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			const path = (req.url ?? '').split('?')[0];
			const entry: RecordedRequest = { method: req.method ?? '', path, headers: req.headers, raw };
			model.requests.push(entry);
			if (req.method !== 'POST' || path !== '/v1/chat/completions') {
				send(res, 404, { error: { message: `The scripted model knows no ${req.method} ${path}` } });
				return;
			}
			try {
				entry.body = JSON.parse(raw) as ChatRequest;
			} catch {
				send(res, 400, { error: { message: 'The body is not JSON' } });
				return;
			}
			if (entry.body.stream === true) {
				send(res, 400, { error: { message: 'The scripted model does not stream' } });
				return;
			}
			const step = steps[next];
			// 400, not 5xx: the OpenAI client would send a 5xx request again.
			if (step === undefined) {
				model.unscripted++;
				send(res, 400, { error: { message: `The script has no step ${next + 1}` } });
				return;
			}
			next++;
			try {
				send(res, 200, completion(entry.body, step(entry.body), next));
			} catch (error) {
				// A step's own check failed: the execution fails with the step's words.
				model.failures.push(`step ${next}: ${String(error)}`);
				send(res, 400, { error: { message: `Script step ${next}: ${String(error)}` } });
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const model: ModelServer = {
		url: `http://127.0.0.1:${port}/v1`,
		requests: [],
		unscripted: 0,
		failures: [],
		script(script: Step[]) {
			steps = script;
			next = 0;
			model.requests = [];
			model.unscripted = 0;
			model.failures = [];
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
	return model;
}
