/**
 * Every difference between n8n versions that the real-n8n suites expect, in one table: a test
 * asks `behaviourOf(version)` instead of matching version strings itself. Each row holds from its
 * `from` version up to the next row's; each claim was read in the installed n8n's code (and the
 * n8n-workflow tarballs of the versions in between) and seen in a suite run, as its comment says.
 * The user-facing side of the same facts is docs/compatibility.md.
 */

export interface N8nBehaviour {
	/**
	 * The credential tester shows the credential's own rule words (e.g. "The API rejected the
	 * API key ...") for a failed test. It applies the rules only when the request's error keeps its
	 * `cause.response`; n8n-workflow 1.99 to 2.33 (n8n 1.104 to 2.33) declare a class field
	 * `cause;` in `execution-base.error.js` that resets it, so the tester shows n8n's generic
	 * words ("Authorization failed - please check your credentials").
	 */
	credentialTestRuleWords: boolean;
	/** What the tester says for a Base URL that Node's URL parser refuses (`ftp://...`). */
	invalidUrlMessage: string;
	/** What the tester says when https meets a plain-HTTP server (OpenSSL's words, passed on). */
	tlsMismatchMessage: RegExp;
	/**
	 * Polls more often than once a minute are accepted when the cron's seconds field lists them
	 * (`0,10,20,30,40,50 * * * * *`); only `*` there is refused ("The polling interval is too
	 * short"). n8n 2.33+ refuse any seconds field but a single number (n8n-core's activation
	 * calls n8n-workflow `isSubMinuteCron`): at most one poll a minute.
	 */
	subMinutePolls: boolean;
}

interface Row extends N8nBehaviour {
	/** The first n8n version the row applies to. */
	from: string;
}

/** Oldest first. */
const ROWS: Row[] = [
	{
		// Seen on 1.100.1 (n8n-workflow 1.97.0, no `cause;` field).
		from: '1.0.0',
		credentialTestRuleWords: true,
		invalidUrlMessage: 'ERR_INVALID_URL',
		tlsMismatchMessage: /EPROTO/,
		subMinutePolls: true,
	},
	{
		// n8n-workflow 1.99.0 added the `cause;` field (read in its code): n8n 1.101.1 ships 1.98.0,
		// 1.104.2 ships 1.101.0; 1.102 and 1.103 are not on the registry here. Seen on 1.123.81, 2.8.4.
		from: '1.102.0',
		credentialTestRuleWords: false,
		invalidUrlMessage: 'Invalid URL',
		tlsMismatchMessage: /^write EPROTO .*wrong version number/,
		subMinutePolls: true,
	},
	{
		// n8n-core 2.33.0 added the isSubMinuteCron check (read in its code, not run).
		from: '2.33.0',
		credentialTestRuleWords: false,
		invalidUrlMessage: 'Invalid URL',
		tlsMismatchMessage: /^write EPROTO .*wrong version number/,
		subMinutePolls: false,
	},
	{
		// n8n-workflow 2.34.0 dropped the `cause;` field, so the error's cause and code reach the
		// tester (read in its code); seen on 2.40.7 and 2.41.1.
		from: '2.34.0',
		credentialTestRuleWords: true,
		invalidUrlMessage: 'ERR_INVALID_URL',
		tlsMismatchMessage: /EPROTO/,
		subMinutePolls: false,
	},
];

/**
 * The n8n versions CI runs the real-n8n suite on, each with the Node.js it runs on (undefined: the
 * one running this), read from package.json's scripts (`N8N_E2E_VERSION=… N8N_E2E_NODE=…`) so a
 * line added to or dropped from CI is offered by `npm run editor` with no second list to keep.
 */
export function testedVersions(
	scripts: Record<string, string>,
	defaultVersion: string,
): Record<string, string | undefined> {
	const versions: Record<string, string | undefined> = { [defaultVersion]: undefined };
	for (const script of Object.values(scripts)) {
		const found = /N8N_E2E_VERSION=(\S+) N8N_E2E_NODE=(\S+)/.exec(script);
		if (found) versions[found[1]] = found[2];
	}
	return versions;
}

/** Compares two `major.minor.patch` versions (pre-release tags are ignored). */
export function compareVersions(a: string, b: string): number {
	const parts = (version: string) => version.split('-')[0].split('.').map(Number);
	const [left, right] = [parts(a), parts(b)];
	for (let i = 0; i < 3; i++) {
		const difference = (left[i] ?? 0) - (right[i] ?? 0);
		if (difference !== 0) return difference;
	}
	return 0;
}

/** How the given n8n version behaves where versions differ; a version newer than every row gets the last. */
export function behaviourOf(version: string): N8nBehaviour {
	if (!/^\d+\.\d+\.\d+/.test(version))
		throw new Error(`"${version}" is not an n8n version (N8N_E2E_VERSION takes e.g. 2.8.4)`);
	const row = [...ROWS]
		.reverse()
		.find((candidate) => compareVersions(version, candidate.from) >= 0);
	if (row === undefined) throw new Error(`n8n ${version} is older than any the suite knows`);
	return {
		credentialTestRuleWords: row.credentialTestRuleWords,
		invalidUrlMessage: row.invalidUrlMessage,
		tlsMismatchMessage: row.tlsMismatchMessage,
		subMinutePolls: row.subMinutePolls,
	};
}
