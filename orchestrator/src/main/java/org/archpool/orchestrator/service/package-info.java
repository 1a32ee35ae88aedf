/**
 * {@code archpool serve}'s client protocol (docs/service.md), apart from any transport: the messages and their
 * codec, the {@link org.archpool.orchestrator.service.JobService} that turns submits into scheduled jobs and
 * results, and the connections (a bounded writer per client, lines read with a limit) over stdio or a Unix socket.
 */
package org.archpool.orchestrator.service;
