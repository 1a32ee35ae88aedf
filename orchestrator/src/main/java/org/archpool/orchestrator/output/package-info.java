/**
 * The paths a build writes, owned only once created: {@code OutputPaths} checks every output (report, metrics,
 * trace, JUnit, HTML, the log folder) before anything runs, {@code LogLayout} names the files of the log folder so
 * that no two can be one file, and {@code LogFolderLock} keeps a second build out of a folder in use.
 * {@code PathKind} says what is at a path without following a link.
 */
package org.archpool.orchestrator.output;
