import type { INode } from 'n8n-workflow';
import type { ErrorType } from './errorTypes';

/**
 * Whether the node runs as a tool (an AI Agent's or the MCP Server Trigger's): n8n gives the
 * tool variant of a node the node's type with "Tool" appended.
 */
export function runsAsTool(node: INode): boolean {
	return node.type.endsWith('Tool');
}

/** The tool a model takes business IDs from, as the editor names it and as the docs describe it. */
export const LIST_BUSINESSES =
	'Call the Business CRM tool that gets many businesses (Business › Get Many) and use the ID of one of the businesses it lists; never make an ID up';

/** What the error says about the call, for the advice. */
export interface AgentProblem {
	type: ErrorType;
	/** The tool argument ($fromAI key) of the parameter that was wrong, when one fills it. */
	argument?: string;
	/** From a 429: how long the API asked to wait. */
	retryAfterSeconds?: number;
}

/** The wait a model is told after a 429 that named none. */
export const DEFAULT_WAIT_SECONDS = 30;

/**
 * What a model should do next, as one sentence of instructions. n8n gives a model a tool's error
 * message alone (its description, where a person's advice is, is dropped), so in a tool the
 * message ends with this.
 */
export function nextStepForModel(problem: AgentProblem): string {
	const { argument } = problem;
	const asArgument = argument === undefined ? '' : ` as the argument ${argument}`;
	switch (problem.type) {
		case 'notFound':
			return `${LIST_BUSINESSES}, then call this tool again with it${asArgument}.`;
		case 'invalidInput':
			return argument === undefined
				? 'Correct what the message names and call this tool again; if you do not know a value it needs, ask the user for it. If the value is a setting of the tool rather than an argument, tell the user: calling again will not help.'
				: `Call this tool again with a correct value for the argument ${argument}; if you do not know it, ask the user for it.`;
		case 'rateLimited':
			return `Wait ${problem.retryAfterSeconds ?? DEFAULT_WAIT_SECONDS} s and call this tool again.`;
		case 'unknownOutcome':
			return 'Do not create this customer again yet: the customer may already have been created. Call the Business CRM tool that finds customers (Customer › Find) to check, and create the customer only if it finds no one.';
		case 'unavailable':
			return 'Wait a minute and call this tool again; if it fails again, tell the user that the Business CRM cannot be reached now.';
		case 'authentication':
			return 'Stop and tell the user that the Business CRM credential in n8n must be fixed (its API key or Organization ID); calling again will not help.';
		case 'configuration':
		case 'unexpectedReply':
			return 'Stop and tell the user what this message says: the Business CRM connection in n8n must be fixed, and calling again will not help.';
	}
}
