import type { NodeHint } from 'n8n-workflow';

/**
 * Shown in the output pane after a Find with Output Nothing: n8n's own advice there, Settings ›
 * Always Output Data, adds one empty item only when no item found anyone, not find-else-create;
 * so the hint names it as the thing not to do, and the two read as one instruction.
 * Worded to hold whether or not this run found anyone: a hint's displayCondition sees the
 * parameters, the input and other nodes' output by name, not this node's own output (n8n-workflow's
 * getNodeHints and WorkflowDataProxy, 1.123.81 to 2.41.1), and a declarative node cannot add
 * execution hints.
 */
export const FIND_HINT =
	'An input item that finds no one gives no item here. To go on with such items (for example, to create the customers Find does not find), set <b>When Nothing Matches</b> to <b>Output a Not-Found Item</b> rather than turning on Always Output Data: each such item then outputs {"found": false} and what it searched for, which an If node can send on to a Create.';

export const findHints: NodeHint[] = [
	{
		message: FIND_HINT,
		type: 'info',
		location: 'outputPane',
		whenToDisplay: 'afterExecution',
		displayCondition:
			'={{ ($parameter["resource"] ?? "customer") === "customer" && $parameter["operation"] === "find" && $parameter["whenNothingMatches"] !== "notFoundItem" }}',
	},
];
