/**
 * The build cache: a job's key ({@link org.archpool.orchestrator.cache.ActionKey}: what it runs, what it reads, the
 * toolchain and the resolved target), its entries (content-addressed blobs and one action entry, in the layout of
 * Bazel's HTTP cache, on disk and on a remote server), and hits that are restored only after their GPU code has
 * been read again and judged strictly against the target ({@link org.archpool.orchestrator.cache.BuildCache}).
 */
package org.archpool.orchestrator.cache;
