/**
 * Turning a job and its target into command lines: CMake configure/build invocations, compiler
 * architecture flags, and the environment conventions nested tools read instead of probing.
 */
package org.archpool.worker.toolchain;
