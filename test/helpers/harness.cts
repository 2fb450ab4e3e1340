/**
 * Runs the Business CRM node the way n8n runs it, in-process: a two-node workflow (an input node
 * feeding the CRM node) executed by n8n-core's WorkflowExecute, which hands the declarative node
 * to RoutingNode. The credential's generic authentication is applied as n8n's CredentialsHelper
 * applies it (its expressions resolved by the workflow's expression engine), and requests go over
 * real HTTP. n8n's own NodeTestHarness is not published on npm, hence this file.
 */
import { createNodeAsTool } from 'n8n-core/dist/execution-engine/node-execution-context/utils/create-node-as-tool';
import {
	DirectoryLoader,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	RoutingNode,
	ExecuteContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	ICredentialsHelper,
	NodeConnectionTypes,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type ICredentialTestRequest,
	type IDataObject,
	type IExecuteData,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowExecuteAdditionalData,
	type ExecutionError,
	type NodeExecutionHint,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { BusinessCrmApi } from '../../credentials/BusinessCrmApi.credentials';
import { BusinessCrm } from '../../nodes/BusinessCrm/BusinessCrm.node';

export const NODE_TYPE = 'n8n-nodes-business-crm.businessCrm';
/** The type n8n gives the node's tool variant (usableAsTool). */
export const TOOL_TYPE = `${NODE_TYPE}Tool`;
export const NODE_NAME = 'Business CRM';
const INPUT_NODE = 'Input';
const INPUT_TYPE = 'test.input';

export interface CrmCredentials {
	baseUrl: string;
	apiKey: string;
	organizationId: string;
	/** n8n 2.4x adds these two fields to credentials with generic authentication. */
	allowedHttpRequestDomains?: 'all' | 'domains' | 'none';
	allowedDomains?: string;
}

export interface RunOptions {
	parameters: INodeParameters;
	credentials: CrmCredentials;
	/** The json of the items fed into the node; one empty item by default. */
	items?: IDataObject[];
	/** n8n's node setting "On Error": continueRegularOutput is "Continue On Fail". */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	/** n8n's node settings Retry On Fail, Max Tries and Wait Between Tries (ms). */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	/**
	 * Run the node's tool variant, as an AI Agent or the MCP Server Trigger does. $fromAI reads
	 * its arguments from the input item here, as n8n's data proxy does before the node has run.
	 */
	asTool?: boolean;
	/** Another node type in the Business CRM node's place (the benchmark's plain declarative node). */
	nodeType?: INodeType;
	/** How n8n started the execution: `manual` (the editor's Execute, the default) or a production mode. */
	mode?: WorkflowExecuteMode;
}

export interface RunResult {
	/** The node's main output (its first output; with continueErrorOutput, the success branch). */
	items: INodeExecutionData[];
	/** With continueErrorOutput, the items of the error branch. */
	errorItems: INodeExecutionData[];
	/** The error that stopped the node, if any. */
	error?: ExecutionError;
	run: IRun;
	/** How long the node ran, as n8n timed it (its task data's executionTime). */
	nodeMs?: number;
	/** The execution hints the node added (shown in the editor's output pane). */
	hints: NodeExecutionHint[];
}

/** The node type as n8n loads it: the loader adds the declarative "Request Options" collection. */
export function loadNodeType(): INodeType {
	const nodeType = new BusinessCrm();
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
	return nodeType;
}

const credentialType: ICredentialType = new BusinessCrmApi();

/** A node as a workflow saves it: version 1, at the canvas origin. */
export function savedNode(
	name: string,
	type: string,
	parameters: INodeParameters = {},
	id = name,
): INode {
	return { id, name, type, typeVersion: 1, position: [0, 0], parameters };
}

/** A node's reference to its Business CRM credential, as a workflow saves it. */
export function credentialOf(id = 'cred-1'): INode['credentials'] {
	return { businessCrmApi: { id, name: 'Business CRM account' } };
}

/** n8n's registry of node types, for a workflow whose nodes are all of one type. */
export function onlyType(nodeType: INodeType): INodeTypes {
	return {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
}

/** The node that feeds the test items into the CRM node. */
function inputNodeType(items: IDataObject[]): INodeType {
	return {
		description: {
			displayName: 'Input',
			name: INPUT_TYPE,
			group: ['input'],
			version: 1,
			description: 'Emits the test items',
			defaults: { name: INPUT_NODE },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute() {
			return [items.map((json) => ({ json }))];
		},
	};
}

function nodeTypesFor(crm: INodeType, input: INodeType): INodeTypes {
	const types: Record<string, INodeType> = {
		[NODE_TYPE]: crm,
		[TOOL_TYPE]: crm,
		[INPUT_TYPE]: input,
	};
	return {
		getByName: (name: string) => types[name] as INodeType | IVersionedNodeType,
		getByNameAndVersion: (name: string) => types[name],
		getKnownTypes: () => ({}),
	};
}

/** n8n's CredentialsHelper, reduced to what a run of this node needs. */
class TestCredentialsHelper extends ICredentialsHelper {
	/** `byId`: the credentials of nodes that have their own, by credential id. */
	constructor(
		private readonly data: CrmCredentials,
		private readonly byId: Record<string, CrmCredentials> = {},
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		if (typeName !== credentialType.name) throw new Error(`Unknown credential type ${typeName}`);
		const authenticate = credentialType.authenticate;
		if (!authenticate || typeof authenticate === 'function' || authenticate.type !== 'generic') {
			throw new Error('The credential must use generic authentication');
		}
		const resolve = (value: string) => {
			const resolved = workflow.expression.getSimpleParameterValue(
				node,
				value,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			);
			return resolved ? String(resolved) : '';
		};
		for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
			const target = ((requestOptions as unknown as Record<string, IDataObject>)[outerKey] ??= {});
			for (const [key, value] of Object.entries(outerValue as IDataObject)) {
				target[resolve(key)] = resolve(value as string);
			}
		}
		return requestOptions;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('not used');
	}

	async getDecrypted(
		_additionalData: unknown,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		return { ...(this.byId[nodeCredentials.id ?? ''] ?? this.data) };
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

export function additionalDataFor(
	credentials: CrmCredentials,
	workflow: Workflow,
	credentialsById: Record<string, CrmCredentials> = {},
) {
	const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', {
		id: workflow.id,
		name: workflow.name,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	return {
		credentialsHelper: new TestCredentialsHelper(credentials, credentialsById),
		hooks,
		executionId: 'test-execution',
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
		userId: 'test-user',
		setExecutionStatus: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

function crmNode(
	parameters: INodeParameters,
	onError?: RunOptions['onError'],
	name = NODE_NAME,
	credentialId = 'cred-1',
	retryOnFail?: RunOptions['retryOnFail'],
	type = NODE_TYPE,
): INode {
	return {
		...savedNode(name, type, parameters, name === NODE_NAME ? 'crm-node' : `node-${name}`),
		position: [200, 0],
		credentials: credentialOf(credentialId),
		...(onError ? { onError } : {}),
		...(retryOnFail ? { retryOnFail: true, ...retryOnFail } : {}),
	};
}

/** The node that hands the test's input items to the first Business CRM node. */
function inputNode(): INode {
	return savedNode(INPUT_NODE, INPUT_TYPE, {}, 'input-node');
}

function workflowFor(options: RunOptions, nodeType = loadNodeType()): Workflow {
	const nodes: INode[] = [
		inputNode(),
		crmNode(
			options.parameters,
			options.onError,
			NODE_NAME,
			'cred-1',
			options.retryOnFail,
			options.asTool ? TOOL_TYPE : NODE_TYPE,
		),
	];
	return new Workflow({
		id: 'test-workflow',
		name: 'Business CRM test',
		nodes,
		connections: {
			[INPUT_NODE]: { main: [[{ node: NODE_NAME, type: NodeConnectionTypes.Main, index: 0 }]] },
		},
		active: false,
		nodeTypes: nodeTypesFor(nodeType, inputNodeType(options.items ?? [{}])),
		settings: { executionOrder: 'v1' },
	});
}

/** Runs the node on the given items and returns its output as n8n records it. */
export async function runNode(options: RunOptions): Promise<RunResult> {
	const workflow = workflowFor(options, options.nodeType);
	const additionalData = additionalDataFor(options.credentials, workflow);
	const execute = new WorkflowExecute(additionalData, options.mode ?? 'manual');
	const run = await execute.run({ workflow, startNode: workflow.getNode(INPUT_NODE)! });
	const taskData = run.data.resultData.runData[NODE_NAME]?.[0];
	const outputs = taskData?.data?.main ?? [];
	return {
		items: outputs[0] ?? [],
		errorItems: outputs[1] ?? [],
		error: taskData?.error ?? run.data.resultData.error,
		run,
		nodeMs: taskData?.executionTime,
		hints: taskData?.hints ?? [],
	};
}

/** The two ways a failed item can end: the node stops, or n8n's Continue On Fail goes on. */
export const BOTH_WAYS = [undefined, 'continueRegularOutput'] as const;

export interface ShownRun {
	onError: (typeof BOTH_WAYS)[number];
	result: RunResult;
	/** The error as the user sees it: the node's error, or with Continue On Fail the item's. */
	shown: string;
}

/** Runs the node once each of BOTH_WAYS. */
export async function runEachWay(options: Omit<RunOptions, 'onError'>): Promise<ShownRun[]> {
	const runs: ShownRun[] = [];
	for (const onError of BOTH_WAYS) {
		const result = await runNode({ ...options, onError });
		const error = onError ? result.items[0]?.json.error : result.error?.message;
		runs.push({ onError, result, shown: String(error) });
	}
	return runs;
}

/** Everything a run produced, as text, by where it came from; `logs`, what it wrote meanwhile. */
export function producedBy(result: RunResult, logs: string[] = []): Record<string, string> {
	const error = result.error as (RunResult['error'] & { description?: string | null }) | undefined;
	return {
		'error.message': error?.message ?? '',
		'error.description': error?.description ?? '',
		'JSON of the error': JSON.stringify(error ?? null),
		'error.stack': error?.stack ?? '',
		'run data': JSON.stringify(result.run),
		'output items': JSON.stringify(result.items),
		'error output items': JSON.stringify(result.errorItems),
		logs: logs.join('\n'),
	};
}

export interface ChainedNode {
	name: string;
	parameters: INodeParameters;
	onError?: RunOptions['onError'];
	/** A credential of its own (another CRM); the chain's credentials otherwise. */
	credentials?: CrmCredentials;
}

/** The credential id of a chained node that has a credential of its own. */
function ownCredentialId(node: ChainedNode): string | undefined {
	return node.credentials ? `cred-${node.name}` : undefined;
}

export interface ChainResult {
	/** Each node's main output in its first run, by node name (empty when it did not run). */
	items: Record<string, INodeExecutionData[]>;
	/** Each node's error in its first run, by node name. */
	errors: Record<string, ExecutionError | undefined>;
	run: IRun;
}

/**
 * Runs one execution of a chain of Business CRM nodes (Input → first → second → ...), each fed
 * the output of the one before it: what two nodes of one workflow share.
 */
export async function runChain(options: {
	credentials: CrmCredentials;
	nodes: ChainedNode[];
	items?: IDataObject[];
}): Promise<ChainResult> {
	const names = [INPUT_NODE, ...options.nodes.map((node) => node.name)];
	const connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: 'main'; index: number }>> }
	> = {};
	for (let i = 0; i + 1 < names.length; i++) {
		connections[names[i]] = {
			main: [[{ node: names[i + 1], type: NodeConnectionTypes.Main, index: 0 }]],
		};
	}
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Business CRM chain test',
		nodes: [
			inputNode(),
			...options.nodes.map((node) =>
				crmNode(node.parameters, node.onError, node.name, ownCredentialId(node)),
			),
		],
		connections,
		active: false,
		nodeTypes: nodeTypesFor(loadNodeType(), inputNodeType(options.items ?? [{}])),
		settings: { executionOrder: 'v1' },
	});
	const own: Record<string, CrmCredentials> = {};
	for (const node of options.nodes) {
		const id = ownCredentialId(node);
		if (id && node.credentials) own[id] = node.credentials;
	}
	const execute = new WorkflowExecute(
		additionalDataFor(options.credentials, workflow, own),
		'manual',
	);
	const run = await execute.run({ workflow, startNode: workflow.getNode(INPUT_NODE)! });
	const items: ChainResult['items'] = {};
	const errors: ChainResult['errors'] = {};
	for (const node of options.nodes) {
		const taskData = run.data.resultData.runData[node.name]?.[0];
		items[node.name] = taskData?.data?.main?.[0] ?? [];
		errors[node.name] = taskData?.error;
	}
	return { items, errors, run };
}

/**
 * Runs the node once, as n8n runs one tool call: RoutingNode on a context of its own (its own
 * execute data, as each node run gets) within `runData`, the run data of the execution the call
 * belongs to. Without execution data in it (the default), the call is outside any workflow
 * execution, as the MCP Server Trigger's tool calls are in n8n 2.8.4. Returns the output items.
 */
export async function runToolCall(
	options: RunOptions,
	runData: object = { resultData: { runData: {} } },
): Promise<INodeExecutionData[]> {
	const nodeType = loadNodeType();
	const workflow = workflowFor(options, nodeType);
	const node = workflow.getNode(NODE_NAME)!;
	const items = (options.items ?? [{}]).map((json) => ({ json }));
	const executeData: IExecuteData = { node, data: { main: [items] }, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(options.credentials, workflow),
		'internal',
		runData as never,
		0,
		items,
		{ main: [items] },
		executeData,
		[],
	);
	const decrypted = {
		id: 'cred-1',
		name: 'Business CRM account',
		type: credentialType.name,
		data: { ...options.credentials },
	};
	const [output] = (await new RoutingNode(context, nodeType, decrypted).runNode()) ?? [[]];
	return output;
}

/** Calls the Business locator's list search as the editor does when the list opens or filters. */
export async function listBusinesses(
	credentials: CrmCredentials,
	filter?: string,
): Promise<INodeListSearchResult> {
	const nodeType = loadNodeType();
	const workflow = workflowFor(
		{ parameters: { resource: 'business', operation: 'get' }, credentials },
		nodeType,
	);
	const context = new LoadOptionsContext(
		workflow,
		workflow.getNode(NODE_NAME)!,
		additionalDataFor(credentials, workflow),
		'parameters.businessId',
	);
	return await nodeType.methods!.listSearch!.searchBusinesses.call(context, filter);
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
	/** The body of the API's error reply, when there was one. */
	apiBody?: unknown;
}

/**
 * Tests the credential as n8n's CredentialsTester does for a request-based test: a temporary node
 * whose only parameter routes the credential's test request, run by RoutingNode, with the
 * credential's response-code rules turning a failed reply into the message the user sees.
 */
export async function testCredential(credentials: CrmCredentials): Promise<CredentialTestResult> {
	const test = credentialType.test as ICredentialTestRequest;
	const node: INode = {
		...savedNode('Temp-Node', 'n8n-nodes-base.noOp', {}, 'temp'),
		credentials: credentialOf(),
	};
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'n8n-nodes-base.noOp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: onlyType(nodeType),
	});
	const additionalData = additionalDataFor(credentials, workflow);
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		{ resultData: { runData: {} } } as never,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const decrypted = {
		id: 'cred-1',
		name: 'Business CRM account',
		type: credentialType.name,
		data: { ...credentials },
	};
	try {
		await new RoutingNode(context, nodeType, decrypted).runNode();
	} catch (caught) {
		const error = caught as {
			cause?: { response?: { status: number; statusText?: string; data?: unknown }; code?: string };
			message: string;
		};
		const response = error.cause?.response;
		if (response) {
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === response.status) {
					return { status: 'Error', message: rule.properties.message, apiBody: response.data };
				}
			}
			return {
				status: 'Error',
				message: response.statusText || `Received HTTP status code: ${response.status}`,
				apiBody: response.data,
			};
		}
		if (error.cause?.code) return { status: 'Error', message: error.cause.code };
		return { status: 'Error', message: error.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/**
 * The node as n8n hands it to an AI Agent (createNodeAsTool): when the model calls the tool, its
 * arguments become the node's one input item and the node runs (makeHandleToolInvocation), so
 * its $fromAI expressions are resolved from that item, as in a real agent run.
 */
export function toolOf(node: INode, nodeType: INodeType, credentials: CrmCredentials) {
	return createNodeAsTool({
		node,
		nodeType,
		handleToolInvocation: async (args: unknown) => {
			const { items, error } = await runNode({
				credentials,
				parameters: node.parameters,
				items: [args as IDataObject],
			});
			if (error) throw error;
			return JSON.stringify(items.map((item) => item.json));
		},
	}).response;
}
