/**
 * A real browser against the gateway: headless Chromium (Debian's {@code chromium}, driven through
 * Debian's {@code chromedriver} by Selenium, never Selenium Manager) opens the browser's own {@code
 * EventSource} on the gateway's SSE endpoint while the gateway process is SIGKILLed and started again.
 */
package io.tributary.systemtests.browser;
