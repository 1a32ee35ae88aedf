/**
 * The worker: a JVM that speaks the JSON-lines protocol on stdin/stdout and runs one job at a time for the
 * architecture the request names. It contains no GPU detection and never looks for a device.
 */
package org.archpool.worker;
