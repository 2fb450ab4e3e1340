import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	IPollFunctions,
} from 'n8n-workflow';
import type { Context } from '../context';
import { inputError, SETUP } from '../errors/errors';

/** What every request of a context is sent with, whoever asks for it. */
export interface RequestSettings {
	/** The deadline of one request, first byte to last; also n8n's idle timeout. */
	timeoutMs: number;
	proxy?: IHttpRequestOptions['proxy'];
	skipSslCertificateValidation?: boolean;
}

/** n8n's own default for a request of a declarative node without Request Options › Timeout. */
export const DEFAULT_TIMEOUT_MS = 300_000;
/**
 * The longest timer Node.js sets (about 24.8 days): a longer one fires after 1 ms, so a huge
 * Timeout (typed to mean "no limit") would fail every request at once.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;
/** A list search has no Request Options: its list must not load forever. */
export const LIST_SEARCH_TIMEOUT_MS = 30_000;
/** A poll has no Request Options either: a request without a whole reply in this time fails it. */
export const POLL_REQUEST_TIMEOUT_MS = 60_000;

export const BAD_PROXY = 'The proxy is not valid';
export const PROXY_HELP =
	"Enter the proxy under Request Options › Proxy on the node's Settings tab as http://host:port (with user:password@ before the host if it needs them), or remove it.";

/** Request Options › Proxy as n8n's RoutingNode reads it: `http://user:password@host:port`. */
function proxyOf(ctx: IExecuteSingleFunctions, text: string, itemIndex?: number) {
	let url: URL | undefined;
	try {
		url = new URL(text);
	} catch {
		url = undefined;
	}
	const port = Number(url?.port);
	if (!url || url.hostname === '' || !Number.isInteger(port) || port <= 0) {
		throw inputError(ctx, BAD_PROXY, PROXY_HELP, itemIndex, SETUP);
	}
	return {
		host: url.hostname,
		port,
		protocol: url.protocol.replace(/:$/, ''),
		...(url.username
			? {
					auth: {
						username: decodeURIComponent(url.username),
						password: decodeURIComponent(url.password),
					},
				}
			: {}),
	};
}

/**
 * The item's Request Options (Timeout, Proxy, Ignore SSL Issues), as n8n's RoutingNode applies
 * them to the requests it builds, for every request of the item, the list reads and the business
 * check included. A poll or a list search has none: a fixed deadline.
 */
export function requestSettings(ctx: Context, itemIndex?: number): RequestSettings {
	if (!('getExecuteData' in ctx)) {
		return {
			timeoutMs: 'getActivationMode' in ctx ? POLL_REQUEST_TIMEOUT_MS : LIST_SEARCH_TIMEOUT_MS,
		};
	}
	const options = ctx.getNodeParameter('requestOptions', {}) as IDataObject;
	const timeout = Number(options.timeout);
	const settings: RequestSettings = {
		timeoutMs:
			Number.isFinite(timeout) && timeout > 0
				? Math.min(timeout, MAX_TIMEOUT_MS)
				: DEFAULT_TIMEOUT_MS,
	};
	if (typeof options.proxy === 'string' && options.proxy.trim() !== '') {
		settings.proxy = proxyOf(ctx, options.proxy.trim(), itemIndex);
	}
	if (options.allowUnauthorizedCerts === true) settings.skipSslCertificateValidation = true;
	return settings;
}

/** The signals that end a poll early, by poll context (set by the trigger for each poll). */
const pollSignals = new WeakMap<object, AbortSignal>();

/** Makes `signal` end every request and wait of this poll context until `forget` is called. */
export function endPollWith(ctx: IPollFunctions, signal: AbortSignal): { forget(): void } {
	pollSignals.set(ctx, signal);
	return { forget: () => pollSignals.delete(ctx) };
}

/**
 * What cancels the requests and waits of this context: the poll's end, or the execution's cancel
 * where n8n gives one (n8n 1.122 to 2.41 give a declarative node none: Stop leaves its request
 * to end at its Timeout).
 */
export function runSignal(ctx: Context): AbortSignal | undefined {
	if ('getExecutionCancelSignal' in ctx) return ctx.getExecutionCancelSignal();
	return pollSignals.get(ctx);
}
