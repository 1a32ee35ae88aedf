/**
 * Running an outside tool with a deadline and capturing what it said: {@code ToolRunner} (the strategy),
 * {@code ProcessToolRunner} (a real process, found on a given {@code PATH}, killed with its tree at the
 * deadline), {@code OnceToolRunner} (each distinct command at most once per process) and {@code ToolOutput}
 * (how it ended). Used by the probes, the toolchain check and the Slurm commands; knows nothing of GPUs.
 */
package org.archpool.orchestrator.tool;
