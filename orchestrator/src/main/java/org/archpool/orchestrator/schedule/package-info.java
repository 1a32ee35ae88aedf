/** Dispatching jobs to worker slots: {@code submit(job) → CompletableFuture}, retries, stop-on-failure. */
package org.archpool.orchestrator.schedule;
