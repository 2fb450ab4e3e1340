import type { IExecuteSingleFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';

/**
 * Where a request or a parameter read can come from: an operation's input item, the Business
 * list in the editor, or a poll of the trigger.
 */
export type Context = IExecuteSingleFunctions | ILoadOptionsFunctions | IPollFunctions;
