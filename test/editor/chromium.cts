/**
 * Debian's package (test/editor/install-chromium.sh); playwright-core downloads no browser. In a
 * file of its own, importing nothing, so the editor suite's globalSetup (which Node, not jest's
 * module mapper, resolves) can read it.
 */
export const CHROMIUM = '/usr/bin/chromium';
