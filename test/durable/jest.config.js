/**
 * The trigger on n8n's durable scheduler: `npm run test:durable` (n8n 2.41.1 on Node.js 24,
 * installed into .cache/n8n like the real-n8n suite's other lines). About 7 minutes, most of it
 * waiting for polls, which n8n runs at most once a minute.
 */
module.exports = require('../helpers/slow-suite.config.js')('durable', {
	globalSetup: '<rootDir>/test/e2e/global-setup.cts',
	testTimeout: 900_000,
});
