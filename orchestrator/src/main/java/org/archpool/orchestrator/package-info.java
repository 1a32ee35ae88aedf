/** The coordinator: resolves the architecture once, runs a manifest's jobs on a pool of workers, reports. */
package org.archpool.orchestrator;
