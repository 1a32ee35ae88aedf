/** Workers and their lifecycle: launching worker JVMs (or in-process runners), talking to them, replacing them. */
package org.archpool.orchestrator.pool;
