/**
 * GPU architecture detection on the coordinator: pure parsers for the captured text output of GPU probe
 * tools ({@code nvidia-smi}, {@code rocminfo}, {@code amdgpu-arch}/{@code offload-arch}). Nothing here runs a
 * process or touches the machine; callers run the tool and hand its standard output over as a string.
 * Workers never probe.
 */
package org.archpool.orchestrator.arch;
