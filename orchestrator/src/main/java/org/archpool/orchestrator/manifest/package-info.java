/**
 * The build manifest (version 1): reading a user's JSON file into resolved {@link org.archpool.protocol.JobSpec}s,
 * with one clear {@link org.archpool.orchestrator.manifest.ManifestException} for each mistake.
 */
package org.archpool.orchestrator.manifest;
