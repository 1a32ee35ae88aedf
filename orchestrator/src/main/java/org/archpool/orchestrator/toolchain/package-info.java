/**
 * What a command job's argv becomes for the resolved target, decided by the coordinator before dispatch:
 * its placeholders expanded into the {@code ;}-joined list and one compiler architecture flag per
 * architecture. A worker receives the concrete argv and runs it as given.
 */
package org.archpool.orchestrator.toolchain;
