/**
 * The jest config of a suite that runs a real n8n (test/e2e, test/queue, test/editor): tests
 * compiled and imported as the in-process suite does (jest.config.js), without its setup, ignores
 * and coverage, and with a timeout that covers starting n8n.
 */
const {
	testEnvironment,
	reporters,
	testMatch,
	moduleFileExtensions,
	moduleNameMapper,
	transform,
} = require('../../jest.config.js');

/** @returns {import('jest').Config} */
module.exports = (folder, config) => ({
	rootDir: '../..',
	testEnvironment,
	reporters,
	roots: [`<rootDir>/test/${folder}`],
	testMatch,
	moduleFileExtensions,
	moduleNameMapper,
	transform,
	testTimeout: 300_000,
	...config,
});
