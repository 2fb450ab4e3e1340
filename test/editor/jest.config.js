/**
 * Editor suite: `npm run test:editor`. Headless Debian Chromium (test/editor/install-chromium.sh)
 * driven by playwright-core against a real n8n (e2eTarget(), 2.8.4 by default) and the sandbox API.
 * The files run one after the other: each starts an n8n and a browser, and the machine has 2 cores.
 */
module.exports = require('../helpers/slow-suite.config.js')('editor', {
	globalSetup: '<rootDir>/test/editor/global-setup.cts',
	maxWorkers: 1,
});
