/**
 * Checking what was built against what was asked for: the GPU architectures found in each artifact,
 * judged by the {@code --verify} policy, before anyone runs a binary.
 */
package org.archpool.orchestrator.verify;
