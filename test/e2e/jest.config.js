/**
 * Real-n8n end-to-end suite: `npx jest -c test/e2e/jest.config.js`.
 * The first run installs n8n into .cache/n8n/<version>/ (minutes, ~2.3 GB); later runs reuse it.
 * N8N_E2E_VERSION / N8N_E2E_NODE choose another n8n (e.g. 2.40.7 on 24.21.0), see e2eTarget().
 * Each `n8n execute` is a fresh n8n process (~2-4 s); `n8n start` takes ~6 s.
 */
module.exports = require('../helpers/slow-suite.config.js')('e2e', {
	// Installs n8n once, before any worker starts, so no test timeout has to cover it.
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
	// Two files at once: each has its own n8n, user folder, ports and sandbox, and much of a
	// file's time is n8n starting or a trigger waiting for its poll. E2E_WORKERS=1 runs one, as
	// test:e2e:latest does: n8n 2.41.1 on Node 24 crashed (SIGSEGV, SIGKILL) in `n8n execute`
	// in two of two runs with two files at once, and in none of one run one at a time.
	maxWorkers: Number(process.env.E2E_WORKERS ?? 2),
});
