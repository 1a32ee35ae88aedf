/**
 * Architecture resolution, done once per build by the coordinator only: the architecture grammar and the
 * table of known targets ({@link org.archpool.orchestrator.arch.ArchList}, {@link org.archpool.orchestrator.arch.GpuArch}),
 * the precedence of flag, environment, detection and fallback ({@link org.archpool.orchestrator.arch.ArchResolver}),
 * the probes and the parsers of their captured output, the coordinator's own device visibility, and the
 * compiler check before dispatch.
 */
package org.archpool.orchestrator.arch;
