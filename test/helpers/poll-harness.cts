/**
 * Runs the Business CRM Trigger the way n8n runs a polling trigger, in-process: n8n-core's
 * PollContext (one per activation, reused by every poll, as n8n does) driven by n8n-core's
 * PollTriggerExecutor, which calls the node's poll() and emits what it returns. The workflow's
 * static data persists between polls as in n8n; restarted() hands it through JSON, as n8n's
 * database does. Fetch Test Event runs the workflow with n8n-core's WorkflowExecute in manual
 * mode. Requests go over real HTTP.
 */
import { createRequire } from 'node:module';
import { PollContext, PollTriggerExecutor, WorkflowExecute } from 'n8n-core';
// What n8n-core's node loader adds to every polling node (Poll Times); not re-exported.
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';
import {
	Workflow,
	type ExecutionError,
	type IDataObject,
	type INode,
	type INodeParameters,
	type INodeType,
	type IPollFunctions,
	type WorkflowActivateMode,
} from 'n8n-workflow';
import { BusinessCrmTrigger } from '../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node';
import {
	additionalDataFor,
	credentialOf,
	onlyType,
	savedNode,
	type CrmCredentials,
} from './harness.cjs';

export const TRIGGER_TYPE = 'n8n-nodes-business-crm.businessCrmTrigger';
export const TRIGGER_NAME = 'Business CRM Trigger';

/** Every 10 seconds; the cron itself never fires in these tests, each poll is called. */
const POLL_TIMES = { item: [{ mode: 'custom', cronExpression: '0,10,20,30,40,50 * * * * *' }] };

/** The trigger's node type as n8n's loader prepares it: Poll Times first. */
export function loadTriggerType(freshProcess = false): INodeType {
	let Trigger = BusinessCrmTrigger;
	// What the node keeps in its process (module state) starts empty, as after a restart of n8n.
	// Call it when a test file loads, not inside a test: Stryker counts modules loaded inside a
	// test as covered by that test alone, and then picks the wrong tests for their mutants.
	if (freshProcess) {
		jest.isolateModules(() => {
			/* eslint-disable @typescript-eslint/no-require-imports */
			Trigger = (
				require('../../nodes/BusinessCrmTrigger/BusinessCrmTrigger.node') as {
					BusinessCrmTrigger: typeof BusinessCrmTrigger;
				}
			).BusinessCrmTrigger;
			/* eslint-enable @typescript-eslint/no-require-imports */
		});
	}
	const nodeType = new Trigger();
	nodeType.description.properties.unshift(...commonPollingParameters);
	return nodeType;
}

/**
 * n8n-core takes PollTriggerExecutor from its dependency-injection container, and n8n-core
 * ships its own copy of @n8n/di: the container has to be that copy's.
 */
function pollTriggerExecutor(): PollTriggerExecutor {
	const di = createRequire(require.resolve('n8n-core'))('@n8n/di') as {
		Container: { get<T>(type: abstract new (...args: never[]) => T): T };
	};
	return di.Container.get(PollTriggerExecutor);
}

/** What one poll did. */
export interface PollOutcome {
	/** The json of the emitted items; empty when the poll emitted nothing. */
	items: IDataObject[];
	/** How often the poll emitted (n8n starts one execution per emit). */
	emits: number;
	/** The error the poll failed with: thrown at activation, passed to __emitError later. */
	error?: Error;
}

/** Each harness is a workflow of its own, as each activated trigger is in n8n. */
let harnesses = 0;

export class TriggerHarness {
	readonly workflow: Workflow;
	private readonly node: INode;
	private context?: PollContext;
	private outcome: PollOutcome = { items: [], emits: 0 };
	/**
	 * What getPollBudgetMs gives the poll, as n8n's durable scheduler does on its ticks (36 s by
	 * default); undefined for n8n-core's own default (5 minutes); null for an n8n before 2.38,
	 * whose poll context has no getPollBudgetMs. Read at every poll.
	 */
	pollBudgetMs?: number | null;
	/**
	 * n8n's durable scheduler with N8N_POLLER_DURABLE_CURSORS_ENABLED (n8n 2.41, read in its
	 * poll-trigger-executor and poll-trigger-task-handler): each poll gets a fresh PollContext and
	 * a copy of the committed static data, which is committed when the poll emits, and when it
	 * emits nothing except at activation; nothing when it fails or is abandoned.
	 */
	durableCursors = false;
	/** Under durableCursors: n8n stops waiting for the next poll (its timeout), which runs on. */
	abandonNext = false;
	/** What abandoned polls emitted, which n8n dropped. */
	readonly dropped: IDataObject[] = [];
	private committed: IDataObject;
	/** How the workflow was activated; each poll's context says the same, as in n8n. */
	private activation: WorkflowActivateMode = 'activate';

	constructor(
		readonly credentials: CrmCredentials,
		readonly parameters: INodeParameters = {},
		staticData: IDataObject = {},
		readonly workflowId = `trigger-workflow-${++harnesses}`,
		nodeType: INodeType = loadTriggerType(),
	) {
		const saved = { pollTimes: POLL_TIMES, event: 'newCustomer', ...parameters };
		this.node = {
			...savedNode(TRIGGER_NAME, TRIGGER_TYPE, saved, 'trigger-node'),
			credentials: credentialOf(),
		};
		this.committed = JSON.parse(JSON.stringify(staticData)) as IDataObject;
		this.workflow = new Workflow({
			id: workflowId,
			name: 'Business CRM Trigger test',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: onlyType(nodeType),
			staticData,
			settings: { executionOrder: 'v1' },
		});
	}

	/** n8n activating the workflow ('init' after a restart): one poll at once; an error fails it. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<PollOutcome> {
		this.activation = activation;
		this.newContext();
		return await this.run(true);
	}

	private newContext(): void {
		this.context = new PollContext(
			this.workflow,
			this.node,
			additionalDataFor(this.credentials, this.workflow),
			'trigger',
			this.activation,
			(data) => {
				this.outcome.emits++;
				this.outcome.items.push(...data.flat().map((item) => item.json));
			},
			(error) => {
				this.outcome.error = error;
			},
			undefined,
			undefined,
			undefined,
			() => this.pollBudgetMs ?? 5 * 60_000,
		);
		if (this.pollBudgetMs === null) {
			Reflect.deleteProperty(this.context, 'getPollBudgetMs');
		}
	}

	/** A poll on schedule, after activation: an error goes to n8n's __emitError. */
	async poll(): Promise<PollOutcome> {
		return await this.run(false);
	}

	private async run(activating: boolean): Promise<PollOutcome> {
		if (!this.context) throw new Error('activate() first');
		this.outcome = { items: [], emits: 0 };
		if (this.durableCursors) {
			if (!activating) this.newContext();
			const data = this.workflow.staticData;
			for (const key of Object.keys(data)) Reflect.deleteProperty(data, key);
			Object.assign(data, JSON.parse(JSON.stringify(this.committed)));
		}
		const execute = pollTriggerExecutor().create(
			this.workflow,
			this.node,
			this.context as IPollFunctions,
			() => true,
		);
		try {
			await execute(activating);
		} catch (error) {
			this.outcome.error = error as Error;
		}
		if (this.durableCursors) {
			const abandoned = this.abandonNext;
			this.abandonNext = false;
			if (abandoned) {
				this.dropped.push(...this.outcome.items);
				this.outcome = { items: [], emits: 0 };
			} else if (this.outcome.error === undefined && (this.outcome.emits > 0 || !activating)) {
				this.committed = JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
			}
		}
		return this.outcome;
	}

	/** Under durableCursors: the node's static data n8n has committed. */
	committedStaticData(): IDataObject {
		const all = JSON.parse(JSON.stringify(this.committed)) as Record<string, IDataObject>;
		return all[`node:${TRIGGER_NAME}`] ?? {};
	}

	/** The node's static data, as n8n would save it. */
	nodeStaticData(): IDataObject {
		return JSON.parse(
			JSON.stringify(this.workflow.getStaticData('node', this.node)),
		) as IDataObject;
	}

	/**
	 * The same workflow after n8n stopped and started: static data through JSON, a new context;
	 * with other credentials or parameters when they were edited meanwhile. With `freshNode` (a
	 * loadTriggerType(true) made when the test file loaded), what the node kept in its process is
	 * gone too.
	 */
	restarted(
		credentials = this.credentials,
		parameters = this.parameters,
		{ freshNode }: { freshNode?: INodeType } = {},
	): TriggerHarness {
		const saved = JSON.parse(
			JSON.stringify(this.durableCursors ? this.committed : this.workflow.staticData),
		) as IDataObject;
		const next = new TriggerHarness(credentials, parameters, saved, this.workflowId, freshNode);
		next.durableCursors = this.durableCursors;
		next.pollBudgetMs = this.pollBudgetMs;
		return next;
	}

	/** The editor's Fetch Test Event: n8n-core's WorkflowExecute runs the trigger in manual mode. */
	async fetchTestEvent(): Promise<{ items: IDataObject[]; error?: ExecutionError }> {
		const execute = new WorkflowExecute(
			additionalDataFor(this.credentials, this.workflow),
			'manual',
		);
		const run = await execute.run({ workflow: this.workflow, startNode: this.node });
		const taskData = run.data.resultData.runData[TRIGGER_NAME]?.[0];
		return {
			items: (taskData?.data?.main?.[0] ?? []).map((item) => item.json),
			error: taskData?.error ?? run.data.resultData.error,
		};
	}
}

/** A trigger activated as n8n activates it, checked to have failed nothing and emitted nothing. */
export async function activatedTrigger(
	credentials: CrmCredentials,
	parameters: INodeParameters = {},
): Promise<TriggerHarness> {
	const trigger = new TriggerHarness(credentials, parameters);
	const outcome = await trigger.activate();
	expect(outcome.error).toBeUndefined();
	expect(outcome.emits).toBe(0);
	return trigger;
}
