/**
 * What a job becomes for the resolved target, decided by the coordinator before dispatch and nowhere else:
 * {@code JobPlanner} makes every step concrete ({@code ConcreteJob}): CMake's configure with the architecture
 * define and build with its parallelism ({@code CmakeInvocation}), a command's argv with its placeholders
 * expanded into the {@code ;}-joined list and one compiler flag per architecture ({@code CommandInvocation},
 * {@code OffloadArchFlags}), and the environment conventions nested tools read instead of probing
 * ({@code ArchConventions}). A worker receives the steps and runs them as given.
 */
package org.archpool.orchestrator.toolchain;
