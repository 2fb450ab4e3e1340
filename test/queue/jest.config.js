/**
 * Queue-mode suite: `npm run test:queue`. n8n 2.8.4 (installed into .cache/ on first use, as for
 * test/e2e) with Redis and Postgres from test/queue/install-services.sh, all started and
 * stopped by the suite. See README "Scaling (queue mode)".
 * Starting the cluster takes ~20 s; an import at 20 requests/s ~30 s.
 */
module.exports = require('../helpers/slow-suite.config.js')('queue', {
	// Installs n8n once, before the suite starts, so no test timeout has to cover it.
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
});
